// The only translation unit of the library that includes Clang headers (see extractor.h).

#include "structure_tree/extractor.h"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "structure_tree/clang_support.h"

namespace linfault::structure_tree {
namespace {

namespace fs = std::filesystem;
using clang::dyn_cast;
using clang::isa;

using clang_support::check_unit;
using clang_support::FirstErrorConsumer;
using clang_support::normal_path;


// The instrumented API of dpct/shared.h.
enum class DpctClass {
  kNone,
  kAtomic,
  kAtomicFlag,
  kVar,
  kMutex,
  kSharedMutex,
  kRecursiveMutex,
  kConditionVariable,
  kLockGuard
};

DpctClass dpct_class(const clang::CXXRecordDecl* record) {
  if (record == nullptr) return DpctClass::kNone;
  const std::string name = record->getQualifiedNameAsString();
  if (name == "linfault::dpct::Atomic") return DpctClass::kAtomic;
  if (name == "linfault::dpct::AtomicFlag") return DpctClass::kAtomicFlag;
  if (name == "linfault::dpct::Var") return DpctClass::kVar;
  if (name == "linfault::dpct::Mutex") return DpctClass::kMutex;
  if (name == "linfault::dpct::SharedMutex") return DpctClass::kSharedMutex;
  if (name == "linfault::dpct::RecursiveMutex") return DpctClass::kRecursiveMutex;
  if (name == "linfault::dpct::ConditionVariable") return DpctClass::kConditionVariable;
  if (name == "linfault::dpct::LockGuard") return DpctClass::kLockGuard;
  return DpctClass::kNone;
}

bool is_dpct_lock(DpctClass c) {
  return c == DpctClass::kMutex || c == DpctClass::kSharedMutex || c == DpctClass::kRecursiveMutex;
}

bool named_one_of(const std::string& name, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
}

// The access kind name of a dpct member call, or "" when it is not an instrumented access.
// Spellings are dpct::access_kind_name's: every compare-exchange is "cas", AtomicFlag's test,
// test_and_set and clear are "load", "exchange" and "store", and every wait is "wait".
std::string access_of(const clang::CXXMethodDecl* method) {
  if (method == nullptr || !method->getIdentifier()) return "";
  const std::string name = method->getName().str();
  switch (dpct_class(method->getParent())) {
    case DpctClass::kAtomic:
      if (named_one_of(name, {"load", "store", "exchange", "fetch_add", "fetch_sub", "fetch_and",
                              "fetch_or", "fetch_xor", "wait", "notify_one", "notify_all"})) {
        return name;
      }
      if (named_one_of(name,
                       {"compare_exchange", "compare_exchange_weak", "compare_exchange_strong"})) {
        return "cas";
      }
      return "";
    case DpctClass::kAtomicFlag:
      if (name == "test") return "load";
      if (name == "test_and_set") return "exchange";
      if (name == "clear") return "store";
      return named_one_of(name, {"wait", "notify_one", "notify_all"}) ? name : "";
    case DpctClass::kVar:
      return name == "load" || name == "store" ? name : "";
    case DpctClass::kMutex:
    case DpctClass::kRecursiveMutex:
      return named_one_of(name, {"lock", "try_lock", "unlock"}) ? name : "";
    case DpctClass::kSharedMutex:
      return named_one_of(name, {"lock", "try_lock", "unlock", "lock_shared", "try_lock_shared",
                                 "unlock_shared"})
                 ? name
                 : "";
    case DpctClass::kConditionVariable:
      if (named_one_of(name, {"wait", "wait_for", "wait_until"})) return "wait";
      return named_one_of(name, {"notify_one", "notify_all"}) ? name : "";
    case DpctClass::kLockGuard:
    case DpctClass::kNone:
      return "";
  }
  return "";
}

// An operator or conversion of dpct::Atomic (`x = v`, `T v = x`, `++x`, `x += d`, ...): its body
// makes the access, through a member call whose location is inside dpct/shared.h.
bool is_atomic_operator(const clang::CXXMethodDecl* method) {
  return method != nullptr && dpct_class(method->getParent()) == DpctClass::kAtomic &&
         (method->isOverloadedOperator() || isa<clang::CXXConversionDecl>(method));
}

// std::lock_guard, std::unique_lock, std::scoped_lock or std::shared_lock over dpct locks.
bool is_std_guard(const clang::CXXRecordDecl* record) {
  const auto* spec = dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(record);
  if (spec == nullptr) return false;
  const std::string name = spec->getQualifiedNameAsString();
  if (!named_one_of(
          name, {"std::lock_guard", "std::unique_lock", "std::scoped_lock", "std::shared_lock"})) {
    return false;
  }
  bool over_dpct = false;
  for (const clang::TemplateArgument& arg : spec->getTemplateArgs().asArray()) {
    auto is_dpct_type = [](const clang::TemplateArgument& a) {
      return a.getKind() == clang::TemplateArgument::Type &&
             is_dpct_lock(dpct_class(a.getAsType()->getAsCXXRecordDecl()));
    };
    if (arg.getKind() == clang::TemplateArgument::Pack) {
      for (const clang::TemplateArgument& packed : arg.pack_elements()) {
        over_dpct = over_dpct || is_dpct_type(packed);
      }
    } else {
      over_dpct = over_dpct || is_dpct_type(arg);
    }
  }
  return over_dpct;
}

bool is_dpct_decl(const clang::Decl* decl) {
  const auto* named = dyn_cast<clang::NamedDecl>(decl);
  return named != nullptr && named->getQualifiedNameAsString().rfind("linfault::dpct::", 0) == 0;
}

bool is_lock_guard_type(clang::QualType type) {
  const clang::CXXRecordDecl* record = type.getNonReferenceType()->getAsCXXRecordDecl();
  return dpct_class(record) == DpctClass::kLockGuard || is_std_guard(record);
}

bool ends_control(const clang::Stmt* stmt) {
  if (isa<clang::ReturnStmt, clang::BreakStmt, clang::ContinueStmt, clang::GotoStmt>(stmt)) {
    return true;
  }
  if (const auto* expr = dyn_cast<clang::Expr>(stmt)) {
    return isa<clang::CXXThrowExpr>(expr->IgnoreParenImpCasts());
  }
  return false;
}

// True when `node` holds at least one instruction.
bool has_instructions(const Node& node) {
  if (node.kind == NodeKind::kSequence) return !node.instructions.empty();
  return std::any_of(node.children.begin(), node.children.end(), has_instructions);
}

std::optional<std::int64_t> constant_int(const clang::Expr* expr, const clang::ASTContext& ctx) {
  if (expr == nullptr || expr->isValueDependent()) return std::nullopt;
  clang::Expr::EvalResult result;
  if (!expr->EvaluateAsInt(result, ctx)) return std::nullopt;
  return result.Val.getInt().getExtValue();
}

const clang::VarDecl* referenced_var(const clang::Expr* expr) {
  if (expr == nullptr) return nullptr;
  if (const auto* ref = dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts())) {
    return dyn_cast<clang::VarDecl>(ref->getDecl());
  }
  return nullptr;
}

// True when `stmt` assigns, increments or takes the address of `var`.
bool modifies(const clang::Stmt* stmt, const clang::VarDecl* var) {
  if (stmt == nullptr) return false;
  if (const auto* op = dyn_cast<clang::BinaryOperator>(stmt)) {
    if (op->isAssignmentOp() && referenced_var(op->getLHS()) == var) return true;
  }
  if (const auto* op = dyn_cast<clang::UnaryOperator>(stmt)) {
    if ((op->isIncrementDecrementOp() || op->getOpcode() == clang::UO_AddrOf) &&
        referenced_var(op->getSubExpr()) == var) {
      return true;
    }
  }
  for (const clang::Stmt* child : stmt->children()) {
    if (modifies(child, var)) return true;
  }
  return false;
}

// The trip count of `for (v = a; v OP b; v += s)` with constant a, b, s and a body that leaves
// v alone.
std::optional<std::uint64_t> counted_trip_count(const clang::ForStmt* loop,
                                                const clang::ASTContext& ctx) {
  const clang::VarDecl* var = nullptr;
  std::optional<std::int64_t> start;
  if (const auto* decl = dyn_cast_or_null<clang::DeclStmt>(loop->getInit());
      decl != nullptr && decl->isSingleDecl()) {
    var = dyn_cast<clang::VarDecl>(decl->getSingleDecl());
    if (var != nullptr) start = constant_int(var->getInit(), ctx);
  } else if (const auto* assign = dyn_cast_or_null<clang::BinaryOperator>(loop->getInit());
             assign != nullptr && assign->getOpcode() == clang::BO_Assign) {
    var = referenced_var(assign->getLHS());
    start = constant_int(assign->getRHS(), ctx);
  }
  if (var == nullptr || !start || !var->getType()->isIntegerType()) return std::nullopt;

  std::optional<std::int64_t> step;
  const clang::Expr* inc = loop->getInc() ? loop->getInc()->IgnoreParenImpCasts() : nullptr;
  if (const auto* unary = dyn_cast_or_null<clang::UnaryOperator>(inc)) {
    if (referenced_var(unary->getSubExpr()) == var) {
      if (unary->isIncrementOp()) step = 1;
      if (unary->isDecrementOp()) step = -1;
    }
  } else if (const auto* compound = dyn_cast_or_null<clang::CompoundAssignOperator>(inc)) {
    if (referenced_var(compound->getLHS()) == var) {
      const auto amount = constant_int(compound->getRHS(), ctx);
      if (amount && compound->getOpcode() == clang::BO_AddAssign) step = *amount;
      if (amount && compound->getOpcode() == clang::BO_SubAssign) step = -*amount;
    }
  }
  if (!step || *step == 0) return std::nullopt;

  const auto* cond = dyn_cast_or_null<clang::BinaryOperator>(
      loop->getCond() ? loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (cond == nullptr) return std::nullopt;
  clang::BinaryOperatorKind opcode = cond->getOpcode();
  std::optional<std::int64_t> bound;
  if (referenced_var(cond->getLHS()) == var) {
    bound = constant_int(cond->getRHS(), ctx);
  } else if (referenced_var(cond->getRHS()) == var) {
    bound = constant_int(cond->getLHS(), ctx);
    opcode = clang::BinaryOperator::reverseComparisonOp(opcode);
  }
  if (!bound || modifies(loop->getBody(), var)) return std::nullopt;

  const std::int64_t a = *start, b = *bound, s = *step;
  auto ceil_div = [](std::int64_t n, std::int64_t d) { return n <= 0 ? 0 : (n + d - 1) / d; };
  switch (opcode) {
    case clang::BO_LT:
      return s > 0 ? std::optional<std::uint64_t>(ceil_div(b - a, s)) : std::nullopt;
    case clang::BO_LE:
      return s > 0 ? std::optional<std::uint64_t>(ceil_div(b - a + 1, s)) : std::nullopt;
    case clang::BO_GT:
      return s < 0 ? std::optional<std::uint64_t>(ceil_div(a - b, -s)) : std::nullopt;
    case clang::BO_GE:
      return s < 0 ? std::optional<std::uint64_t>(ceil_div(a - b + 1, -s)) : std::nullopt;
    case clang::BO_NE:
      if ((b - a) % s == 0 && (b - a) / s >= 0) return static_cast<std::uint64_t>((b - a) / s);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<std::uint64_t> fixed_range_size(const clang::CXXForRangeStmt* loop,
                                              const clang::ASTContext& ctx) {
  const clang::Expr* range = loop->getRangeInit();
  if (range == nullptr) return std::nullopt;
  const clang::QualType type = range->getType().getNonReferenceType();
  if (const auto* array = ctx.getAsConstantArrayType(type)) return array->getSize().getZExtValue();
  if (const auto* spec =
          dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(type->getAsCXXRecordDecl())) {
    if (spec->getQualifiedNameAsString() == "std::array" && spec->getTemplateArgs().size() == 2 &&
        spec->getTemplateArgs()[1].getKind() == clang::TemplateArgument::Integral) {
      return spec->getTemplateArgs()[1].getAsIntegral().getZExtValue();
    }
  }
  return std::nullopt;
}

class TreeBuilder {
 public:
  TreeBuilder(clang::ASTContext& ctx, const std::set<std::string>& owned_files)
      : ctx_(ctx), sm_(ctx.getSourceManager()), owned_files_(owned_files) {}

  Node build(const clang::CXXMethodDecl* method) {
    Node root;
    root.kind = NodeKind::kRoot;
    parent_ = &root;
    call_stack_.clear();
    follow(method);
    return root;
  }

  SourceLocation location(clang::SourceLocation loc) const {
    const clang::PresumedLoc presumed = sm_.getPresumedLoc(sm_.getExpansionLoc(loc));
    if (presumed.isInvalid()) return {};
    return {normal_path(presumed.getFilename()), presumed.getLine(), presumed.getColumn()};
  }

  // The file `loc` is written in, whatever #line directives say (an instrumented copy names the
  // original file in its locations, but it is the copy that was given to the extractor).
  std::string physical_file(clang::SourceLocation loc) const {
    return normal_path(std::string(sm_.getFilename(sm_.getSpellingLoc(loc))));
  }

 private:
  using Forwarded = std::map<const clang::ParmVarDecl*, SourceLocation>;

  // Walks a function's body (and a constructor's member initializers) in place. `forwarded`
  // gives the call-site location of each std::source_location parameter that the call left to
  // its default (or passed on from the caller's own such parameter).
  void follow(const clang::FunctionDecl* function, Forwarded forwarded = {}) {
    const clang::FunctionDecl* definition = nullptr;
    if (function == nullptr || !function->hasBody(definition) || definition == nullptr) return;
    if (std::count(call_stack_.begin(), call_stack_.end(), definition) != 0 ||
        call_stack_.size() > 64) {
      return;
    }
    call_stack_.push_back(definition);
    frames_.push_back(std::move(forwarded));
    if (const auto* ctor = dyn_cast<clang::CXXConstructorDecl>(definition)) {
      for (const clang::CXXCtorInitializer* init : ctor->inits()) {
        if (init->isWritten()) walk(init->getInit());
      }
    }
    walk(definition->getBody());
    frames_.pop_back();
    call_stack_.pop_back();
  }

  static bool is_source_location(clang::QualType type) {
    const clang::CXXRecordDecl* record = type.getNonReferenceType()->getAsCXXRecordDecl();
    return record != nullptr && record->getQualifiedNameAsString() == "std::source_location";
  }

  // Where a `SourceLocation where` argument points: nullopt for a defaulted one (the call's own
  // position), the forwarded call site for the enclosing function's own such parameter.
  std::optional<SourceLocation> explicit_where(const clang::Expr* arg) const {
    if (arg == nullptr || isa<clang::CXXDefaultArgExpr>(arg->IgnoreImplicit())) return std::nullopt;
    const clang::Expr* expr = arg->IgnoreImplicit();
    if (const auto* copy = dyn_cast<clang::CXXConstructExpr>(expr);
        copy && copy->getNumArgs() == 1) {
      expr = copy->getArg(0)->IgnoreImplicit();
    }
    if (const auto* call = dyn_cast<clang::CallExpr>(expr->IgnoreParenImpCasts())) {
      // An explicit std::source_location::current(): g++ reports the '(' of that call.
      const auto* method = dyn_cast_or_null<clang::CXXMethodDecl>(call->getDirectCallee());
      if (method != nullptr && method->getName() == "current" &&
          is_source_location(ctx_.getRecordType(method->getParent()))) {
        return location(open_paren_after(call->getCallee()->IgnoreParenImpCasts()->getEndLoc()));
      }
    }
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(expr->IgnoreParenImpCasts())) {
      if (const auto* parm = dyn_cast<clang::ParmVarDecl>(ref->getDecl());
          parm && !frames_.empty()) {
        const auto found = frames_.back().find(parm);
        if (found != frames_.back().end()) return found->second;
      }
    }
    return std::nullopt;
  }

  // The source_location parameters of `callee` and where each points for this call, whose own
  // position (for defaulted arguments) is `call_position`.
  template <class Arguments>
  Forwarded forwarded_for(const clang::FunctionDecl* callee, Arguments arguments,
                          clang::SourceLocation call_position) const {
    Forwarded forwarded;
    const clang::FunctionDecl* definition = nullptr;
    if (callee == nullptr || !callee->hasBody(definition) || definition == nullptr)
      return forwarded;
    unsigned i = 0;
    for (const clang::Expr* arg : arguments) {
      if (i >= definition->getNumParams()) break;
      const clang::ParmVarDecl* parm = definition->getParamDecl(i++);
      if (!is_source_location(parm->getType())) continue;
      if (isa<clang::CXXDefaultArgExpr>(arg->IgnoreImplicit())) {
        forwarded[parm] = location(call_position);
      } else if (auto where = explicit_where(arg)) {
        forwarded[parm] = *where;
      }
    }
    return forwarded;
  }

  // The location of an access whose `where` parameter is the last argument of the call.
  template <class Arguments>
  SourceLocation access_location(Arguments arguments, clang::SourceLocation own_position) const {
    const clang::Expr* last = nullptr;
    for (const clang::Expr* arg : arguments) last = arg;
    if (auto where = explicit_where(last)) return *where;
    return location(own_position);
  }

  bool followable(const clang::FunctionDecl* function) const {
    const clang::FunctionDecl* definition = nullptr;
    if (function == nullptr || !function->hasBody(definition) || definition == nullptr)
      return false;
    if (is_dpct_decl(definition)) return false;
    if (const auto* method = dyn_cast<clang::CXXMethodDecl>(definition);
        method != nullptr && is_dpct_decl(method->getParent())) {
      return false;
    }
    const clang::SourceLocation loc = definition->getLocation();
    return loc.isValid() && !sm_.isInSystemHeader(sm_.getExpansionLoc(loc));
  }

  std::string text_of(clang::SourceLocation begin, clang::SourceLocation end) const {
    const clang::CharSourceRange range =
        clang::CharSourceRange::getTokenRange(sm_.getExpansionLoc(begin), sm_.getExpansionLoc(end));
    std::string text = clang::Lexer::getSourceText(range, sm_, ctx_.getLangOpts()).str();
    std::string compact;
    for (char c : text) {
      if (c == '\n' || c == '\t' || c == ' ') {
        if (!compact.empty() && compact.back() != ' ') compact += ' ';
      } else {
        compact += c;
      }
    }
    if (compact.size() > 60) compact = compact.substr(0, 57) + "...";
    return compact;
  }

  // The '(' after the token at `name`: where g++ puts a defaulted source_location of a call.
  clang::SourceLocation open_paren_after(clang::SourceLocation name) const {
    const clang::SourceLocation spelled = sm_.getExpansionLoc(name);
    auto next = clang::Lexer::findNextToken(spelled, sm_, ctx_.getLangOpts());
    while (next && !next->is(clang::tok::l_paren) && !next->is(clang::tok::eof)) {
      next = clang::Lexer::findNextToken(next->getLocation(), sm_, ctx_.getLangOpts());
    }
    return next && next->is(clang::tok::l_paren) ? next->getLocation() : spelled;
  }

  Node& open_sequence() {
    if (parent_->children.empty() || parent_->children.back().kind != NodeKind::kSequence) {
      Node sequence;
      sequence.kind = NodeKind::kSequence;
      parent_->children.push_back(std::move(sequence));
    }
    return parent_->children.back();
  }

  void add_point(Point point) {
    if (text_override_) point.text = *text_override_;
    if (block_ != nullptr) {
      block_->push_back(std::move(point));
      return;
    }
    open_sequence().instructions.push_back(Instruction{{std::move(point)}});
  }

  // Runs `body` with a new child of the current parent as the parent; drops the child again when
  // it ends up without instructions.
  template <class Body>
  Node* with_child(Node child, Body&& body) {
    parent_->children.push_back(std::move(child));
    Node* saved = parent_;
    parent_ = &saved->children.back();
    body();
    parent_ = saved;
    if (!has_instructions(saved->children.back())) {
      saved->children.pop_back();
      return nullptr;
    }
    return &saved->children.back();
  }

  // A C unit whose branches are produced by `branches` (each call of add_branch adds one B).
  template <class Branches>
  void choice(Node c, Branches&& branches) {
    with_child(std::move(c), [&] {
      auto add_branch = [&](std::string label, clang::SourceLocation at, auto&& walk_branch) {
        Node b;
        b.kind = NodeKind::kBranch;
        b.label = std::move(label);
        if (at.isValid()) b.line = location(at).line;
        parent_->children.push_back(std::move(b));
        Node* saved = parent_;
        parent_ = &saved->children.back();
        walk_branch();
        parent_ = saved;
      };
      branches(add_branch);
    });
  }

  Node unit(NodeKind kind, const std::string& label, clang::SourceLocation at) const {
    Node node;
    node.kind = kind;
    node.label = label;
    node.line = location(at).line;
    return node;
  }

  void walk_children(const clang::Stmt* stmt) {
    for (const clang::Stmt* child : stmt->children()) walk(child);
  }

  void walk(const clang::Stmt* stmt) {
    if (stmt == nullptr) return;
    if (const auto* compound = dyn_cast<clang::CompoundStmt>(stmt)) {
      std::vector<const clang::Stmt*> body(compound->body_begin(), compound->body_end());
      walk_sequence(body, 0);
      return;
    }
    if (block_ != nullptr) {
      // Inside a locked block every access belongs to the one atomic instruction.
      if (const auto* lambda = dyn_cast<clang::LambdaExpr>(stmt)) {
        for (const clang::Expr* init : lambda->capture_inits()) walk(init);
        return;
      }
      if (isa<clang::CallExpr, clang::CXXConstructExpr>(stmt)) {
        walk_call(stmt);
        return;
      }
      walk_children(stmt);
      return;
    }
    if (const auto* loop = dyn_cast<clang::ForStmt>(stmt)) {
      walk(loop->getInit());
      Node l = unit(NodeKind::kLoop, "for", loop->getForLoc());
      l.theta = counted_trip_count(loop, ctx_);
      with_child(std::move(l), [&] {
        if (loop->getConditionVariableDeclStmt()) walk(loop->getConditionVariableDeclStmt());
        walk(loop->getCond());
        walk(loop->getBody());
        walk(loop->getInc());
      });
      return;
    }
    if (const auto* loop = dyn_cast<clang::CXXForRangeStmt>(stmt)) {
      walk(loop->getInit());
      walk(loop->getRangeInit());
      Node l = unit(NodeKind::kLoop, "for", loop->getForLoc());
      l.theta = fixed_range_size(loop, ctx_);
      with_child(std::move(l), [&] {
        walk(loop->getLoopVarStmt());
        walk(loop->getBody());
      });
      return;
    }
    if (const auto* loop = dyn_cast<clang::WhileStmt>(stmt)) {
      Node l = unit(NodeKind::kLoop, "while", loop->getWhileLoc());
      if (const auto value = constant_int(loop->getCond(), ctx_); value && *value == 0) l.theta = 0;
      with_child(std::move(l), [&] {
        if (loop->getConditionVariableDeclStmt()) walk(loop->getConditionVariableDeclStmt());
        walk(loop->getCond());
        walk(loop->getBody());
      });
      return;
    }
    if (const auto* loop = dyn_cast<clang::DoStmt>(stmt)) {
      Node l = unit(NodeKind::kLoop, "do", loop->getDoLoc());
      if (const auto value = constant_int(loop->getCond(), ctx_); value && *value == 0) l.theta = 1;
      with_child(std::move(l), [&] {
        walk(loop->getBody());
        walk(loop->getCond());
      });
      return;
    }
    if (const auto* branch = dyn_cast<clang::IfStmt>(stmt)) {
      walk_if(branch);
      return;
    }
    if (const auto* selection = dyn_cast<clang::SwitchStmt>(stmt)) {
      walk_switch(selection);
      return;
    }
    if (const auto* conditional = dyn_cast<clang::ConditionalOperator>(stmt)) {
      walk(conditional->getCond());
      choice(unit(NodeKind::kChoice, "?:", conditional->getQuestionLoc()), [&](auto&& add_branch) {
        add_branch("true", conditional->getTrueExpr()->getBeginLoc(),
                   [&] { walk(conditional->getTrueExpr()); });
        add_branch("false", conditional->getFalseExpr()->getBeginLoc(),
                   [&] { walk(conditional->getFalseExpr()); });
      });
      return;
    }
    if (const auto* logical = dyn_cast<clang::BinaryOperator>(stmt);
        logical && logical->isLogicalOp()) {
      walk(logical->getLHS());
      const std::string op = logical->getOpcode() == clang::BO_LAnd ? "&&" : "||";
      choice(unit(NodeKind::kChoice, op, logical->getOperatorLoc()), [&](auto&& add_branch) {
        add_branch("evaluated", logical->getRHS()->getBeginLoc(), [&] { walk(logical->getRHS()); });
        add_branch("short-circuit", clang::SourceLocation(), [] {});
      });
      return;
    }
    if (const auto* lambda = dyn_cast<clang::LambdaExpr>(stmt)) {
      // The body runs where the lambda is called, not where it is defined.
      for (const clang::Expr* init : lambda->capture_inits()) walk(init);
      return;
    }
    if (isa<clang::CallExpr, clang::CXXConstructExpr>(stmt)) {
      walk_call(stmt);
      return;
    }
    walk_children(stmt);
  }

  // Walks stmts[from...] of one block, handling locked regions and dead code.
  void walk_sequence(const std::vector<const clang::Stmt*>& stmts, std::size_t from) {
    for (std::size_t i = from; i < stmts.size(); ++i) {
      const clang::Stmt* stmt = stmts[i];
      if (const auto* guard = lock_guard_of(stmt)) {
        const std::size_t end = stmts.size();
        locked_region(guard, stmts, i + 1, end, /*explicit_unlock=*/false);
        return;
      }
      if (const auto* lock = mutex_call(stmt, "lock")) {
        std::size_t end = i + 1;
        while (end < stmts.size() && mutex_call(stmts[end], "unlock") == nullptr) ++end;
        const bool unlocked = end < stmts.size();
        locked_region(lock, stmts, i + 1, end, unlocked);
        if (unlocked) {
          walk_sequence(stmts, end + 1);
        }
        return;
      }
      walk(stmt);
      if (ends_control(stmt)) return;
    }
  }

  // One atomic instruction: the lock at `opener`, stmts[from, to), and the unlock (the guard's
  // destructor, or the explicit unlock statement stmts[to]).
  void locked_region(const clang::Stmt* opener, const std::vector<const clang::Stmt*>& stmts,
                     std::size_t from, std::size_t to, bool explicit_unlock) {
    const bool outermost = block_ == nullptr;
    std::vector<Point> points;
    std::vector<Point>* saved = block_;
    block_ = outermost ? &points : block_;
    Point lock = lock_point(opener);
    Point unlock{"unlock", lock.location, lock.text};
    if (const auto* construct = dyn_cast<clang::CXXConstructExpr>(opener);
        construct != nullptr && is_std_guard(construct->getConstructor()->getParent())) {
      // A std guard unlocks in its destructor, at the standard header's line.
      const clang::CXXDestructorDecl* destructor =
          construct->getConstructor()->getParent()->getDestructor();
      if (auto point = std_guard_point(destructor, lock.text)) unlock = std::move(*point);
    }
    add_point(std::move(lock));
    for (std::size_t i = from; i < to; ++i) {
      walk(stmts[i]);
      if (ends_control(stmts[i])) break;
    }
    if (explicit_unlock) {
      walk(stmts[to]);
    } else {
      add_point(std::move(unlock));
    }
    block_ = saved;
    if (outermost) open_sequence().instructions.push_back(Instruction{std::move(points)});
  }

  const clang::CXXConstructExpr* lock_guard_of(const clang::Stmt* stmt) const {
    const auto* decl = dyn_cast<clang::DeclStmt>(stmt);
    if (decl == nullptr || !decl->isSingleDecl()) return nullptr;
    const auto* var = dyn_cast<clang::VarDecl>(decl->getSingleDecl());
    if (var == nullptr || !is_lock_guard_type(var->getType()) || var->getInit() == nullptr) {
      return nullptr;
    }
    const clang::Expr* init = var->getInit()->IgnoreImplicit();
    const auto* construct = dyn_cast<clang::CXXConstructExpr>(init);
    // A std guard constructed without locking (std::defer_lock, std::adopt_lock) opens no block.
    if (construct != nullptr && is_std_guard(construct->getConstructor()->getParent()) &&
        first_access_in(construct->getConstructor(), kStdSearchDepth) == nullptr) {
      return nullptr;
    }
    return construct;
  }

  // How deep first_access_in follows calls inside the standard library (std::scoped_lock of
  // several mutexes goes through std::lock and its helpers).
  static constexpr int kStdSearchDepth = 6;

  // The first instrumented dpct member call that `function` makes, directly or through the
  // functions and constructors it calls (standard-library bodies included), `depth` calls deep.
  // It finds the dpct lock() inside a std::lock_guard's constructor, whose location (in the
  // standard header) is the one the access reports at run time.
  const clang::CXXMemberCallExpr* first_access_in(const clang::FunctionDecl* function,
                                                  int depth) const {
    const clang::FunctionDecl* definition = nullptr;
    if (function == nullptr || depth < 0 || !function->hasBody(definition) ||
        definition == nullptr) {
      return nullptr;
    }
    if (const auto* ctor = dyn_cast<clang::CXXConstructorDecl>(definition)) {
      for (const clang::CXXCtorInitializer* init : ctor->inits()) {
        if (const auto* found = first_access_in(init->getInit(), depth)) return found;
      }
    }
    return first_access_in(definition->getBody(), depth);
  }
  const clang::CXXMemberCallExpr* first_access_in(const clang::Stmt* stmt, int depth) const {
    if (stmt == nullptr) return nullptr;
    if (const auto* member = dyn_cast<clang::CXXMemberCallExpr>(stmt);
        member != nullptr && !access_of(member->getMethodDecl()).empty()) {
      return member;
    }
    for (const clang::Stmt* child : stmt->children()) {
      if (const auto* found = first_access_in(child, depth)) return found;
    }
    if (const auto* call = dyn_cast<clang::CallExpr>(stmt)) {
      return first_access_in(call->getDirectCallee(), depth - 1);
    }
    if (const auto* construct = dyn_cast<clang::CXXConstructExpr>(stmt)) {
      return first_access_in(construct->getConstructor(), depth - 1);
    }
    return nullptr;
  }

  // The access a std guard's member function (or constructor, or destructor) makes on its dpct
  // lock, as a point labelled with `text`; nullopt when it makes none.
  std::optional<Point> std_guard_point(const clang::FunctionDecl* function,
                                       const std::string& text) const {
    const clang::CXXMemberCallExpr* found = first_access_in(function, kStdSearchDepth);
    if (found == nullptr) return std::nullopt;
    Point point = member_point(found, access_of(found->getMethodDecl()));
    point.text = text;
    return point;
  }

  const clang::CXXMemberCallExpr* mutex_call(const clang::Stmt* stmt, const char* name) const {
    const auto* expr = dyn_cast<clang::Expr>(stmt);
    if (expr == nullptr) return nullptr;
    const auto* call = dyn_cast<clang::CXXMemberCallExpr>(expr->IgnoreImplicit());
    if (call == nullptr) return nullptr;
    const clang::CXXMethodDecl* method = call->getMethodDecl();
    if (method == nullptr || !is_dpct_lock(dpct_class(method->getParent()))) return nullptr;
    return method->getName() == name ? call : nullptr;
  }

  Point lock_point(const clang::Stmt* opener) {
    if (const auto* construct = dyn_cast<clang::CXXConstructExpr>(opener)) {
      for (const clang::Expr* arg : construct->arguments()) walk(arg);
      if (is_std_guard(construct->getConstructor()->getParent())) {
        const std::string text = text_of(construct->getBeginLoc(), construct->getEndLoc());
        if (auto point = std_guard_point(construct->getConstructor(), text)) return *point;
      }
      const clang::SourceRange parens = construct->getParenOrBraceRange();
      const clang::SourceLocation at = parens.isValid() ? parens.getEnd() : construct->getEndLoc();
      return {"lock", access_location(construct->arguments(), at),
              text_of(construct->getBeginLoc(), construct->getEndLoc())};
    }
    const auto* call = dyn_cast<clang::CXXMemberCallExpr>(opener);
    walk(call->getImplicitObjectArgument());
    return member_point(call, "lock");
  }

  Point member_point(const clang::CXXMemberCallExpr* call, const std::string& access) const {
    const auto* member = dyn_cast<clang::MemberExpr>(call->getCallee()->IgnoreParenImpCasts());
    const clang::SourceLocation name =
        member != nullptr ? member->getMemberLoc() : call->getCallee()->getEndLoc();
    return {access, access_location(call->arguments(), open_paren_after(name)),
            text_of(call->getCallee()->getBeginLoc(), name)};
  }

  void walk_call(const clang::Stmt* stmt) {
    if (const auto* construct = dyn_cast<clang::CXXConstructExpr>(stmt)) {
      const clang::CXXConstructorDecl* ctor = construct->getConstructor();
      if (ctor != nullptr && dpct_class(ctor->getParent()) == DpctClass::kLockGuard) {
        // A guard that is not a declaration of the block (a temporary): lock and unlock at once.
        const bool outermost = block_ == nullptr;
        std::vector<Point> points;
        std::vector<Point>* saved = block_;
        if (outermost) block_ = &points;
        Point lock = lock_point(construct);
        Point unlock{"unlock", lock.location, lock.text};
        add_point(std::move(lock));
        add_point(std::move(unlock));
        block_ = saved;
        if (outermost) open_sequence().instructions.push_back(Instruction{std::move(points)});
        return;
      }
      const bool follows = ctor != nullptr && followable(ctor);
      walk_arguments(construct->arguments(), follows);
      if (follows) {
        const clang::SourceRange parens = construct->getParenOrBraceRange();
        follow(ctor, forwarded_for(ctor, construct->arguments(),
                                   parens.isValid() ? parens.getEnd() : construct->getEndLoc()));
      }
      return;
    }
    const auto* call = dyn_cast<clang::CallExpr>(stmt);
    if (const auto* member = dyn_cast<clang::CXXMemberCallExpr>(call)) {
      const std::string access = access_of(member->getMethodDecl());
      if (!access.empty()) {
        // A predicate handed to ConditionVariable::wait is a lambda loop before the wait.
        walk(member->getImplicitObjectArgument());
        walk_arguments(member->arguments(), /*callee_followed=*/false);
        add_point(member_point(member, access));
        return;
      }
    }
    const auto* method = dyn_cast_or_null<clang::CXXMethodDecl>(call->getDirectCallee());
    if (is_atomic_operator(method)) {
      // Operands first, then the operator's own access, located where it happens at run time.
      walk_children(call);
      const std::optional<std::string> saved = text_override_;
      text_override_ = text_of(call->getBeginLoc(), call->getEndLoc());
      follow(method);
      text_override_ = saved;
      return;
    }
    if (const auto* member = dyn_cast<clang::CXXMemberCallExpr>(call);
        member != nullptr && method != nullptr && is_std_guard(method->getParent())) {
      // lock.unlock(), lock.lock(), lock.try_lock() on a std guard.
      walk_children(member);
      const auto* name = dyn_cast<clang::MemberExpr>(member->getCallee()->IgnoreParenImpCasts());
      const std::string text =
          text_of(member->getBeginLoc(), name ? name->getMemberLoc() : member->getEndLoc());
      if (auto point = std_guard_point(method, text)) add_point(std::move(*point));
      return;
    }
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (callee != nullptr && callee->getQualifiedNameAsString() == "linfault::dpct::spin_hint") {
      walk_arguments(call->arguments(), true);
      const clang::Expr* name = call->getCallee()->IgnoreParenImpCasts();
      add_point({"yield", access_location(call->arguments(), open_paren_after(name->getEndLoc())),
                 text_of(name->getBeginLoc(), name->getEndLoc())});
      return;
    }
    const bool follows = followable(callee);
    if (const auto* member = dyn_cast<clang::CXXMemberCallExpr>(call)) {
      walk(member->getImplicitObjectArgument());
    } else if (const auto* op = dyn_cast<clang::CXXOperatorCallExpr>(call)) {
      // Operands are the arguments; the callee is the operator itself.
      (void)op;
    } else {
      walk(call->getCallee());
    }
    walk_arguments(call->arguments(), follows);
    if (follows) {
      const auto* member = dyn_cast<clang::MemberExpr>(call->getCallee()->IgnoreParenImpCasts());
      const clang::SourceLocation name =
          member != nullptr ? member->getMemberLoc()
                            : call->getCallee()->IgnoreParenImpCasts()->getEndLoc();
      follow(callee, forwarded_for(callee, call->arguments(), open_paren_after(name)));
    }
  }

  template <class Range>
  void walk_arguments(Range arguments, bool callee_followed) {
    for (const clang::Expr* arg : arguments) {
      const auto* lambda = dyn_cast<clang::LambdaExpr>(arg->IgnoreImplicit());
      if (lambda == nullptr) {
        if (const auto* construct = dyn_cast<clang::CXXConstructExpr>(arg->IgnoreImplicit());
            construct && construct->getNumArgs() == 1) {
          lambda = dyn_cast<clang::LambdaExpr>(construct->getArg(0)->IgnoreImplicit());
        }
      }
      if (lambda == nullptr || callee_followed) {
        walk(arg);
        continue;
      }
      // A lambda handed to code that is not followed may run any number of times there (inside
      // a locked block its accesses join the block's one instruction).
      for (const clang::Expr* init : lambda->capture_inits()) walk(init);
      const clang::FunctionDecl* body = lambda->getCallOperator();
      // A generic lambda's body is typed only in its specializations: use the first one.
      if (const auto* generic = body->getDescribedFunctionTemplate()) {
        const auto specializations = generic->specializations();
        body = specializations.empty() ? nullptr : *specializations.begin();
      }
      if (block_ != nullptr) {
        follow(body);
      } else {
        with_child(unit(NodeKind::kLoop, "lambda", lambda->getBeginLoc()), [&] { follow(body); });
      }
    }
  }

  void walk_if(const clang::IfStmt* branch) {
    walk(branch->getInit());
    if (branch->isConstexpr()) {
      if (auto taken = branch->getNondiscardedCase(ctx_); taken && *taken) walk(*taken);
      return;
    }
    if (branch->getConditionVariableDeclStmt()) walk(branch->getConditionVariableDeclStmt());
    walk(branch->getCond());
    choice(unit(NodeKind::kChoice, "if", branch->getIfLoc()), [&](auto&& add_branch) {
      add_branch("then", branch->getThen()->getBeginLoc(), [&] { walk(branch->getThen()); });
      if (branch->getElse() != nullptr) {
        add_branch("else", branch->getElseLoc(), [&] { walk(branch->getElse()); });
      } else {
        add_branch("no else", clang::SourceLocation(), [] {});
      }
    });
  }

  void walk_switch(const clang::SwitchStmt* selection) {
    walk(selection->getInit());
    if (selection->getConditionVariableDeclStmt()) walk(selection->getConditionVariableDeclStmt());
    walk(selection->getCond());
    const auto* body = dyn_cast_or_null<clang::CompoundStmt>(selection->getBody());
    choice(unit(NodeKind::kChoice, "switch", selection->getSwitchLoc()), [&](auto&& add_branch) {
      bool has_default = false;
      if (body == nullptr) {
        add_branch("body", selection->getBody()->getBeginLoc(),
                   [&] { walk(selection->getBody()); });
      } else {
        // Each run of statements that starts at a case label is one branch.
        std::vector<const clang::Stmt*> stmts(body->body_begin(), body->body_end());
        for (std::size_t i = 0; i < stmts.size(); ++i) {
          if (!isa<clang::SwitchCase>(stmts[i])) continue;
          std::string label;
          const clang::Stmt* first = stmts[i];
          while (const auto* label_stmt = dyn_cast<clang::SwitchCase>(first)) {
            if (const auto* c = dyn_cast<clang::CaseStmt>(label_stmt)) {
              const auto value = constant_int(c->getLHS(), ctx_);
              label += (label.empty() ? "case " : ", ") +
                       (value ? std::to_string(*value)
                              : text_of(c->getLHS()->getBeginLoc(), c->getLHS()->getEndLoc()));
            } else {
              has_default = true;
              label += label.empty() ? "default" : ", default";
            }
            first = label_stmt->getSubStmt();
          }
          std::vector<const clang::Stmt*> run{first};
          std::size_t j = i + 1;
          while (j < stmts.size() && !isa<clang::SwitchCase>(stmts[j])) run.push_back(stmts[j++]);
          add_branch(label, stmts[i]->getBeginLoc(), [&] { walk_sequence(run, 0); });
        }
      }
      if (!has_default) add_branch("no default", clang::SourceLocation(), [] {});
    });
  }

  clang::ASTContext& ctx_;
  const clang::SourceManager& sm_;
  const std::set<std::string>& owned_files_;
  Node* parent_ = nullptr;
  std::vector<Point>* block_ = nullptr;       // the points of the open locked block, if any
  std::optional<std::string> text_override_;  // the source text of a dpct::Atomic operator use
  std::vector<const clang::FunctionDecl*> call_stack_;
  std::vector<Forwarded> frames_;
};

bool is_operation(const clang::CXXMethodDecl* method) {
  if (method->getAccess() != clang::AS_public || method->isStatic() || method->isImplicit() ||
      method->isDeleted() || method->isDefaulted() || !method->getIdentifier()) {
    return false;
  }
  return !isa<clang::CXXConstructorDecl, clang::CXXDestructorDecl, clang::CXXConversionDecl>(
      method);
}

// Collects the records of a translation unit, instantiations included.
class RecordCollector : public clang::RecursiveASTVisitor<RecordCollector> {
 public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitCXXRecordDecl(clang::CXXRecordDecl* record) {
    if (record->isThisDeclarationADefinition() && !record->isLambda() &&
        !record->isDependentContext()) {
      records.push_back(record);
    }
    return true;
  }
  std::vector<const clang::CXXRecordDecl*> records;
};

struct Candidate {
  OperationTree tree;
  std::string order;  // instantiation name, to pick one instantiation deterministically
};

void collect_trees(clang::ASTContext& ctx, const std::set<std::string>& owned_files,
                   const ExtractOptions& options, std::map<std::string, Candidate>& found) {
  RecordCollector collector;
  collector.TraverseDecl(ctx.getTranslationUnitDecl());
  TreeBuilder builder(ctx, owned_files);
  for (const clang::CXXRecordDecl* record : collector.records) {
    if (!record->getIdentifier()) continue;
    const std::string object = record->getNameAsString();
    if (!options.classes.empty() && std::find(options.classes.begin(), options.classes.end(),
                                              object) == options.classes.end()) {
      continue;
    }
    std::string instantiation;
    if (const auto* spec = dyn_cast<clang::ClassTemplateSpecializationDecl>(record)) {
      llvm::raw_string_ostream out(instantiation);
      spec->getNameForDiagnostic(out, ctx.getPrintingPolicy(), /*Qualified=*/false);
      out.flush();
    }
    std::vector<const clang::CXXMethodDecl*> methods;
    for (const clang::Decl* decl : record->decls()) {
      if (const auto* method = dyn_cast<clang::CXXMethodDecl>(decl)) {
        methods.push_back(method);
      } else if (const auto* function_template = dyn_cast<clang::FunctionTemplateDecl>(decl)) {
        for (const clang::FunctionDecl* spec : function_template->specializations()) {
          if (const auto* method = dyn_cast<clang::CXXMethodDecl>(spec)) methods.push_back(method);
        }
      }
    }
    for (const clang::CXXMethodDecl* method : methods) {
      if (!is_operation(method)) continue;
      const clang::FunctionDecl* definition = nullptr;
      if (!method->hasBody(definition) || definition == nullptr) continue;
      const SourceLocation declared = builder.location(definition->getLocation());
      if (owned_files.count(declared.file) == 0 &&
          owned_files.count(builder.physical_file(definition->getLocation())) == 0) {
        continue;
      }
      Candidate candidate;
      candidate.tree.object = object;
      candidate.tree.method = method->getNameAsString();
      candidate.tree.instantiation = instantiation;
      candidate.tree.declared_at = declared;
      candidate.order = instantiation;
      const std::string key = object + "::" + candidate.tree.method + "@" + declared.to_string();
      auto existing = found.find(key);
      if (existing != found.end() && existing->second.order <= candidate.order) continue;
      candidate.tree.root = builder.build(method);
      found[key] = std::move(candidate);
    }
  }
}

TreeSet finish(std::map<std::string, Candidate>& found) {
  std::vector<Candidate*> sorted;
  for (auto& [key, candidate] : found) sorted.push_back(&candidate);
  std::sort(sorted.begin(), sorted.end(), [](const Candidate* a, const Candidate* b) {
    const auto& x = a->tree.declared_at;
    const auto& y = b->tree.declared_at;
    return std::tie(x.file, x.line, x.column, a->tree.method) <
           std::tie(y.file, y.line, y.column, b->tree.method);
  });
  TreeSet trees;
  for (Candidate* candidate : sorted) trees.operations.push_back(std::move(candidate->tree));
  return trees;
}

}  // namespace

TreeSet extract_from_code(const std::string& code, const std::string& file_name,
                          const std::vector<std::string>& args, const ExtractOptions& options) {
  const std::unique_ptr<clang::ASTUnit> unit = clang_support::parse_code(code, file_name, args);
  std::set<std::string> owned = {normal_path(file_name)};
  std::map<std::string, Candidate> found;
  collect_trees(unit->getASTContext(), owned, options, found);
  return finish(found);
}

TreeSet extract_from_files(const std::vector<std::string>& files, const std::string& build_dir,
                           const std::optional<std::vector<std::string>>& fixed_flags,
                           const ExtractOptions& options) {
  const clang_support::Inputs inputs = clang_support::inputs_of(files);
  std::map<std::string, Candidate> found;
  clang_support::for_each_unit(inputs.sources, build_dir, fixed_flags, [&](clang::ASTUnit& unit) {
    collect_trees(unit.getASTContext(), inputs.owned, options, found);
  });
  return finish(found);
}

}  // namespace linfault::structure_tree
