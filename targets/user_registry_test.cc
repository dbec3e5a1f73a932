// Targets registered by the program (LINFAULT_REGISTER_TARGET): found beside the built-in ones,
// built lazily, validated with the registration's file:line.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "linfault/target.h"

namespace {

using ::testing::HasSubstr;

class Register {
 public:
  void write(std::int64_t v) { value_.store(v); }
  std::optional<std::int64_t> read() {
    const std::int64_t v = value_.load();
    if (v == 0) return std::nullopt;
    return v;
  }

 private:
  linfault::Atomic<std::int64_t> value_{0};
};

int maker_calls = 0;

linfault::Target register_target() {
  ++maker_calls;
  linfault::Target t;
  t.name = "user_registry_test_register";
  t.model = "register";
  t.description = "an atomic register";
  t.operations = {{"write", linfault::unique_value(), "write(v)"},
                  {"read", linfault::no_arguments(), "read() -> v | nil"}};
  t.factory = linfault::Binding<Register>()
                  .method("write", &Register::write)
                  .method("read", &Register::read)
                  .factory();
  return t;
}

LINFAULT_REGISTER_TARGET(register_target);

// A maker may look up other targets, e.g. to reuse a bundled target's operations.
LINFAULT_REGISTER_TARGET([] {
  linfault::Target t = linfault::targets::find("treiber_stack");
  t.name = "user_registry_test_stack_copy";
  return t;
});

TEST(UserRegistryTest, ARegisteredTargetIsFoundBesideTheBuiltInOnes) {
  const linfault::Target& target = linfault::targets::find("user_registry_test_register");
  EXPECT_EQ(target.model, "register");
  EXPECT_TRUE(linfault::targets::is_registered(target.name));
  EXPECT_FALSE(linfault::targets::is_registered("treiber_stack"));
  const std::vector<std::string> names = linfault::targets::target_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "user_registry_test_register");  // registered ones first
  EXPECT_EQ(linfault::targets::find("user_registry_test_stack_copy").model, "stack");
  EXPECT_NE(std::find(names.begin(), names.end(), "treiber_stack"), names.end());
  // Built once, at the first lookup, whatever the number of lookups.
  linfault::targets::registered();
  EXPECT_EQ(maker_calls, 1);
  auto object = target.factory();
  object->invoke(linfault::Call{"write", {linfault::Value(5)}});
  EXPECT_EQ(object->invoke(linfault::Call{"read", {}}), linfault::Value(5));
}

TEST(UserRegistryTest, AnUnknownNameListsRegisteredAndBuiltInTargets) {
  try {
    linfault::targets::find("no_such_target");
    FAIL() << "no exception";
  } catch (const linfault::targets::UnknownTarget& e) {
    EXPECT_THAT(e.what(), HasSubstr("user_registry_test_register"));
    EXPECT_THAT(e.what(), HasSubstr("treiber_stack"));
  }
}

std::string registration_error(linfault::Target target) {
  linfault::targets::register_target([target] { return target; }, "file.cc:12");
  try {
    linfault::targets::registered();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(UserRegistryTest, BadRegistrationsAreReportedWithTheirPlace) {
  linfault::Target good = register_target();
  EXPECT_EQ(registration_error(good),
            "file.cc:12: LINFAULT_REGISTER_TARGET: target 'user_registry_test_register' is "
            "registered twice");
  linfault::Target builtin_name = good;
  builtin_name.name = "treiber_stack";
  EXPECT_THAT(registration_error(builtin_name), HasSubstr("the name of a built-in target"));
  linfault::Target bad_model = good;
  bad_model.name = "x1";
  bad_model.model = "heap";
  EXPECT_THAT(registration_error(bad_model), HasSubstr("unknown model 'heap' (known models:"));
  linfault::Target no_ops = good;
  no_ops.name = "x2";
  no_ops.operations.clear();
  EXPECT_THAT(registration_error(no_ops), HasSubstr("'x2' has no operations"));
  linfault::Target no_model = good;
  no_model.name = "x3";
  no_model.model.clear();
  EXPECT_THAT(registration_error(no_model), HasSubstr("'x3' names no model"));
  EXPECT_THAT(registration_error(no_model), HasSubstr("\"serial\""));
  linfault::Target twice = good;
  twice.name = "x4";
  twice.operations.push_back(twice.operations.front());
  EXPECT_THAT(registration_error(twice),
              HasSubstr("'x4' lists operation '" + twice.operations.front().method + "' twice"));
  linfault::Target no_name = good;
  no_name.name.clear();
  EXPECT_THAT(registration_error(no_name), HasSubstr("the target has no name"));
  // A lookup of a refused target says why it is missing, every time, not "unknown target".
  for (int lookup = 0; lookup < 2; ++lookup) {
    try {
      linfault::targets::find("x4");
      ADD_FAILURE() << "found";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr("'x4' lists operation"));
    }
  }
  // The registry still works after the errors.
  EXPECT_GE(linfault::targets::registered().size(), 2u);
}

// Counts its constructions: registration must not construct it to check the operations.
class Counted {
 public:
  Counted() { ++constructed; }
  void put(const std::string& text) {
    linfault::LockGuard lock(mutex_);
    last_ = text;
  }
  std::string take() {
    linfault::LockGuard lock(mutex_);
    return last_;
  }
  static inline int constructed = 0;

 private:
  linfault::Mutex mutex_;
  std::string last_;
};

linfault::Target counted_target(std::string name) {
  linfault::Target t;
  t.name = std::move(name);
  t.model = "register";
  t.operations = {{"write",
                   [](linfault::ArgumentSource& source) {
                     return std::vector<linfault::Value>{
                         linfault::Value("v" + std::to_string(source.uniform(0, 3)))};
                   },
                   "write(text)"},
                  {"read", linfault::no_arguments(), "read() -> text"}};
  t.factory = linfault::Binding<Counted>()
                  .method("write", &Counted::put)
                  .method("read", &Counted::take)
                  .factory();
  return t;
}

TEST(UserRegistryTest, OperationsTheBindingOrTheModelCannotTakeAreRefusedAtRegistration) {
  // Each of these used to pass registration and fail every run as a "crash" of the object,
  // which detect and run reported as a bug of the object.
  Counted::constructed = 0;
  EXPECT_EQ(registration_error(counted_target("y0")), "no error");
  EXPECT_EQ(Counted::constructed, 0);

  linfault::Target unbound = counted_target("y1");
  unbound.operations.push_back({"clear", linfault::no_arguments(), "clear()"});
  EXPECT_EQ(registration_error(unbound),
            "file.cc:12: LINFAULT_REGISTER_TARGET: target 'y1', operation 'clear': the bound "
            "object cannot take clear(): object has no method 'clear' (methods: write, read)");

  linfault::Target nothing_bound = counted_target("y8");
  nothing_bound.factory = linfault::Binding<Counted>().factory();
  EXPECT_THAT(registration_error(nothing_bound),
              HasSubstr("object has no method 'write' (no method is bound)"));

  linfault::Target extra_argument = counted_target("y2");
  extra_argument.operations[1].arguments = linfault::key_in(0, 3);
  EXPECT_THAT(registration_error(extra_argument),
              HasSubstr("target 'y2', operation 'read': the bound object cannot take read("));
  EXPECT_THAT(registration_error(extra_argument), HasSubstr("read takes 0 arguments, got 1"));

  linfault::Target wrong_kind = counted_target("y3");
  wrong_kind.operations[0].arguments = linfault::unique_value();
  EXPECT_THAT(registration_error(wrong_kind),
              HasSubstr("cannot take write(1): write: argument 1 must be a string, got 1"));

  linfault::Target wrong_model = counted_target("y4");
  wrong_model.model = "queue";
  EXPECT_THAT(registration_error(wrong_model),
              HasSubstr("target 'y4', operation 'write': model 'queue' does not take "));
  EXPECT_THAT(registration_error(wrong_model), HasSubstr("queue has no method 'write'"));

  linfault::Target no_generator = counted_target("y5");
  no_generator.operations[1].arguments = nullptr;
  EXPECT_THAT(registration_error(no_generator),
              HasSubstr("operation 'read' has no argument generator"));

  linfault::Target throwing_generator = counted_target("y6");
  throwing_generator.operations[1].arguments =
      [](linfault::ArgumentSource&) -> std::vector<linfault::Value> {
    throw std::runtime_error("no keys configured");
  };
  EXPECT_THAT(registration_error(throwing_generator),
              HasSubstr("operation 'read': its argument generator threw: no keys configured"));
  EXPECT_EQ(Counted::constructed, 0);

  // Names and arguments go into saved runs and test cases, which are JSON: UTF-8 only.
  linfault::Target binary_argument = counted_target("y9");
  binary_argument.operations[0].arguments = [](linfault::ArgumentSource&) {
    return std::vector<linfault::Value>{linfault::Value(std::string("v\xff"))};
  };
  EXPECT_THAT(registration_error(binary_argument),
              HasSubstr("operation 'write': its argument generator drew write(\"v\\xff\"), with "
                        "a string that is not valid UTF-8"));
  EXPECT_THAT(registration_error(counted_target("y\xff")),
              HasSubstr("target name 'y\\xff' is not valid UTF-8"));
  linfault::Target binary_method = counted_target("y10");
  binary_method.operations[1].method = "read\xa3";
  EXPECT_THAT(registration_error(binary_method),
              HasSubstr("operation 'read\\xa3': the method's name is not valid UTF-8"));

  // A maker that throws (here the Binding) is named by its place too.
  linfault::targets::register_target(
      [] {
        linfault::Target t = counted_target("y7");
        t.factory = linfault::Binding<Counted>()
                        .method("write", &Counted::put)
                        .method("write", &Counted::take)
                        .factory();
        return t;
      },
      "file.cc:40");
  try {
    linfault::targets::registered();
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "file.cc:40: LINFAULT_REGISTER_TARGET: the maker threw: method 'write' bound "
                 "twice");
  }

  // Runs still construct the object.
  auto object = linfault::targets::find("y0").factory();
  EXPECT_EQ(Counted::constructed, 1);
  object->invoke(linfault::Call{"write", {linfault::Value("a")}});
  EXPECT_EQ(object->invoke(linfault::Call{"read", {}}), linfault::Value("a"));
}

}  // namespace
