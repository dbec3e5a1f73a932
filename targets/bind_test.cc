#include "targets/bind.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace linfault::targets {
namespace {

using history::Call;
using history::Value;
using ::testing::HasSubstr;

class Toy {
 public:
  explicit Toy(int start = 0) : counter_(start) {}
  void set(std::int64_t v) { counter_ = static_cast<int>(v); }
  int get() const { return counter_; }
  bool flip(bool b) { return !b; }
  std::optional<std::int64_t> maybe(std::int64_t v) {
    if (v < 0) return std::nullopt;
    return v;
  }
  std::pair<std::int64_t, bool> pair(std::int64_t v) { return {v, v % 2 == 0}; }
  std::vector<std::int64_t> range(std::uint8_t n) {
    std::vector<std::int64_t> out;
    for (std::uint8_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  std::string name(const std::string& s) { return "toy:" + s; }

 private:
  int counter_;
};

dpct::ObjectFactory toy_factory() {
  return Binding<Toy>()
      .method("set", &Toy::set)
      .method("get", &Toy::get)
      .method("flip", &Toy::flip)
      .method("maybe", &Toy::maybe)
      .method("pair", &Toy::pair)
      .method("range", &Toy::range)
      .method("name", &Toy::name)
      .method("add_twice", [](Toy& toy, std::int64_t v) { toy.set(toy.get() + 2 * v); })
      .factory();
}

TEST(BindingTest, ConvertsArgumentsAndResults) {
  auto object = toy_factory()();
  EXPECT_EQ(object->invoke(Call{"set", {Value(7)}}), Value());
  EXPECT_EQ(object->invoke(Call{"get", {}}), Value(7));
  EXPECT_EQ(object->invoke(Call{"flip", {Value(true)}}), Value(false));
  EXPECT_EQ(object->invoke(Call{"maybe", {Value(-1)}}), Value());
  EXPECT_EQ(object->invoke(Call{"maybe", {Value(3)}}), Value(3));
  EXPECT_EQ(object->invoke(Call{"pair", {Value(4)}}), Value(Value::List{Value(4), Value(true)}));
  EXPECT_EQ(object->invoke(Call{"range", {Value(3)}}),
            Value(Value::List{Value(0), Value(1), Value(2)}));
  EXPECT_EQ(object->invoke(Call{"name", {Value("x")}}), Value("toy:x"));
  object->invoke(Call{"add_twice", {Value(5)}});
  EXPECT_EQ(object->invoke(Call{"get", {}}), Value(17));
}

TEST(BindingTest, EachFactoryCallMakesAFreshObject) {
  auto factory = toy_factory();
  auto first = factory();
  first->invoke(Call{"set", {Value(3)}});
  EXPECT_EQ(factory()->invoke(Call{"get", {}}), Value(0));
}

TEST(BindingTest, ObjectsMadeOnSeveralThreadsOutliveTheirFactory) {
  // Each thread's objects share a per-thread owner of the method table (bind.h): the table must
  // stay alive for every object, whichever thread made it and whenever the factory dies.
  std::vector<std::unique_ptr<dpct::ObjectUnderTest>> objects(4);
  {
    auto factory = toy_factory();
    std::vector<std::thread> makers;
    for (std::size_t t = 0; t < objects.size(); ++t) {
      makers.emplace_back([&factory, &objects, t] {
        for (int round = 0; round < 100; ++round) objects[t] = factory();
      });
    }
    for (std::thread& maker : makers) maker.join();
    objects.push_back(factory());
  }
  EXPECT_EQ(toy_factory()()->invoke(Call{"get", {}}), Value(0));  // another table on this thread
  for (std::size_t t = 0; t < objects.size(); ++t) {
    objects[t]->invoke(Call{"set", {Value(static_cast<std::int64_t>(t))}});
    EXPECT_EQ(objects[t]->invoke(Call{"get", {}}), Value(static_cast<std::int64_t>(t)));
  }
}

TEST(BindingTest, CustomConstruction) {
  auto factory =
      Binding<Toy>([] { return std::make_unique<Toy>(41); }).method("get", &Toy::get).factory();
  EXPECT_EQ(factory()->invoke(Call{"get", {}}), Value(41));
}

std::string error_of(const Call& call) {
  auto object = toy_factory()();
  try {
    object->invoke(call);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(BindingTest, ReportsBadCallsClearly) {
  EXPECT_THAT(error_of(Call{"push", {}}),
              HasSubstr("object has no method 'push' (methods: set, get, flip"));
  EXPECT_EQ(error_of(Call{"set", {}}), "set takes 1 argument, got 0");
  EXPECT_EQ(error_of(Call{"set", {Value(true)}}), "set: argument 1 must be an integer, got true");
  EXPECT_EQ(error_of(Call{"flip", {Value(1)}}), "flip: argument 1 must be a bool, got 1");
  EXPECT_EQ(error_of(Call{"range", {Value(300)}}), "range: argument 1 300 is out of range");
  EXPECT_EQ(error_of(Call{"name", {Value()}}), "name: argument 1 must be a string, got nil");
}

// A string result that is not UTF-8 could not be written in a history's JSON: the call throws, as
// for an integer out of range, and a run reports it as a crash of the object with this message.
TEST(BindingTest, AStringResultThatIsNotUtf8Throws) {
  auto object = toy_factory()();
  try {
    object->invoke(Call{"name", {Value(std::string("\xff"))}});
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("string `toy:\\xff` is not valid UTF-8 (byte 4)"));
  }
}

// Real classes take parameters by const reference. Each argument must outlive the call: the
// binding once returned a reference to a converted local, which ASan reports as a
// stack-use-after-return (and g++ turned into a null reference).
class ConstRefTaker {
 public:
  std::int64_t add(const std::int64_t& a, const std::int64_t& b) { return a + b; }
  std::string greet(const std::string& who, const std::int64_t& times) {
    std::string out;
    for (std::int64_t i = 0; i < times; ++i) out += "hi " + who + ";";
    return out;
  }
  bool same(const history::Value& a, const bool& flag) { return flag && a == Value(3); }
};

TEST(BindingTest, ConstReferenceParametersGetLiveArguments) {
  auto object = Binding<ConstRefTaker>()
                    .method("add", &ConstRefTaker::add)
                    .method("greet", &ConstRefTaker::greet)
                    .method("same", &ConstRefTaker::same)
                    .method("lambda", [](ConstRefTaker&, const std::string& s,
                                         const std::uint16_t& n) { return s.size() + n; })
                    .factory()();
  EXPECT_EQ(object->invoke(Call{"add", {Value(40), Value(2)}}), Value(42));
  EXPECT_EQ(object->invoke(Call{"greet", {Value("bo"), Value(2)}}), Value("hi bo;hi bo;"));
  EXPECT_EQ(object->invoke(Call{"same", {Value(3), Value(true)}}), Value(true));
  EXPECT_EQ(object->invoke(Call{"lambda", {Value("abc"), Value(4)}}), Value(7));
}

TEST(BindingTest, RejectsDuplicateMethodNames) {
  Binding<Toy> binding;
  binding.method("get", &Toy::get);
  EXPECT_THROW(binding.method("get", &Toy::get), std::invalid_argument);
  EXPECT_EQ(binding.method_names(), std::vector<std::string>{"get"});
}

TEST(BindingTest, NamesTheObjectsStateWhenAskedTo) {
  auto unnamed = Binding<Toy>().method("set", &Toy::set).factory()();
  EXPECT_EQ(unnamed->state(), std::nullopt);

  // A const member function, and a callable taking the object.
  auto by_member = Binding<Toy>().method("set", &Toy::set).state(&Toy::get).factory()();
  EXPECT_EQ(by_member->state(), Value(0));
  by_member->invoke(Call{"set", {Value(5)}});
  EXPECT_EQ(by_member->state(), Value(5));
  auto by_callable = Binding<Toy>([] { return std::make_unique<Toy>(2); })
                         .method("set", &Toy::set)
                         .state([](Toy& toy) {
                           return std::vector<int>{toy.get(), -toy.get()};
                         })
                         .factory()();
  EXPECT_EQ(by_callable->state(), Value(Value::List{Value(2), Value(-2)}));
  // A state is only compared, never written: any bytes will do (a packed bitmap, say).
  auto by_bytes =
      Binding<Toy>()
          .method("set", &Toy::set)
          .state([](Toy& toy) { return std::string(1, static_cast<char>(0x80 + toy.get())); })
          .factory()();
  EXPECT_EQ(by_bytes->state(), Value(std::string("\x80")));

  Binding<Toy> twice;
  twice.state(&Toy::get);
  EXPECT_THROW(twice.state(&Toy::get), std::invalid_argument);
}

}  // namespace
}  // namespace linfault::targets
