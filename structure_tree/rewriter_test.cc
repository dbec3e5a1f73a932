// The instrumentation rewriter on in-memory code: every construct real lock-free classes use is
// rewritten to linfault's instrumented types without moving a line, and what cannot be rewritten
// gets its one-line error.

#include "structure_tree/rewriter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace linfault::structure_tree {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::vector<std::string> kArgs = {"-std=c++20"};

Instrumented rewrite(const std::string& code) {
  InstrumentResult result = instrument_code(code, "/src/object.cc", kArgs);
  EXPECT_TRUE(result.errors.empty()) << result.errors.front();
  EXPECT_EQ(result.files.size(), 1u);
  return result.files.empty() ? Instrumented{} : result.files.front();
}

std::size_t lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

// The first error of compiling the copy against linfault's headers; empty when it compiles.
std::string compile_error(const Instrumented& file) {
  try {
    instrument_code(file.text, "/src/copy.cc", {"-std=c++20", "-I" LINFAULT_SOURCE_DIR});
  } catch (const ExtractError& e) {
    return e.what();
  }
  return "";
}

// The copy without its two preamble lines.
std::string body(const Instrumented& file) {
  std::string text = file.text;
  for (int i = 0; i < 2; ++i) text.erase(0, text.find('\n') + 1);
  return text;
}

TEST(RewriterTest, PreambleKeepsTheOriginalFileAndLines) {
  const std::string code = "#include <atomic>\nstd::atomic<int> counter{0};\nint main() {}\n";
  const Instrumented file = rewrite(code);
  EXPECT_EQ(file.text.rfind("#include \"dpct/instrumented.h\"\n#line 1 \"/src/object.cc\"\n", 0),
            0u)
      << file.text;
  EXPECT_EQ(lines(body(file)), lines(code));
  EXPECT_THAT(body(file), HasSubstr("::linfault::dpct::Atomic<int> counter{0};"));
}

TEST(RewriterTest, TypeNamesEverywhereRealClassesPutThem) {
  const std::string code = R"(#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <condition_variable>
#include <cstdint>
using namespace std;
template <class T>
class Stack {
  struct Node {
    T value;
    std::atomic<Node*> next{nullptr};
  };
  std::atomic<Node*> top_{nullptr};
  std::atomic<std::int64_t> sizes_[4];
  atomic<bool> closed_{false};
  std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
  std::mutex lock_;
  std::shared_mutex shared_;
  std::recursive_mutex recursive_;
  std::condition_variable ready_;
 public:
  void push(T v) {
    Node* n = new Node{v};
    std::lock_guard<std::mutex> guard(lock_);
    std::lock_guard deduced(lock_);
    std::unique_lock<std::mutex> later(lock_, std::defer_lock);
    n->next.store(top_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    top_.store(n, std::memory_order_release);
  }
};
using Counter = std::atomic<long>;
struct Holder { Counter hits; std::atomic_int small; };
template class Stack<int>;
)";
  const Instrumented file = rewrite(code);
  const std::string out = body(file);
  EXPECT_EQ(lines(out), lines(code));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::Atomic<Node*> next{nullptr};"));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::Atomic<Node*> top_{nullptr};"));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::Atomic<std::int64_t> sizes_[4];"));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::Atomic<bool> closed_{false};"));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::AtomicFlag busy_"));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::Mutex lock_;"));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::SharedMutex shared_;"));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::RecursiveMutex recursive_;"));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::ConditionVariable ready_;"));
  // lock_guard<mutex> becomes linfault's guard, which records the line of the declaration; the
  // other guards keep their std type and lock the instrumented mutex.
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::LockGuard guard(lock_);"));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::LockGuard deduced(lock_);"));
  EXPECT_THAT(out, HasSubstr("std::unique_lock<::linfault::dpct::Mutex> later(lock_, "));
  EXPECT_THAT(out, HasSubstr("using Counter = ::linfault::dpct::Atomic<long>;"));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::Atomic<int> small;"));
  // Member calls stay: the instrumented types have std::atomic's members.
  EXPECT_THAT(out, HasSubstr("top_.store(n, std::memory_order_release);"));
  EXPECT_THAT(out, Not(HasSubstr("std::atomic")));
  EXPECT_GE(file.types, 11u);
}

TEST(RewriterTest, OperatorsBecomeCallsThatKeepTheirLine) {
  const std::string code = R"(#include <atomic>
std::atomic<int> counter{0};
std::atomic<int*> cursor{nullptr};
std::atomic<bool> flag{false};
int use(int delta) {
  counter++;
  ++counter;
  counter--;
  --counter;
  counter += delta;
  counter -= 2;
  counter |= 1;
  counter &= 3;
  counter ^= 4;
  counter = 7;
  cursor++;
  if (flag) return counter + 1;
  int seen = counter;
  return seen;
}
)";
  const Instrumented file = rewrite(code);
  const std::string out = body(file);
  EXPECT_EQ(lines(out), lines(code));
  for (const char* expected :
       {"::linfault::dpct::ops::post_increment(counter);",
        "::linfault::dpct::ops::pre_increment(counter);",
        "::linfault::dpct::ops::post_decrement(counter);",
        "::linfault::dpct::ops::pre_decrement(counter);",
        "::linfault::dpct::ops::add_assign(counter , delta);",
        "::linfault::dpct::ops::sub_assign(counter , 2);",
        "::linfault::dpct::ops::or_assign(counter , 1);",
        "::linfault::dpct::ops::and_assign(counter , 3);",
        "::linfault::dpct::ops::xor_assign(counter , 4);",
        "::linfault::dpct::ops::assign(counter , 7);",
        "::linfault::dpct::ops::post_increment(cursor);",
        "if (::linfault::dpct::ops::load(flag)) return ::linfault::dpct::ops::load(counter) + 1;",
        "int seen = ::linfault::dpct::ops::load(counter);"}) {
    EXPECT_THAT(out, HasSubstr(expected)) << out;
  }
  EXPECT_EQ(file.operators, 14u);
}

TEST(RewriterTest, DependentOperatorsInTemplatesAreRewrittenToo) {
  const std::string code = R"(#include <atomic>
template <class T>
struct Counter {
  std::atomic<T> value{0};
  void bump() { value++; value += 2; }
};
)";
  const std::string out = body(rewrite(code));
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::ops::post_increment(value);")) << out;
  EXPECT_THAT(out, HasSubstr("::linfault::dpct::ops::add_assign(value , 2);")) << out;
}

TEST(RewriterTest, EverySpinHintSpellingBecomesLinfaultsSpinHint) {
#if !defined(__x86_64__) && !defined(__i386__)
  GTEST_SKIP() << "_mm_pause and __builtin_ia32_pause are x86's";
#endif
  const std::string code = R"(#include <atomic>
#include <thread>
#include <sched.h>
#include <pthread.h>
#include <immintrin.h>
std::atomic<int> flag{0};
void spin() {
  while (flag.load() == 0) std::this_thread::yield();
  while (flag.load() == 0) sched_yield();
  while (flag.load() == 0) pthread_yield();
  while (flag.load() == 0) _mm_pause();
  while (flag.load() == 0) __builtin_ia32_pause();
}
)";
  const Instrumented file = rewrite(code);
  // Only the callee changes: spin_hint's defaulted location is the call's own line.
  EXPECT_EQ(body(file), R"(#include <atomic>
#include <thread>
#include <sched.h>
#include <pthread.h>
#include <immintrin.h>
::linfault::dpct::Atomic<int> flag{0};
void spin() {
  while (flag.load() == 0) ::linfault::dpct::spin_hint();
  while (flag.load() == 0) (::linfault::dpct::spin_hint(), 0);
  while (flag.load() == 0) (::linfault::dpct::spin_hint(), 0);
  while (flag.load() == 0) ::linfault::dpct::spin_hint();
  while (flag.load() == 0) ::linfault::dpct::spin_hint();
}
)");
  EXPECT_EQ(lines(body(file)), lines(code));
  EXPECT_EQ(file.spin_hints, 5u);
  EXPECT_EQ(compile_error(file), "");
}

TEST(RewriterTest, SpinHintsInExpressionsStillCompile) {
  const std::string code = R"(#include <atomic>
#include <thread>
#include <sched.h>
std::atomic<int> flag{0};
std::atomic<int> counter{0};
int wait_for(int state) {
  while (flag.load() == 0) std::this_thread::yield();
  if (sched_yield() != 0) return -1;
  counter += sched_yield();
  int tries = sched_yield() + 1;
  switch (state) {
    case 1:std::this_thread::yield(); break;
    default: state = flag ? sched_yield() : 2;
  }
  for (;;) { if (flag.load()) break; std::this_thread::
      yield(); }
  return state ? (std::this_thread::yield(), tries) : tries;
}
)";
  const Instrumented file = rewrite(code);
  const std::string out = body(file);
  EXPECT_EQ(lines(out), lines(code));
  for (const char* expected :
       {"while (flag.load() == 0) ::linfault::dpct::spin_hint();",
        "if ((::linfault::dpct::spin_hint(), 0) != 0) return -1;",
        "::linfault::dpct::ops::add_assign(counter , (::linfault::dpct::spin_hint(), 0));",
        "int tries = (::linfault::dpct::spin_hint(), 0) + 1;",
        "case 1: ::linfault::dpct::spin_hint(); break;",
        "state = ::linfault::dpct::ops::load(flag) ? (::linfault::dpct::spin_hint(), 0) : 2;",
        "break; ::linfault::dpct::spin_hint\n();",
        "return state ? (::linfault::dpct::spin_hint(), tries) : tries;"}) {
    EXPECT_THAT(out, HasSubstr(expected)) << out;
  }
  EXPECT_EQ(file.spin_hints, 8u);
  EXPECT_EQ(compile_error(file), "");
}

TEST(RewriterTest, SpinHintsInMacrosAndUnevaluatedOperandsStay) {
  const std::string code = R"(#include <thread>
#include <sched.h>
#define RELAX() std::this_thread::yield()
#define RETRY(step) do { step; } while (false)
void f() {
  RELAX();
  RETRY(sched_yield());
  static_assert(noexcept(std::this_thread::yield()));
  using Result = decltype(sched_yield());
  int size = sizeof(sched_yield());
  std::this_thread::yield();
}
)";
  const Instrumented file = rewrite(code);
  std::string expected = code;
  const std::string last = "  std::this_thread::yield();\n}";
  expected.replace(expected.find(last), last.size(), "  ::linfault::dpct::spin_hint();\n}");
  EXPECT_EQ(body(file), expected);
  EXPECT_EQ(file.spin_hints, 1u);
  EXPECT_EQ(compile_error(file), "");
}

TEST(RewriterTest, ThreadFencesBecomeLinfaultFences) {
  const std::string code = R"(#include <atomic>
std::atomic<int> flag{0};
int payload = 0;
void publish() {
  payload = 1;
  std::atomic_thread_fence(std::memory_order_release);
  flag.store(1, std::memory_order_relaxed);
}
int consume() {
  if (flag.load(std::memory_order_relaxed) == 0) return -1;
  using namespace std;
  atomic_thread_fence(memory_order_acquire);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return payload;
}
)";
  const Instrumented file = rewrite(code);
  EXPECT_NE(
      body(file).find("  ::linfault::dpct::atomic_thread_fence(std::memory_order_release);\n"),
      std::string::npos)
      << body(file);
  EXPECT_NE(body(file).find("  ::linfault::dpct::atomic_thread_fence(memory_order_acquire);\n"),
            std::string::npos)
      << body(file);
  // A signal fence orders nothing between threads: it stays.
  EXPECT_NE(body(file).find("  std::atomic_signal_fence(std::memory_order_seq_cst);"),
            std::string::npos);
  EXPECT_EQ(file.fences, 2u);
  EXPECT_EQ(file.spin_hints, 0u);
  EXPECT_EQ(compile_error(file), "");
}

TEST(RewriterTest, CodeWithoutAtomicsIsCopiedAsItIs) {
  const std::string code = "int add(int a, int b) { return a + b; }\n";
  const Instrumented file = rewrite(code);
  // Only the #line: a copy with no edit needs no instrumented types, and may be included
  // anywhere, inside a namespace too.
  EXPECT_EQ(file.text, "#line 1 \"/src/object.cc\"\n" + code);
  EXPECT_EQ(file.types, 0u);
  EXPECT_EQ(file.operators, 0u);
  EXPECT_EQ(file.spin_hints, 0u);
}

TEST(RewriterTest, WhatCannotBeRewrittenIsOneLineEachWithItsPlace) {
  const std::string code = R"(#include <atomic>
int raw = 0;
std::atomic<int> counter{0};
int f() {
  __atomic_fetch_add(&raw, 1, __ATOMIC_SEQ_CST);
  std::atomic_fetch_add(&counter, 1);
  std::atomic_ref<int> view(raw);
  return view.load();
}
)";
  const InstrumentResult result = instrument_code(code, "/src/bad.cc", kArgs);
  ASSERT_EQ(result.errors.size(), 3u);
  EXPECT_THAT(result.errors[0], HasSubstr("/src/bad.cc:5:3: cannot instrument __atomic_fetch_add: "
                                          "a raw atomic builtin"));
  EXPECT_THAT(result.errors[1], HasSubstr("/src/bad.cc:6:"));
  EXPECT_THAT(result.errors[1], HasSubstr("cannot instrument the call of std::atomic_fetch_add: an "
                                          "atomic is passed to a function whose body is not among "
                                          "the instrumented files"));
  EXPECT_THAT(result.errors[2], HasSubstr("/src/bad.cc:7:8: cannot instrument std::atomic_ref"));
  for (const std::string& error : result.errors) EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(RewriterTest, AnAtomicPassedToAVisibleFunctionIsFine) {
  const std::string code = R"(#include <atomic>
static void bump(std::atomic<int>& c) { c.fetch_add(1); }
std::atomic<int> counter{0};
void f() { bump(counter); }
)";
  const std::string out = body(rewrite(code));
  EXPECT_THAT(out, HasSubstr("static void bump(::linfault::dpct::Atomic<int>& c)"));
}

TEST(RewriterTest, AByteOrderMarkDoesNotFollowTheLineDirective) {
  const std::string code = "\xEF\xBB\xBF#include <atomic>\nstd::atomic<int> counter{0};\n";
  const Instrumented file = rewrite(code);
  EXPECT_EQ(file.text.rfind("#include \"dpct/instrumented.h\"\n#line 1 \"/src/object.cc\"\n"
                            "#include <atomic>\n::linfault::dpct::Atomic<int> counter{0};\n",
                            0),
            0u)
      << file.text;
  EXPECT_EQ(file.text.find("\xEF\xBB\xBF"), std::string::npos);
  EXPECT_EQ(compile_error(file), "");
}

// An atomic handed to a function the rewriter does not see: when the function's parameter is the
// std type the copy cannot compile (an error); as a void*, through C's `...` or to a template's
// deduced parameter it compiles and passes the linfault Atomic (a warning, with the place).
TEST(RewriterTest, AnAtomicThatEscapesIsAWarningUnlessTheCopyCannotCompile) {
  const std::string code = R"(#include <atomic>
#include <cstring>
void wait_on_address(void* address, int old);
void log_all(const char* format, ...);
void typed(std::atomic<int>& counter);
template <class T> void generic(T& object);
std::atomic<int> counter{0};
int plain(int value);
void f() {
  wait_on_address(&counter, 0);
  std::memset(&counter, 0, sizeof counter);
  log_all("%p", &counter);
  generic(counter);
  typed(counter);
  plain(counter);
}
)";
  const InstrumentResult result = instrument_code(code, "/src/escape.cc", kArgs);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_THAT(result.errors[0],
              HasSubstr("/src/escape.cc:14:9: cannot instrument the call of typed: "
                        "an atomic is passed to a function whose body is not "
                        "among the instrumented files and whose parameter is "
                        "the std type"));
  ASSERT_EQ(result.warnings.size(), 4u);
  EXPECT_THAT(result.warnings[0], HasSubstr("/src/escape.cc:10:19: warning: the address of an "
                                            "atomic escapes to wait_on_address as a void*"));
  EXPECT_THAT(result.warnings[1], HasSubstr("/src/escape.cc:11:15: warning: the address of an "
                                            "atomic escapes to memset as a void*"));
  EXPECT_THAT(result.warnings[2], HasSubstr("/src/escape.cc:12:17: warning: the address of an "
                                            "atomic escapes to log_all through `...`"));
  EXPECT_THAT(result.warnings[3], HasSubstr("/src/escape.cc:13:11: warning: an atomic is passed "
                                            "to the template generic"));
  for (const std::string& line : result.warnings) EXPECT_EQ(line.find('\n'), std::string::npos);
  // The rest is rewritten: the implicit load passed by value included.
  ASSERT_EQ(result.files.size(), 1u);
  EXPECT_THAT(result.files[0].text, HasSubstr("plain(::linfault::dpct::ops::load(counter));"));
}

TEST(RewriterTest, TheWarnedCallsCompileWithTheLinfaultAtomic) {
  const std::string code = R"(#include <atomic>
#include <cstring>
void wait_on_address(void* address, int old);
template <class T> int generic(T& object) { return sizeof(object); }
std::atomic<int> counter{0};
void f() {
  wait_on_address(&counter, 0);
  std::memset(&counter, 0, sizeof counter);
  generic(counter);
}
)";
  const InstrumentResult result = instrument_code(code, "/src/escape.cc", kArgs);
  EXPECT_TRUE(result.errors.empty());
  ASSERT_EQ(result.files.size(), 1u);
  EXPECT_EQ(compile_error(result.files[0]), "");
}

// A library's headers on disk (INSTRUMENT HEADERS): a directory of them, as installed.
class HeaderDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("linfault-rewriter-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(root_ / "include/lib/detail");
    std::filesystem::create_directories(root_ / "src");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  std::string write(const std::string& relative, const std::string& text) {
    const std::filesystem::path path = root_ / relative;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }
  std::vector<std::string> flags() const {
    return {"-std=c++20", "-I" + (root_ / "include").string()};
  }
  static const Instrumented* copy_of(const InstrumentResult& result, const std::string& path) {
    for (const Instrumented& file : result.files) {
      if (file.file == path) return &file;
    }
    return nullptr;
  }

  std::filesystem::path root_;
};

TEST_F(HeaderDirectory, EveryHeaderIsCopiedAndTheOnesNoSourceIncludesAreParsedToo) {
  const std::string queue = write("include/lib/queue.h",
                                  "\xEF\xBB\xBF#pragma once\n#include \"detail/node.h\"\n"
                                  "struct Queue { std::atomic<Node*> head{nullptr}; };\n");
  const std::string node = write("include/lib/detail/node.h",
                                 "#pragma once\n#include <atomic>\nstruct Node { int value; };\n");
  // Included by host.h inside its namespace, and refusing to be included otherwise.
  const std::string fragment = write("include/lib/detail/fragment.h",
                                     "#ifndef LIB_HOST\n#error use lib/host.h\n#endif\n"
                                     "struct Flag { std::atomic<bool> set{false}; };\n");
  const std::string host =
      write("include/lib/host.h",
            "#pragma once\n#include <atomic>\n#define LIB_HOST\nnamespace lib {\n"
            "#include \"detail/fragment.h\"\n}\n");
  const std::string broken = write("include/lib/broken.h", "std::atomic<int> undeclared_type;\n");
  const std::string source = write("src/use.cc", "#include <lib/queue.h>\nQueue q;\n");

  ExtraHeaders headers;
  headers.in_directory = {queue, node, fragment, host, broken};
  const InstrumentResult result = instrument_files({source}, "", flags(), headers);
  EXPECT_TRUE(result.errors.empty()) << result.errors.front();
  ASSERT_EQ(result.files.size(), 6u);
  // Included by the source: rewritten, the byte-order mark left out.
  ASSERT_NE(copy_of(result, queue), nullptr);
  EXPECT_EQ(copy_of(result, queue)->text,
            "#include \"dpct/instrumented.h\"\n#line 1 \"" + queue +
                "\"\n#pragma once\n#include \"detail/node.h\"\n"
                "struct Queue { ::linfault::dpct::Atomic<Node*> head{nullptr}; };\n");
  // Nothing to rewrite: the #line only.
  ASSERT_NE(copy_of(result, node), nullptr);
  EXPECT_EQ(
      copy_of(result, node)->text,
      "#line 1 \"" + node + "\"\n#pragma once\n#include <atomic>\nstruct Node { int value; };\n");
  // Included by nothing: parsed in one unit, where host.h includes the fragment first.
  ASSERT_NE(copy_of(result, fragment), nullptr);
  EXPECT_THAT(copy_of(result, fragment)->text,
              HasSubstr("struct Flag { ::linfault::dpct::Atomic<bool> set{false}; };"));
  // Does not compile on its own: copied unchanged, with one warning naming it.
  ASSERT_NE(copy_of(result, broken), nullptr);
  EXPECT_EQ(copy_of(result, broken)->text,
            "#line 1 \"" + broken + "\"\nstd::atomic<int> undeclared_type;\n");
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_THAT(result.warnings[0], HasSubstr(broken + ": warning: copied unchanged"));
  EXPECT_EQ(result.warnings[0].find('\n'), std::string::npos);
}

TEST_F(HeaderDirectory, ANamedHeaderThatCannotBeInstrumentedIsAnError) {
  const std::string broken = write("include/lib/broken.h", "std::atomic<int> undeclared_type;\n");
  const std::string source = write("src/use.cc", "int main() {}\n");
  ExtraHeaders headers;
  headers.named = {broken};
  const InstrumentResult result = instrument_files({source}, "", flags(), headers);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_THAT(result.errors[0], HasSubstr(broken + ": cannot instrument: no instrumented source "
                                                   "includes it, and it does not compile on its "
                                                   "own: "));
  EXPECT_EQ(result.errors[0].find('\n'), std::string::npos);
}

TEST_F(HeaderDirectory, AConstructTheRewriterRefusesInAHeaderIsAnErrorWithItsPlace) {
  const std::string header = write("include/lib/raw.h",
                                   "#pragma once\ninline int bump(int* p) {\n"
                                   "  return __atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST);\n}\n");
  const std::string source = write("src/use.cc", "#include <lib/raw.h>\n");
  ExtraHeaders headers;
  headers.in_directory = {header};
  const InstrumentResult result = instrument_files({source}, "", flags(), headers);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_THAT(result.errors[0], HasSubstr(header + ":3:10: cannot instrument __atomic_fetch_add"));
}

TEST(RewriterTest, CodeThatDoesNotCompileIsAnError) {
  EXPECT_THROW(instrument_code("int f() { return undeclared; }\n", "/src/x.cc", kArgs),
               ExtractError);
}

}  // namespace
}  // namespace linfault::structure_tree
