// The instrumentation rewriter (see rewriter.h). A Clang translation unit, like extractor.cc.

#include "structure_tree/rewriter.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Lex/Lexer.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "structure_tree/clang_support.h"

namespace linfault::structure_tree {
namespace {

using clang::dyn_cast;
using clang::isa;

constexpr const char* kOps = "::linfault::dpct::ops::";
constexpr const char* kLockGuard = "::linfault::dpct::LockGuard";
constexpr const char* kSpinHint = "::linfault::dpct::spin_hint";
constexpr const char* kThreadFence = "::linfault::dpct::atomic_thread_fence";

using clang_support::normal_path;

// The std class templates and classes the rewriter replaces, and their instrumented names.
const std::map<std::string, std::string>& replaced_templates() {
  static const std::map<std::string, std::string> names = {
      {"std::atomic", "::linfault::dpct::Atomic"}};
  return names;
}
const std::map<std::string, std::string>& replaced_classes() {
  static const std::map<std::string, std::string> names = {
      {"std::atomic_flag", "::linfault::dpct::AtomicFlag"},
      {"std::mutex", "::linfault::dpct::Mutex"},
      {"std::shared_mutex", "::linfault::dpct::SharedMutex"},
      {"std::recursive_mutex", "::linfault::dpct::RecursiveMutex"},
      {"std::condition_variable", "::linfault::dpct::ConditionVariable"},
      {"std::condition_variable_any", "::linfault::dpct::ConditionVariable"}};
  return names;
}

// True for the classes that implement std::atomic in libstdc++ (std::atomic<T> and its bases).
bool is_atomic_record_name(const std::string& name) {
  return name == "std::atomic" || name == "std::__atomic_base" || name == "std::__atomic_float" ||
         name == "std::atomic_flag" || name == "std::__atomic_flag_base";
}

// The std::atomic-like class a type names, through sugar, references and pointers-to if asked.
bool is_atomic_type(clang::QualType type) {
  if (type.isNull()) return false;
  type = type.getNonReferenceType().getCanonicalType();
  if (const auto* tst = type->getAs<clang::TemplateSpecializationType>()) {
    if (const clang::TemplateDecl* decl = tst->getTemplateName().getAsTemplateDecl()) {
      return is_atomic_record_name(decl->getQualifiedNameAsString());
    }
  }
  if (const clang::CXXRecordDecl* record = type->getAsCXXRecordDecl()) {
    if (is_atomic_record_name(record->getQualifiedNameAsString())) return true;
    if (const auto* spec = dyn_cast<clang::ClassTemplateSpecializationDecl>(record)) {
      return is_atomic_record_name(spec->getSpecializedTemplate()->getQualifiedNameAsString());
    }
  }
  return false;
}

bool points_to_atomic(clang::QualType type) {
  if (type.isNull()) return false;
  if (type->isReferenceType()) return is_atomic_type(type.getNonReferenceType());
  if (type->isPointerType()) return is_atomic_type(type->getPointeeType());
  return false;
}

// The calls the rewriter redirects by name: the spin-wait hints, into dpct::spin_hint (kVoid, or
// kInt for one that returns int: 0), and std::atomic_thread_fence, into
// dpct::atomic_thread_fence (kFence), which the C++20 memory model of controlled runs follows.
enum class Hint { kNone, kVoid, kInt, kFence };
Hint spin_hint_kind(const clang::FunctionDecl& callee) {
  const std::string name = callee.getQualifiedNameAsString();
  if (name == "std::this_thread::yield") return Hint::kVoid;
  if (name == "std::atomic_thread_fence") return Hint::kFence;
  const bool c_function = callee.getDeclContext()->getRedeclContext()->isTranslationUnit() &&
                          (callee.isExternC() || callee.getBuiltinID() != 0);
  if (!c_function) return Hint::kNone;
  if (name == "_mm_pause" || name == "__builtin_ia32_pause") return Hint::kVoid;
  if (name == "sched_yield" || name == "pthread_yield") return Hint::kInt;
  return Hint::kNone;
}

const char* operator_function(clang::OverloadedOperatorKind kind, bool postfix) {
  switch (kind) {
    case clang::OO_PlusPlus:
      return postfix ? "post_increment" : "pre_increment";
    case clang::OO_MinusMinus:
      return postfix ? "post_decrement" : "pre_decrement";
    case clang::OO_PlusEqual:
      return "add_assign";
    case clang::OO_MinusEqual:
      return "sub_assign";
    case clang::OO_AmpEqual:
      return "and_assign";
    case clang::OO_PipeEqual:
      return "or_assign";
    case clang::OO_CaretEqual:
      return "xor_assign";
    case clang::OO_Equal:
      return "assign";
    default:
      return nullptr;
  }
}

const char* unary_function(clang::UnaryOperatorKind kind) {
  switch (kind) {
    case clang::UO_PreInc:
      return "pre_increment";
    case clang::UO_PostInc:
      return "post_increment";
    case clang::UO_PreDec:
      return "pre_decrement";
    case clang::UO_PostDec:
      return "post_decrement";
    default:
      return nullptr;
  }
}

const char* binary_function(clang::BinaryOperatorKind kind) {
  switch (kind) {
    case clang::BO_AddAssign:
      return "add_assign";
    case clang::BO_SubAssign:
      return "sub_assign";
    case clang::BO_AndAssign:
      return "and_assign";
    case clang::BO_OrAssign:
      return "or_assign";
    case clang::BO_XorAssign:
      return "xor_assign";
    case clang::BO_Assign:
      return "assign";
    default:
      return nullptr;
  }
}

class InstrumentVisitor : public clang::RecursiveASTVisitor<InstrumentVisitor> {
  using Base = clang::RecursiveASTVisitor<InstrumentVisitor>;

 public:
  InstrumentVisitor(clang::ASTContext& context, clang::Rewriter& rewriter,
                    const std::set<std::string>& owned, InstrumentResult& result,
                    std::map<std::string, Instrumented>& counts)
      : context_(context),
        sm_(context.getSourceManager()),
        rewriter_(rewriter),
        owned_(owned),
        result_(result),
        counts_(counts) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  // --- type names -----------------------------------------------------------------------------

  bool VisitElaboratedTypeLoc(clang::ElaboratedTypeLoc tl) {
    clang::TypeLoc named = tl.getNamedTypeLoc();
    const clang::SourceLocation begin = tl.getQualifierLoc().getBeginLoc();
    if (begin.isInvalid()) return true;
    if (auto tst = named.getAs<clang::TemplateSpecializationTypeLoc>()) {
      if (is_mutex_lock_guard(tst.getTypePtr())) {
        replace_whole(begin, tst.getEndLoc(), kLockGuard);
      } else if (auto name = template_replacement(tst.getTypePtr()->getTemplateName())) {
        replace_name(begin, tst.getTemplateNameLoc(), *name);
      }
    } else if (auto record = named.getAs<clang::RecordTypeLoc>()) {
      if (auto name = class_replacement(record.getDecl())) {
        replace_name(begin, record.getNameLoc(), *name);
      }
    } else if (auto typedef_loc = named.getAs<clang::TypedefTypeLoc>()) {
      if (auto name = typedef_replacement(typedef_loc.getTypedefNameDecl())) {
        replace_name(begin, typedef_loc.getNameLoc(), *name);
      }
    } else if (auto deduced = named.getAs<clang::DeducedTemplateSpecializationTypeLoc>()) {
      if (is_mutex_lock_guard(deduced.getTypePtr()->getDeducedType().getTypePtrOrNull())) {
        replace_whole(begin, deduced.getTemplateNameLoc(), kLockGuard);
      } else if (auto name = template_replacement(deduced.getTypePtr()->getTemplateName())) {
        replace_name(begin, deduced.getTemplateNameLoc(), *name);
      }
    }
    return true;
  }

  bool VisitTemplateSpecializationTypeLoc(clang::TemplateSpecializationTypeLoc tl) {
    if (is_mutex_lock_guard(tl.getTypePtr())) {
      replace_whole(tl.getTemplateNameLoc(), tl.getEndLoc(), kLockGuard);
    } else if (auto name = template_replacement(tl.getTypePtr()->getTemplateName())) {
      replace_name(tl.getTemplateNameLoc(), tl.getTemplateNameLoc(), *name);
    }
    return true;
  }

  bool VisitDeducedTemplateSpecializationTypeLoc(clang::DeducedTemplateSpecializationTypeLoc tl) {
    if (is_mutex_lock_guard(tl.getTypePtr()->getDeducedType().getTypePtrOrNull())) {
      replace_whole(tl.getTemplateNameLoc(), tl.getTemplateNameLoc(), kLockGuard);
    } else if (auto name = template_replacement(tl.getTypePtr()->getTemplateName())) {
      replace_name(tl.getTemplateNameLoc(), tl.getTemplateNameLoc(), *name);
    }
    return true;
  }

  // `std::lock_guard guard(m);`: class template argument deduction. The deduced type is the
  // variable's, or, in a template where deduction waits for instantiation, the argument's.
  bool VisitVarDecl(clang::VarDecl* var) {
    const clang::TypeSourceInfo* info = var->getTypeSourceInfo();
    if (info == nullptr) return true;
    const clang::TypeLoc whole = info->getTypeLoc();
    clang::TypeLoc tl = whole;
    if (auto elaborated = tl.getAs<clang::ElaboratedTypeLoc>()) tl = elaborated.getNamedTypeLoc();
    auto deduced = tl.getAs<clang::DeducedTemplateSpecializationTypeLoc>();
    if (!deduced) return true;
    const clang::TemplateDecl* decl = deduced.getTypePtr()->getTemplateName().getAsTemplateDecl();
    if (decl == nullptr || decl->getQualifiedNameAsString() != "std::lock_guard") return true;
    bool guards_mutex =
        !var->getType()->isDependentType() && is_mutex_lock_guard(var->getType().getTypePtr());
    if (var->getType()->isDependentType() && var->getInit() != nullptr) {
      const clang::Expr* init = var->getInit()->IgnoreImplicit();
      const clang::Expr* argument = nullptr;
      if (const auto* list = dyn_cast<clang::ParenListExpr>(init);
          list && list->getNumExprs() == 1) {
        argument = list->getExpr(0);
      } else if (const auto* construct = dyn_cast<clang::CXXUnresolvedConstructExpr>(init);
                 construct && construct->getNumArgs() == 1) {
        argument = construct->getArg(0);
      }
      const clang::CXXRecordDecl* mutex = argument != nullptr && !argument->getType().isNull()
                                              ? argument->getType()->getAsCXXRecordDecl()
                                              : nullptr;
      guards_mutex = mutex != nullptr && mutex->getQualifiedNameAsString() == "std::mutex";
    }
    if (guards_mutex) replace_whole(whole.getBeginLoc(), deduced.getTemplateNameLoc(), kLockGuard);
    return true;
  }

  bool VisitRecordTypeLoc(clang::RecordTypeLoc tl) {
    if (auto name = class_replacement(tl.getDecl())) {
      replace_name(tl.getNameLoc(), tl.getNameLoc(), *name);
    }
    return true;
  }

  bool VisitTypedefTypeLoc(clang::TypedefTypeLoc tl) {
    if (auto name = typedef_replacement(tl.getTypedefNameDecl())) {
      replace_name(tl.getNameLoc(), tl.getNameLoc(), *name);
    }
    return true;
  }

  // --- operators ------------------------------------------------------------------------------

  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr* e) {
    const auto* method = dyn_cast_or_null<clang::CXXMethodDecl>(e->getDirectCallee());
    const bool on_atomic =
        method != nullptr ? is_atomic_record_name(method->getParent()->getQualifiedNameAsString())
                          : e->getNumArgs() > 0 && is_atomic_type(e->getArg(0)->getType());
    if (!on_atomic) return true;
    const bool postfix = e->getNumArgs() == 2 && (e->getOperator() == clang::OO_PlusPlus ||
                                                  e->getOperator() == clang::OO_MinusMinus);
    const char* function = operator_function(e->getOperator(), postfix);
    if (function == nullptr) return true;
    if (postfix) {
      rewrite_postfix(e->getArg(0), e->getOperatorLoc(), function);
    } else if (e->getNumArgs() == 1) {
      rewrite_prefix(e->getOperatorLoc(), e->getArg(0), function);
    } else {
      rewrite_binary(e->getArg(0), e->getOperatorLoc(), e->getArg(1), function);
    }
    return true;
  }

  // Operators in templates whose operand type is dependent, e.g. `counter_++` on a member
  // declared std::atomic<T>.
  bool VisitUnaryOperator(clang::UnaryOperator* e) {
    const char* function = unary_function(e->getOpcode());
    if (function == nullptr || !is_atomic_type(e->getSubExpr()->getType())) return true;
    if (e->isPostfix()) {
      rewrite_postfix(e->getSubExpr(), e->getOperatorLoc(), function);
    } else {
      rewrite_prefix(e->getOperatorLoc(), e->getSubExpr(), function);
    }
    return true;
  }

  bool VisitBinaryOperator(clang::BinaryOperator* e) {
    const char* function = binary_function(e->getOpcode());
    if (function == nullptr || !is_atomic_type(e->getLHS()->getType())) return true;
    rewrite_binary(e->getLHS(), e->getOperatorLoc(), e->getRHS(), function);
    return true;
  }

  // The implicit load: `if (flag)`, `int v = counter;`, `return top_;`, static_cast<int>(x) on
  // an atomic: a user-defined conversion calling the atomic's `operator T()`.
  bool VisitCastExpr(clang::CastExpr* e) {
    if (e->getCastKind() != clang::CK_UserDefinedConversion) return true;
    const auto* call = dyn_cast<clang::CXXMemberCallExpr>(e->getSubExpr()->IgnoreParens());
    if (call == nullptr) return true;
    const auto* conversion = dyn_cast_or_null<clang::CXXConversionDecl>(call->getMethodDecl());
    if (conversion == nullptr ||
        !is_atomic_record_name(conversion->getParent()->getQualifiedNameAsString())) {
      return true;
    }
    if (const clang::Expr* object = call->getImplicitObjectArgument()) wrap(object, "load");
    return true;
  }

  // --- what cannot be rewritten ---------------------------------------------------------------

  // __atomic_* and __c11_atomic_* builtins are AtomicExprs, not calls.
  bool VisitAtomicExpr(clang::AtomicExpr* e) {
    if (!owned(e->getBuiltinLoc())) return true;
    const std::string name =
        clang::Lexer::getSourceText(clang::CharSourceRange::getTokenRange(e->getBuiltinLoc()), sm_,
                                    context_.getLangOpts())
            .str();
    error(e->getBuiltinLoc(), "cannot instrument " + name +
                                  ": a raw atomic builtin is not a scheduling point (use "
                                  "std::atomic)");
    return true;
  }

  bool VisitCallExpr(clang::CallExpr* e) {
    const clang::FunctionDecl* callee = e->getDirectCallee();
    if (callee == nullptr || isa<clang::CXXOperatorCallExpr>(e)) return true;
    if (!owned(e->getBeginLoc())) return true;
    if (const Hint hint = spin_hint_kind(*callee); hint != Hint::kNone) {
      const clang::FunctionDecl* definition = nullptr;
      // A function of that name defined among the instrumented files is the user's own.
      if (!callee->hasBody(definition) || !owned(definition->getLocation())) {
        rewrite_spin_hint(e, hint);
      }
      return true;
    }
    const std::string name = callee->getNameAsString();
    if (callee->getBuiltinID() != 0 &&
        (name.rfind("__atomic_", 0) == 0 || name.rfind("__sync_", 0) == 0 ||
         name.rfind("__c11_atomic_", 0) == 0)) {
      error(e->getBeginLoc(), "cannot instrument " + name +
                                  ": a raw atomic builtin is not a scheduling point (use "
                                  "std::atomic)");
      return true;
    }
    // A member of an atomic takes its own object implicitly; its arguments are values.
    if (const auto* method = dyn_cast<clang::CXXMethodDecl>(callee);
        method != nullptr &&
        is_atomic_record_name(method->getParent()->getQualifiedNameAsString())) {
      return true;
    }
    if (body_owned(*callee)) return true;  // its body is rewritten too
    for (unsigned i = 0; i < e->getNumArgs(); ++i) check_escape(*e, *callee, i);
    return true;
  }

  void check_atomic_ref(clang::TypeLoc tl) {
    if (auto tst = tl.getAs<clang::TemplateSpecializationTypeLoc>()) {
      if (const clang::TemplateDecl* decl =
              tst.getTypePtr()->getTemplateName().getAsTemplateDecl()) {
        if (decl->getQualifiedNameAsString() == "std::atomic_ref") {
          error(tst.getTemplateNameLoc(),
                "cannot instrument std::atomic_ref: declare the object std::atomic instead");
        }
      }
    }
  }

  bool VisitTypeLoc(clang::TypeLoc tl) {
    check_atomic_ref(tl);
    return true;
  }

  // --- unevaluated operands -------------------------------------------------------------------

  // A hint in sizeof, noexcept, decltype, an unevaluated typeid or a requires-expression is no
  // spin, and spin_hint would change noexcept's answer: it stays. (Overrides without the data
  // recursion queue, so that the operand is traversed before the depth goes back down.)
  bool TraverseUnaryExprOrTypeTraitExpr(clang::UnaryExprOrTypeTraitExpr* e) {
    return unevaluated([&] { return Base::TraverseUnaryExprOrTypeTraitExpr(e); });
  }
  bool TraverseCXXNoexceptExpr(clang::CXXNoexceptExpr* e) {
    return unevaluated([&] { return Base::TraverseCXXNoexceptExpr(e); });
  }
  bool TraverseCXXTypeidExpr(clang::CXXTypeidExpr* e) {
    if (e->isPotentiallyEvaluated()) return Base::TraverseCXXTypeidExpr(e);
    return unevaluated([&] { return Base::TraverseCXXTypeidExpr(e); });
  }
  bool TraverseRequiresExpr(clang::RequiresExpr* e) {
    return unevaluated([&] { return Base::TraverseRequiresExpr(e); });
  }
  bool TraverseDecltypeTypeLoc(clang::DecltypeTypeLoc tl) {
    return unevaluated([&] { return Base::TraverseDecltypeTypeLoc(tl); });
  }
  bool TraverseTypeOfExprTypeLoc(clang::TypeOfExprTypeLoc tl) {
    return unevaluated([&] { return Base::TraverseTypeOfExprTypeLoc(tl); });
  }

 private:
  // Argument `index` of the call `e` of `callee`, whose body is not rewritten: an atomic passed by
  // reference or by address is an error when the parameter names the type (the rewritten copy
  // would not compile), a warning when it is `void*` or C's `...` (the address escapes to code
  // that is not instrumented) or a deduced template parameter.
  void check_escape(const clang::CallExpr& e, const clang::FunctionDecl& callee, unsigned index) {
    const clang::Expr* arg = e.getArg(index);
    if (arg == nullptr || isa<clang::CXXDefaultArgExpr>(arg)) return;
    const clang::Expr* bare = arg->IgnoreParenImpCasts();
    const bool by_address = bare->getType()->isPointerType() && points_to_atomic(bare->getType());
    const bool by_reference = !by_address && bare->isGLValue() && is_atomic_type(bare->getType()) &&
                              !converted_by_value(arg);
    if (!by_address && !by_reference) return;
    const std::string name = callee.getQualifiedNameAsString();
    const clang::SourceLocation at = arg->getBeginLoc();
    if (name == "std::addressof" || name == "std::__addressof" || name == "boost::addressof")
      return;
    // The parameter as the function's declaration spells it (a template's: its pattern's).
    const clang::FunctionDecl* pattern =
        callee.getTemplateInstantiationPattern(/*ForDefinition=*/false);
    if (pattern == nullptr || pattern->getNumParams() != callee.getNumParams()) pattern = &callee;
    if (index >= pattern->getNumParams()) {
      warning(at, "the address of an atomic escapes to " + name +
                      " through `...`, whose body is not instrumented: it gets the linfault "
                      "Atomic, and its accesses there are no scheduling points");
      return;
    }
    clang::QualType parameter = pattern->getParamDecl(index)->getType().getNonReferenceType();
    if (parameter->isPointerType()) parameter = parameter->getPointeeType();
    if (parameter->isVoidType()) {
      warning(at, "the address of an atomic escapes to " + name +
                      " as a void*, and its body is not instrumented: the call passes the "
                      "linfault Atomic, and its accesses there are no scheduling points");
      return;
    }
    if (parameter->isTemplateTypeParmType() || parameter->getContainedAutoType() != nullptr) {
      warning(at, "an atomic is passed to the template " + name +
                      ", whose body is not instrumented: it gets the linfault Atomic (it compiles "
                      "if it uses only std::atomic's members, which are scheduling points)");
      return;
    }
    error(at, "cannot instrument the call of " + name +
                  ": an atomic is passed to a function whose body is not among the instrumented "
                  "files and whose parameter is the std type");
  }

  // Whether the body of `callee`, or of the template it is a specialization of (not necessarily
  // instantiated yet), is among the rewritten files.
  bool body_owned(const clang::FunctionDecl& callee) const {
    const clang::FunctionDecl* pattern =
        callee.getTemplateInstantiationPattern(/*ForDefinition=*/false);
    for (const clang::FunctionDecl* decl : {&callee, pattern}) {
      const clang::FunctionDecl* definition = nullptr;
      if (decl != nullptr && decl->hasBody(definition) && definition != nullptr &&
          owned(definition->getLocation())) {
        return true;
      }
    }
    return false;
  }

  // True when `arg` is an atomic read by its conversion operator (an implicit load), not bound by
  // reference.
  static bool converted_by_value(const clang::Expr* arg) {
    for (const clang::Expr* e = arg->IgnoreParens(); e != nullptr;) {
      const auto* cast = dyn_cast<clang::ImplicitCastExpr>(e);
      if (cast == nullptr) {
        if (const auto* temporary = dyn_cast<clang::MaterializeTemporaryExpr>(e)) {
          e = temporary->getSubExpr()->IgnoreParens();
          continue;
        }
        return false;
      }
      if (cast->getCastKind() == clang::CK_UserDefinedConversion ||
          cast->getCastKind() == clang::CK_LValueToRValue) {
        return true;
      }
      e = cast->getSubExpr()->IgnoreParens();
    }
    return false;
  }

  bool owned(clang::SourceLocation loc) const {
    if (loc.isInvalid()) return false;
    const clang::FileID id = sm_.getFileID(sm_.getSpellingLoc(loc));
    // Once per file: normalizing a path asks the file system, and a library's unit has
    // hundreds of thousands of locations.
    const auto known = owned_files_.find(id.getHashValue());
    if (known != owned_files_.end()) return known->second;
    const clang::FileEntry* entry = sm_.getFileEntryForID(id);
    const bool is_owned =
        entry != nullptr && owned_.count(normal_path(std::string(entry->getName()))) > 0;
    owned_files_.emplace(id.getHashValue(), is_owned);
    return is_owned;
  }

  std::string file_of(clang::SourceLocation loc) const {
    const clang::FileEntry* entry = sm_.getFileEntryForID(sm_.getFileID(loc));
    return entry == nullptr ? "" : normal_path(std::string(entry->getName()));
  }

  void error(clang::SourceLocation loc, const std::string& problem) {
    const clang::PresumedLoc where = sm_.getPresumedLoc(sm_.getExpansionLoc(loc));
    std::string line = where.isValid() ? std::string(where.getFilename()) + ":" +
                                             std::to_string(where.getLine()) + ":" +
                                             std::to_string(where.getColumn()) + ": "
                                       : "";
    line += problem;
    if (reported_.insert(line).second) result_.errors.push_back(line);
  }

  void warning(clang::SourceLocation loc, const std::string& problem) {
    const clang::PresumedLoc where = sm_.getPresumedLoc(sm_.getExpansionLoc(loc));
    std::string line = where.isValid() ? std::string(where.getFilename()) + ":" +
                                             std::to_string(where.getLine()) + ":" +
                                             std::to_string(where.getColumn()) + ": "
                                       : "";
    line += "warning: " + problem;
    if (reported_.insert(line).second) result_.warnings.push_back(line);
  }

  std::optional<std::string> template_replacement(clang::TemplateName name) const {
    const clang::TemplateDecl* decl = name.getAsTemplateDecl();
    if (decl == nullptr) return std::nullopt;
    const auto found = replaced_templates().find(decl->getQualifiedNameAsString());
    if (found == replaced_templates().end()) return std::nullopt;
    return found->second;
  }

  std::optional<std::string> class_replacement(const clang::NamedDecl* decl) const {
    if (decl == nullptr) return std::nullopt;
    const auto found = replaced_classes().find(decl->getQualifiedNameAsString());
    if (found == replaced_classes().end()) return std::nullopt;
    return found->second;
  }

  // std::atomic_int and the like: ::linfault::dpct::Atomic<int>.
  std::optional<std::string> typedef_replacement(const clang::TypedefNameDecl* decl) const {
    if (decl == nullptr || !decl->isInStdNamespace()) return std::nullopt;
    const std::string name = decl->getNameAsString();
    if (name.rfind("atomic_", 0) != 0) return std::nullopt;
    const clang::QualType underlying = decl->getUnderlyingType().getCanonicalType();
    const auto* spec =
        dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(underlying->getAsCXXRecordDecl());
    if (spec == nullptr ||
        spec->getSpecializedTemplate()->getQualifiedNameAsString() != "std::atomic") {
      return std::nullopt;
    }
    const clang::QualType argument = spec->getTemplateArgs()[0].getAsType();
    clang::PrintingPolicy policy(context_.getLangOpts());
    policy.SuppressScope = false;
    policy.FullyQualifiedName = true;
    return "::linfault::dpct::Atomic<" + argument.getAsString(policy) + ">";
  }

  // std::lock_guard<std::mutex>: linfault::dpct::LockGuard records the line of its declaration,
  // where std::lock_guard would make the lock's location one of <mutex>'s.
  static bool is_mutex_lock_guard(const clang::Type* type) {
    if (type == nullptr) return false;
    const auto* record = dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
        type->getCanonicalTypeInternal()->getAsCXXRecordDecl());
    if (record == nullptr ||
        record->getSpecializedTemplate()->getQualifiedNameAsString() != "std::lock_guard") {
      return false;
    }
    const clang::TemplateArgumentList& args = record->getTemplateArgs();
    if (args.size() != 1 || args[0].getKind() != clang::TemplateArgument::Type) return false;
    const clang::CXXRecordDecl* mutex = args[0].getAsType()->getAsCXXRecordDecl();
    return mutex != nullptr && mutex->getQualifiedNameAsString() == "std::mutex";
  }

  // Replaces the source from `begin` to the end of the token at `last_token`, and nothing inside
  // it afterwards (the template arguments of a replaced std::lock_guard<std::mutex>).
  void replace_whole(clang::SourceLocation begin, clang::SourceLocation last_token,
                     const std::string& replacement) {
    replace(begin, last_token, replacement, /*cover=*/true);
  }

  bool covered(clang::SourceLocation loc) const {
    for (const auto& [begin, end] : covered_) {
      if (sm_.getFileID(begin) != sm_.getFileID(loc)) continue;
      if (!sm_.isBeforeInTranslationUnit(loc, begin) && sm_.isBeforeInTranslationUnit(loc, end)) {
        return true;
      }
    }
    return false;
  }

  // Replaces the source from `begin` to the end of the token at `name_token`.
  void replace_name(clang::SourceLocation begin, clang::SourceLocation name_token,
                    const std::string& replacement) {
    replace(begin, name_token, replacement, /*cover=*/false);
  }

  // A type name spelled from `begin` to the token at `last_token` becomes `replacement`, once
  // (an elaborated type and the type it names end at the same token). A std type named inside a
  // macro cannot be rewritten: an error, except for a lock guard (`cover`), which then simply
  // stays a std guard of the instrumented mutex.
  void replace(clang::SourceLocation begin, clang::SourceLocation last_token,
               const std::string& replacement, bool cover) {
    if (begin.isMacroID() || last_token.isMacroID()) {
      if (!cover && owned(begin)) {
        error(begin,
              "cannot instrument a std type named inside a macro; spell it out of the "
              "macro");
      }
      return;
    }
    if (!owned(begin) || covered(begin)) return;
    if (!done_.insert(last_token.getRawEncoding()).second) return;
    const clang::SourceLocation end =
        clang::Lexer::getLocForEndOfToken(last_token, 0, sm_, context_.getLangOpts());
    if (cover) covered_.emplace_back(begin, end);
    rewriter_.ReplaceText(clang::CharSourceRange::getCharRange(begin, end), replacement);
    ++counts_[file_of(begin)].types;
  }

  bool editable(const clang::Expr* e) const {
    return e != nullptr && !e->getBeginLoc().isMacroID() && !e->getEndLoc().isMacroID() &&
           owned(e->getBeginLoc());
  }

  bool first_time(const void* node) { return visited_.insert(node).second; }

  void count_operator(clang::SourceLocation loc) { ++counts_[file_of(loc)].operators; }

  // f(x) around `object`.
  void wrap(const clang::Expr* object, const char* function) {
    if (!first_time(object)) return;
    if (!editable(object)) {
      if (object != nullptr && owned(object->getBeginLoc())) {
        error(object->getBeginLoc(), "cannot instrument an atomic read inside a macro");
      }
      return;
    }
    rewriter_.InsertText(object->getBeginLoc(), std::string(kOps) + function + "(", true);
    rewriter_.InsertTextAfterToken(object->getEndLoc(), ")");
    count_operator(object->getBeginLoc());
  }

  // `x++` -> ops::post_increment(x)
  void rewrite_postfix(const clang::Expr* operand, clang::SourceLocation op, const char* function) {
    if (!first_time(operand) || !editable(operand) || op.isMacroID()) return;
    rewriter_.InsertText(operand->getBeginLoc(), std::string(kOps) + function + "(", true);
    rewriter_.ReplaceText(clang::SourceRange(op, op), ")");
    count_operator(op);
  }

  // `++x` -> ops::pre_increment(x)
  void rewrite_prefix(clang::SourceLocation op, const clang::Expr* operand, const char* function) {
    if (!first_time(operand) || !editable(operand) || op.isMacroID()) return;
    rewriter_.ReplaceText(clang::SourceRange(op, op), std::string(kOps) + function + "(");
    rewriter_.InsertTextAfterToken(operand->getEndLoc(), ")");
    count_operator(op);
  }

  // `x += v` -> ops::add_assign(x, v)
  void rewrite_binary(const clang::Expr* lhs, clang::SourceLocation op, const clang::Expr* rhs,
                      const char* function) {
    if (!first_time(lhs) || !editable(lhs) || !editable(rhs) || op.isMacroID()) return;
    rewriter_.InsertText(lhs->getBeginLoc(), std::string(kOps) + function + "(", true);
    rewriter_.ReplaceText(clang::SourceRange(op, op), ",");
    rewriter_.InsertTextAfterToken(rhs->getEndLoc(), ")");
    count_operator(op);
  }

  template <class Traverse>
  bool unevaluated(Traverse traverse) {
    ++unevaluated_;
    const bool go_on = traverse();
    --unevaluated_;
    return go_on;
  }

  // `std::this_thread::yield()` -> `::linfault::dpct::spin_hint()`, `sched_yield()` ->
  // `(::linfault::dpct::spin_hint(), 0)`: only the callee's name is replaced (a newline inside it
  // is kept), so the parentheses, and with them the line spin_hint's defaulted location
  // captures, stay where the user wrote them. A call written through a macro, or not evaluated,
  // stays as it is: a plain yield, which still compiles.
  void rewrite_spin_hint(const clang::CallExpr* e, Hint hint) {
    const clang::Expr* callee = e->getCallee()->IgnoreParenImpCasts();
    if (!isa<clang::DeclRefExpr>(callee) || unevaluated_ > 0) return;
    const clang::SourceLocation begin = callee->getBeginLoc();
    const clang::SourceLocation name = callee->getEndLoc();
    if (e->getBeginLoc().isMacroID() || e->getEndLoc().isMacroID() || begin.isMacroID() ||
        name.isMacroID() || !owned(begin)) {
      return;
    }
    if (!hinted_.insert(begin.getRawEncoding()).second) return;
    const clang::SourceLocation end =
        clang::Lexer::getLocForEndOfToken(name, 0, sm_, context_.getLangOpts());
    const llvm::StringRef original = clang::Lexer::getSourceText(
        clang::CharSourceRange::getCharRange(begin, end), sm_, context_.getLangOpts());
    std::string replacement = hint == Hint::kFence ? kThreadFence : kSpinHint;
    // `case 1:std::this_thread::yield();` must not become `case 1:::linfault::...`.
    if (hint != Hint::kInt && sm_.getFileOffset(begin) > 0) {
      const char previous = sm_.getCharacterData(begin)[-1];
      if (previous == ':' || previous == '%' || previous == '<') replacement.insert(0, " ");
    }
    for (const char c : original) {
      if (c == '\n') replacement += '\n';
    }
    // By offset and length, so that text a parent rewrite inserted at `begin` stays.
    rewriter_.ReplaceText(begin, original.size(), replacement);
    if (hint == Hint::kInt) {
      // A parent rewrite inserted its text first (the visit is pre-order): it stays outside.
      rewriter_.InsertText(e->getBeginLoc(), "(", /*InsertAfter=*/true);
      rewriter_.InsertText(
          clang::Lexer::getLocForEndOfToken(e->getEndLoc(), 0, sm_, context_.getLangOpts()), ", 0)",
          /*InsertAfter=*/false);
    }
    if (hint == Hint::kFence) {
      ++counts_[file_of(begin)].fences;
    } else {
      ++counts_[file_of(begin)].spin_hints;
    }
  }

  clang::ASTContext& context_;
  clang::SourceManager& sm_;
  clang::Rewriter& rewriter_;
  const std::set<std::string>& owned_;
  InstrumentResult& result_;
  std::map<std::string, Instrumented>& counts_;
  std::set<unsigned> done_;
  std::vector<std::pair<clang::SourceLocation, clang::SourceLocation>> covered_;
  std::set<const void*> visited_;
  std::set<std::string> reported_;
  std::set<unsigned> hinted_;
  mutable std::map<unsigned, bool> owned_files_;  // FileID -> owned()
  int unevaluated_ = 0;
};

// The copy's first lines: the instrumented types when an edit names them, then the original
// file's name and line 1.
std::string preamble(const std::string& original, bool edited) {
  std::string escaped;
  for (char c : original) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return std::string(edited ? "#include \"dpct/instrumented.h\"\n" : "") + "#line 1 \"" + escaped +
         "\"\n";
}

// The text of a file without the UTF-8 byte-order mark it may start with, which would otherwise
// follow the preamble's #line.
std::string without_bom(std::string text) {
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  return text;
}

// Rewrites the owned files of one parsed unit; files already done by an earlier unit are kept.
void instrument_unit(clang::ASTUnit& unit, const std::set<std::string>& owned,
                     InstrumentResult& result, std::map<std::string, Instrumented>& done) {
  clang::ASTContext& context = unit.getASTContext();
  clang::SourceManager& sm = context.getSourceManager();
  clang::Rewriter rewriter(sm, context.getLangOpts());
  std::map<std::string, Instrumented> counts;
  InstrumentVisitor visitor(context, rewriter, owned, result, counts);
  visitor.TraverseDecl(context.getTranslationUnitDecl());

  for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
    const std::string path = normal_path(std::string(it->getFirst()->getName()));
    if (owned.count(path) == 0 || done.count(path) > 0) continue;
    const clang::FileID id = sm.translateFile(it->getFirst());
    if (id.isInvalid()) continue;
    Instrumented out;
    out.file = path;
    const clang::RewriteBuffer* buffer = rewriter.getRewriteBufferFor(id);
    const std::string body = buffer != nullptr ? std::string(buffer->begin(), buffer->end())
                                               : std::string(sm.getBufferData(id));
    out.text = preamble(path, buffer != nullptr) + without_bom(body);
    out.types = counts[path].types;
    out.operators = counts[path].operators;
    out.spin_hints = counts[path].spin_hints;
    out.fences = counts[path].fences;
    done[path] = std::move(out);
  }
}

// Each line once, in the order first seen (a header parsed in two units is reported by both).
std::vector<std::string> unique_lines(const std::vector<std::string>& lines) {
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (const std::string& line : lines) {
    if (seen.insert(line).second) unique.push_back(line);
  }
  return unique;
}

InstrumentResult finish(std::map<std::string, Instrumented>& done, InstrumentResult result) {
  for (auto& [path, file] : done) result.files.push_back(std::move(file));
  result.errors = unique_lines(result.errors);
  result.warnings = unique_lines(result.warnings);
  return result;
}

// Whether `text` names, outside comments, anything the rewriter rewrites or refuses: a file that
// names none of them is the same after rewriting.
bool names_rewritten(const std::string& text) {
  static const std::set<std::string> names = {
      "atomic",        "atomic_flag",     "atomic_ref",          "mutex",
      "shared_mutex",  "recursive_mutex", "condition_variable",  "condition_variable_any",
      "lock_guard",    "yield",           "atomic_thread_fence", "sched_yield",
      "pthread_yield", "_mm_pause",       "__builtin_ia32_pause"};
  clang::LangOptions options;
  options.CPlusPlus = true;
  options.CPlusPlus20 = true;
  clang::Lexer lexer(clang::SourceLocation(), options, text.data(), text.data(),
                     text.data() + text.size());
  clang::Token token;
  while (!lexer.LexFromRawLexer(token)) {
    if (!token.is(clang::tok::raw_identifier)) continue;
    const std::string name = token.getRawIdentifier().str();
    if (names.count(name) > 0 || name.rfind("atomic_", 0) == 0 || name.rfind("__atomic_", 0) == 0 ||
        name.rfind("__sync_", 0) == 0 || name.rfind("__c11_atomic_", 0) == 0) {
      return true;
    }
  }
  return false;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ExtractError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A unit that includes `headers` and nothing else, for parsing headers no source includes.
std::string including(const std::vector<std::string>& headers) {
  std::string code;
  for (const std::string& header : headers) {
    std::string escaped;
    for (char c : header) {
      if (c == '"' || c == '\\') escaped += '\\';
      escaped += c;
    }
    code += "#include \"" + escaped + "\"\n";
  }
  return code;
}

// The file an ExtractError's "file:line:column: error: ..." names, or "".
std::string error_file(const std::string& message) {
  static const std::regex located("^(.*?):[0-9]+:[0-9]+: ");
  std::smatch match;
  return std::regex_search(message, match, located) ? normal_path(match[1].str()) : "";
}

// The headers of `extra` that no source included, parsed in one unit that includes them all (the
// shallowest first, so that a fragment another header includes inside a namespace is included
// there first): the header whose inclusion stops that parse with an error (an internal header
// that insists on being included by a public one, a preview feature's switch, or one that
// includes such a header) is left out and the rest parsed again; an error the unit's includes
// do not explain makes each parsed on its own. A header that still is
// not done is copied unchanged: silently when it names nothing the rewriter changes, otherwise
// with a warning, or an error when it was named by itself.
void instrument_unreached(const ExtraHeaders& extra, const std::set<std::string>& owned,
                          const std::string& build_dir,
                          const std::optional<std::vector<std::string>>& fixed_flags,
                          InstrumentResult& result, std::map<std::string, Instrumented>& done) {
  std::set<std::string> named;
  for (const std::string& header : extra.named) named.insert(normal_path(header));
  std::vector<std::string> unreached;
  std::set<std::string> rewritable;
  for (const auto* list : {&extra.named, &extra.in_directory}) {
    for (const std::string& header : *list) {
      const std::string path = normal_path(header);
      if (done.count(path) > 0) continue;
      unreached.push_back(path);
      if (names_rewritten(read_text(path))) rewritable.insert(path);
    }
  }
  std::sort(unreached.begin(), unreached.end());
  unreached.erase(std::unique(unreached.begin(), unreached.end()), unreached.end());
  const auto depth = [](const std::string& path) {
    return std::count(path.begin(), path.end(), '/');
  };
  std::stable_sort(unreached.begin(), unreached.end(),
                   [&](const std::string& a, const std::string& b) { return depth(a) < depth(b); });

  std::map<std::string, std::string> failures;  // header -> the error of its parse
  if (!rewritable.empty()) {
    const std::string unit_path =
        std::filesystem::path(unreached.front()).parent_path().string() + "/linfault-headers.cc";
    const auto parse = [&](const std::vector<std::string>& headers) {
      clang_support::for_each_unit(
          {unit_path}, build_dir, fixed_flags,
          [&](clang::ASTUnit& unit) { instrument_unit(unit, owned, result, done); },
          {{unit_path, including(headers)}});
    };
    std::vector<std::string> batch = unreached;
    bool one_by_one = false;
    while (!batch.empty()) {
      try {
        parse(batch);
        break;
      } catch (const clang_support::UnitError& e) {
        // The header the unit includes that leads to the error: the one that failed, or one
        // that includes it.
        const auto culprit = std::find(batch.begin(), batch.end(), e.top_include());
        if (culprit == batch.end()) {
          one_by_one = true;
          break;
        }
        failures.emplace(error_file(e.what()), e.what());
        failures.emplace(*culprit, e.what());
        batch.erase(culprit);
      }
    }
    for (const std::string& path : one_by_one ? batch : std::vector<std::string>{}) {
      if (done.count(path) > 0) continue;
      try {
        parse({path});
      } catch (const ExtractError& e) {
        failures[path] = e.what();
      }
    }
  }
  for (const std::string& path : unreached) {
    if (done.count(path) > 0) continue;
    if (rewritable.count(path) > 0) {
      const auto failure = failures.find(path);
      const std::string why =
          "no instrumented source includes it, and it does not compile on its own: " +
          (failure != failures.end() ? failure->second : std::string("(not parsed)"));
      if (named.count(path) > 0) {
        result.errors.push_back(path + ": cannot instrument: " + why);
        continue;
      }
      result.warnings.push_back(path + ": warning: copied unchanged, its std types not " +
                                "instrumented: " + why);
    }
    Instrumented out;
    out.file = path;
    out.text = preamble(path, false) + without_bom(read_text(path));
    done[path] = std::move(out);
  }
}

}  // namespace

InstrumentResult instrument_code(const std::string& code, const std::string& file_name,
                                 const std::vector<std::string>& args) {
  const std::unique_ptr<clang::ASTUnit> unit = clang_support::parse_code(code, file_name, args);
  InstrumentResult result;
  std::map<std::string, Instrumented> done;
  instrument_unit(*unit, {normal_path(file_name)}, result, done);
  return finish(done, std::move(result));
}

InstrumentResult instrument_files(const std::vector<std::string>& files,
                                  const std::string& build_dir,
                                  const std::optional<std::vector<std::string>>& fixed_flags,
                                  const ExtraHeaders& headers) {
  const clang_support::Inputs inputs = clang_support::inputs_of(files);
  std::set<std::string> owned = inputs.owned;
  for (const auto* list : {&headers.named, &headers.in_directory}) {
    for (const std::string& header : *list) {
      if (!std::filesystem::exists(header)) {
        throw ExtractError(header + ": cannot open (no such file)");
      }
      owned.insert(normal_path(header));
    }
  }
  InstrumentResult result;
  std::map<std::string, Instrumented> done;
  clang_support::for_each_unit(inputs.sources, build_dir, fixed_flags, [&](clang::ASTUnit& unit) {
    instrument_unit(unit, owned, result, done);
  });
  for (const std::string& path : inputs.owned) {
    if (done.count(path) == 0) {
      throw ExtractError(path + ": not included by any of the instrumented sources");
    }
  }
  instrument_unreached(headers, owned, build_dir, fixed_flags, result, done);
  return finish(done, std::move(result));
}

}  // namespace linfault::structure_tree
