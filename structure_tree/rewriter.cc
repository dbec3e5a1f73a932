// The instrumentation rewriter (see rewriter.h). A Clang translation unit, like extractor.cc.

#include "structure_tree/rewriter.h"

#include <filesystem>
#include <map>
#include <memory>
#include <set>

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

// The spin-wait hints the rewriter turns into dpct::spin_hint: whether `callee` is one, and
// whether it returns int (0) rather than void.
enum class Hint { kNone, kVoid, kInt };
Hint spin_hint_kind(const clang::FunctionDecl& callee) {
  const std::string name = callee.getQualifiedNameAsString();
  if (name == "std::this_thread::yield") return Hint::kVoid;
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
    if (isa<clang::CXXMemberCallExpr>(e)) return true;
    for (const clang::Expr* arg : e->arguments()) {
      if (!points_to_atomic(arg->IgnoreImpCasts()->getType()) &&
          !points_to_atomic(arg->getType())) {
        continue;
      }
      const clang::FunctionDecl* definition = nullptr;
      if (callee->hasBody(definition) && definition != nullptr &&
          owned(definition->getLocation())) {
        continue;  // its body is rewritten too
      }
      error(arg->getBeginLoc(), "cannot instrument the call of " +
                                    callee->getQualifiedNameAsString() +
                                    ": an atomic is passed to a function whose body is not "
                                    "among the instrumented files");
    }
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
  bool owned(clang::SourceLocation loc) const {
    if (loc.isInvalid()) return false;
    const clang::SourceLocation spelling = sm_.getSpellingLoc(loc);
    const clang::FileEntry* entry = sm_.getFileEntryForID(sm_.getFileID(spelling));
    if (entry == nullptr) return false;
    return owned_.count(normal_path(std::string(entry->getName()))) > 0;
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
    std::string replacement = kSpinHint;
    // `case 1:std::this_thread::yield();` must not become `case 1:::linfault::...`.
    if (hint == Hint::kVoid && sm_.getFileOffset(begin) > 0) {
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
    ++counts_[file_of(begin)].spin_hints;
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
  int unevaluated_ = 0;
};

// The copy's first lines: the instrumented types, then the original file's name and line 1.
std::string preamble(const std::string& original) {
  std::string escaped;
  for (char c : original) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "#include \"dpct/instrumented.h\"\n#line 1 \"" + escaped + "\"\n";
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
    out.text = preamble(path) + body;
    out.types = counts[path].types;
    out.operators = counts[path].operators;
    out.spin_hints = counts[path].spin_hints;
    done[path] = std::move(out);
  }
}

InstrumentResult finish(std::map<std::string, Instrumented>& done, InstrumentResult result) {
  for (auto& [path, file] : done) result.files.push_back(std::move(file));
  return result;
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
                                  const std::optional<std::vector<std::string>>& fixed_flags) {
  const clang_support::Inputs inputs = clang_support::inputs_of(files);
  InstrumentResult result;
  std::map<std::string, Instrumented> done;
  clang_support::for_each_unit(inputs.sources, build_dir, fixed_flags, [&](clang::ASTUnit& unit) {
    instrument_unit(unit, inputs.owned, result, done);
  });
  for (const std::string& path : inputs.owned) {
    if (done.count(path) == 0) {
      throw ExtractError(path + ": not included by any of the instrumented sources");
    }
  }
  return finish(done, std::move(result));
}

}  // namespace linfault::structure_tree
