#include "structure_tree/tree.h"

#include <gtest/gtest.h>

namespace linfault::structure_tree {
namespace {

Point at(const std::string& access, std::uint32_t line, std::uint32_t column) {
  return {access, {"/src/targets/pair.h", line, column}, ""};
}

Node sequence(std::vector<Instruction> instructions) {
  Node node;
  node.kind = NodeKind::kSequence;
  node.instructions = std::move(instructions);
  return node;
}

Node unit(NodeKind kind, std::vector<Node> children, std::optional<std::uint64_t> theta = {}) {
  Node node;
  node.kind = kind;
  node.children = std::move(children);
  node.theta = theta;
  return node;
}

// R -> [S(1), L(θ=3) -> [S(2), C -> [B -> [S(4)], B -> []]], S(atomic block)]
OperationTree sample() {
  OperationTree op;
  op.object = "Sample";
  op.method = "run";
  op.declared_at = {"/src/targets/pair.h", 10, 8};
  Node choice =
      unit(NodeKind::kChoice, {unit(NodeKind::kBranch, {sequence({{{at("load", 14, 3)}},
                                                                  {{at("load", 15, 3)}},
                                                                  {{at("store", 16, 3)}},
                                                                  {{at("store", 17, 3)}}})}),
                               unit(NodeKind::kBranch, {})});
  choice.label = "if";
  choice.line = 13;
  Node loop = unit(NodeKind::kLoop,
                   {sequence({{{at("load", 12, 5)}}, {{at("fetch_add", 12, 9)}}}), choice}, 3);
  loop.label = "for";
  loop.line = 11;
  op.root = unit(NodeKind::kRoot,
                 {sequence({{{at("load", 10, 20)}}}), loop,
                  sequence({{{at("lock", 20, 7), at("store", 21, 5), at("unlock", 20, 7)}}})});
  return op;
}

TEST(TreeTest, SumFollowsAlgorithm2) {
  const OperationTree op = sample();
  // 1 + 3 * (2 + max(4, 0)) + 1 (the locked block is one instruction).
  EXPECT_EQ(sum(op), 1u + 3u * (2u + 4u) + 1u);
  EXPECT_EQ(sum(op.root.children[1].children[1]), 4u);
  Node unknown = op.root.children[1];
  unknown.theta.reset();
  EXPECT_EQ(sum(unknown), 6u) << "an unknown trip count counts as theta = 1";
  unknown.theta = 0;
  EXPECT_EQ(sum(unknown), 0u);
}

TEST(TreeTest, NumIsInstructionsForSAndChildrenOtherwise) {
  const OperationTree op = sample();
  EXPECT_EQ(op.root.num(), 3u);
  EXPECT_EQ(op.root.children[1].num(), 2u);
  EXPECT_EQ(op.root.children[1].children[0].num(), 2u);
  EXPECT_EQ(op.root.children[2].num(), 1u);
  EXPECT_TRUE(op.root.children[2].instructions[0].atomic_block());
}

TEST(TreeTest, JsonRoundTripIsLossless) {
  TreeSet trees;
  trees.operations.push_back(sample());
  OperationTree second = sample();
  second.method = "other";
  second.instantiation = "Sample<int>";
  second.root.children[0].instructions[0].points[0].text = "top_.load";
  trees.operations.push_back(second);
  const nlohmann::json doc = to_json(trees);
  EXPECT_EQ(doc["format"], "linfault-structure-trees");
  EXPECT_EQ(doc["operations"][0]["sum"], 20);
  EXPECT_EQ(doc["operations"][0]["tree"]["children"][1]["theta"], 3);
  EXPECT_EQ(doc["operations"][0]["tree"]["children"][2]["instructions"][0]["access"],
            "atomic-block");
  EXPECT_EQ(tree_set_from_json(doc, "mem"), trees);
  EXPECT_EQ(parse_tree_set(doc.dump(), "mem"), trees);
}

TEST(TreeTest, MalformedDocumentsAreRejectedWithTheirPlace) {
  nlohmann::json doc = to_json(TreeSet{{sample()}});
  auto expect_error = [](const nlohmann::json& bad, const std::string& fragment) {
    try {
      tree_set_from_json(bad, "trees.json");
      ADD_FAILURE() << "accepted: " << bad.dump();
    } catch (const TreeFormatError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("trees.json: ", 0), 0u);
    }
  };
  nlohmann::json bad = doc;
  bad["format"] = "something-else";
  expect_error(bad, "/format");
  bad = doc;
  bad["operations"][0]["tree"]["children"][1]["type"] = "Q";
  expect_error(bad, "/operations/0/tree/children/1: unknown node type \"Q\"");
  bad = doc;
  bad["operations"][0]["tree"]["children"][1]["num"] = 7;
  expect_error(bad, "\"num\" disagrees");
  bad = doc;
  bad["operations"][0]["tree"]["children"][1]["children"][1]["children"][0]["type"] = "L";
  expect_error(bad, "a C node may only have B children");
  bad = doc;
  bad["operations"][0]["tree"]["children"][0]["instructions"][0].erase("line");
  expect_error(bad, "missing \"line\"");
  EXPECT_THROW(parse_tree_set("{not json", "x.json"), TreeFormatError);
}

TEST(TreeTest, DumpLooksLikeThePapersFigure) {
  OperationTree op = sample();
  op.root.children[0].instructions[0].points[0].text = "d_[0].load";
  const std::string text = dump(op);
  EXPECT_EQ(text,
            "Sample::run  pair.h:10  SUM=20\n"
            "R\n"
            "├─ S(1)  #1 d_[0].load @10:20\n"
            "├─ L θ=3 (for, line 11)\n"
            "│  ├─ S(2)  #1 load @12:5, #2 fetch_add @12:9\n"
            "│  └─ C (if, line 13)\n"
            "│     ├─ B\n"
            "│     │  └─ S(4)  #1 load @14:3, #2 load @15:3, #3 store @16:3, #4 store @17:3\n"
            "│     └─ B\n"
            "└─ S(1)  #1 atomic{3 points} lock @20:7\n");
}

TEST(TreeTest, SamePositionToleratesDifferentSpellingsOfOneFile) {
  const SourceLocation full{"/work/main/targets/lists.h", 12, 7};
  EXPECT_TRUE(same_position(full, {"targets/lists.h", 12, 7}));
  EXPECT_TRUE(same_position(full, {"/work/main/targets/../targets/lists.h", 12, 7}));
  EXPECT_FALSE(same_position(full, {"/work/main/targets/lists.h", 12, 8}));
  EXPECT_FALSE(same_position(full, {"/work/main/targets/lists.h", 13, 7}));
  EXPECT_FALSE(same_position(full, {"other/lists.h", 12, 7}));
  EXPECT_FALSE(same_position(full, {"sts.h", 12, 7}));
}

TEST(TreeTest, FindResolvesByClassOrByUniqueMethod) {
  TreeSet trees;
  OperationTree a = sample();
  OperationTree b = sample();
  b.object = "Other";
  OperationTree c = sample();
  c.method = "unique";
  trees.operations = {a, b, c};
  EXPECT_EQ(trees.find("Other", "run")->object, "Other");
  EXPECT_EQ(trees.find("", "run"), nullptr) << "ambiguous without a class";
  EXPECT_EQ(trees.find("", "unique")->method, "unique");
  EXPECT_EQ(trees.find("Sample", "missing"), nullptr);
}

}  // namespace
}  // namespace linfault::structure_tree
