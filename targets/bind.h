// Binding: turns a user's C++ class into a dpct::ObjectUnderTest in a few lines -- the one header
// a user includes to make their own object a target (docs/adding-a-target.md).
//
//   auto factory = targets::Binding<MyStack>()
//                      .method("push", &MyStack::push)
//                      .method("pop", &MyStack::pop)
//                      .factory();
//
// Each bound method is called with the history::Value arguments of a history::Call, converted to
// the method's parameter types, and its result is converted back:
//   parameters: integral types (from int), bool (from bool), std::string (from string),
//               history::Value (as is); each by value or by const reference;
//   results:    void -> nil, bool, integral -> int, std::string, history::Value,
//               std::optional<T> -> nil when empty, else T,
//               std::pair<A, B> and std::vector<T> -> a list.
// Methods may also be bound as callables taking `T&` first (for overloads or adapters).
//
// state(fn) names the object's abstract state, for objects checked against their own serial runs
// (t.model = "serial", docs/serial-spec.md): fn is a member function taking no argument, or a
// callable taking `T&`, and returns any result type above. Its contract: two objects whose states
// are equal answer every later sequence of calls alike (a set's keys, a queue's items in order, a
// counter's total); it returns without waiting and leaves the object as it is. The serial
// specification then treats call sequences that reach equal states as one state, as a written
// model's states are, instead of telling every order of the calls apart: long histories are checked
// in a fraction of the serial runs and search steps. A state function that tells apart too little
// (equal states that then answer differently), or that changes the object, is reported where
// serial runs show it; targets/serial_spec.h says where they look.
//
// Errors are std::invalid_argument with a one-line message: an unknown method (listing the
// bound ones), a wrong argument count, an argument of the wrong kind or out of range. The bound
// object also says so of a call without making it (dpct::ObjectUnderTest::call_problem), which is
// how registration finds an operation that is not bound or whose generator draws arguments the
// method cannot take.
//
// Internal header: include <linfault/target.h> instead.
//
// Thread-safety: a Binding is configured by one thread. factory() returns a copyable factory
// that may be called from any thread; each object it makes is used by the threads of one run,
// which may call invoke() concurrently (the bound object must be concurrent itself: that is what
// is being tested). The method table is immutable once the factory exists.

#ifndef LINFAULT_TARGETS_BIND_H_
#define LINFAULT_TARGETS_BIND_H_

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dpct/workload.h"
#include "history/history.h"
#include "history/value.h"
#include "history/value_conversion.h"

namespace linfault::targets {

namespace bind_detail {

using history::to_value;

[[noreturn]] inline void argument_error(const std::string& method, std::size_t index,
                                        const std::string& problem) {
  throw std::invalid_argument(method + ": argument " + std::to_string(index + 1) + " " + problem);
}

// Returns the argument by value, also for a `const T&` parameter: the temporary then lives until
// the end of the call expression that passes it, instead of a reference to a local of this
// function dangling.
template <class P, class T = std::remove_cvref_t<P>>
T from_value(const history::Value& value, const std::string& method, std::size_t index) {
  static_assert(!std::is_lvalue_reference_v<P> || std::is_const_v<std::remove_reference_t<P>>,
                "targets::Binding: a parameter taken by non-const reference cannot be bound "
                "(take it by value or by const reference)");
  if constexpr (std::is_same_v<T, history::Value>) {
    return value;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_bool()) argument_error(method, index, "must be a bool, got " + value.to_string());
    return value.as_bool();
  } else if constexpr (std::is_integral_v<T>) {
    if (!value.is_int()) {
      argument_error(method, index, "must be an integer, got " + value.to_string());
    }
    const std::int64_t v = value.as_int();
    if (!std::in_range<T>(v)) argument_error(method, index, std::to_string(v) + " is out of range");
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!value.is_string()) {
      argument_error(method, index, "must be a string, got " + value.to_string());
    }
    return value.as_string();
  } else {
    static_assert(sizeof(T) == 0,
                  "targets::Binding: unsupported parameter type (use bool, an integer, "
                  "std::string or history::Value)");
  }
}

[[noreturn]] inline void count_error(const std::string& method, std::size_t expected,
                                     std::size_t given) {
  throw std::invalid_argument(method + " takes " + std::to_string(expected) + " argument" +
                              (expected == 1 ? "" : "s") + ", got " + std::to_string(given));
}

// Why `args` cannot be passed to a method taking Params, without calling it; nullopt if they can.
template <class... Params>
std::optional<std::string> conversion_problem(const std::string& method,
                                              const std::vector<history::Value>& args) {
  try {
    if (args.size() != sizeof...(Params)) count_error(method, sizeof...(Params), args.size());
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (static_cast<void>(from_value<Params>(args[I], method, I)), ...);
    }
    (std::index_sequence_for<Params...>{});
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return std::nullopt;
}

// Calls `fn(object, args...)` with the converted arguments and converts the result.
template <class Object, class... Params, class Fn>
history::Value call_converted(const Fn& fn, Object& object, const std::string& method,
                              const std::vector<history::Value>& args) {
  if (args.size() != sizeof...(Params)) count_error(method, sizeof...(Params), args.size());
  return [&]<std::size_t... I>(std::index_sequence<I...>)->history::Value {
    using Result = std::invoke_result_t<const Fn&, Object&, Params...>;
    if constexpr (std::is_void_v<Result>) {
      std::invoke(fn, object, from_value<Params>(args[I], method, I)...);
      return history::Value();
    } else {
      return to_value(std::invoke(fn, object, from_value<Params>(args[I], method, I)...));
    }
  }
  (std::index_sequence_for<Params...>{});
}

// The parameter list of a callable taking (Object&, Params...).
template <class F>
struct callable_params : callable_params<decltype(&F::operator())> {};
template <class C, class R, class Self, class... P>
struct callable_params<R (C::*)(Self, P...) const> {
  using type = std::tuple<P...>;
};
template <class C, class R, class Self, class... P>
struct callable_params<R (C::*)(Self, P...)> {
  using type = std::tuple<P...>;
};
template <class R, class Self, class... P>
struct callable_params<R (*)(Self, P...)> {
  using type = std::tuple<P...>;
};

}  // namespace bind_detail

template <class T>
class Binding {
 public:
  using Invoker = std::function<history::Value(T&, const std::vector<history::Value>&)>;
  using Maker = std::function<std::unique_ptr<T>()>;

  // Objects are default-constructed.
  Binding() requires std::default_initializable<T> : make_([] { return std::make_unique<T>(); }) {}
  // Objects are made by `make` (for constructor arguments).
  explicit Binding(Maker make) : make_(std::move(make)) {}

  // Binds a member function.
  template <class R, class C, class... P>
  requires std::derived_from<T, C> Binding& method(std::string name, R (C::*fn)(P...)) {
    return add<P...>(std::move(name), fn);
  }
  template <class R, class C, class... P>
  requires std::derived_from<T, C> Binding& method(std::string name, R (C::*fn)(P...) const) {
    return add<P...>(std::move(name), fn);
  }
  // Binds a callable taking `T&` and then the call's arguments.
  template <class F>
  requires(!std::is_member_function_pointer_v<F>) Binding& method(std::string name, F fn) {
    return apply_params(std::move(name), std::move(fn),
                        std::type_identity<typename bind_detail::callable_params<F>::type>{});
  }

  std::vector<std::string> method_names() const {
    std::vector<std::string> names;
    for (const auto& entry : methods_) names.push_back(entry.name);
    return names;
  }

  // Names the object's abstract state (see above): a member function taking no argument, or a
  // callable taking `T&`.
  template <class R, class C>
  requires std::derived_from<T, C> Binding& state(R (C::*fn)()) { return set_state(fn); }
  template <class R, class C>
  requires std::derived_from<T, C> Binding& state(R (C::*fn)() const) { return set_state(fn); }
  template <class F>
  requires(!std::is_member_function_pointer_v<F> &&
           std::is_invocable_v<const F&, T&>) Binding& state(F fn) {
    return set_state(std::move(fn));
  }

  dpct::ObjectFactory factory() const {
    if (!make_) throw std::invalid_argument("Binding has no way to construct the object");
    auto table = std::make_shared<const Table>(Table{methods_, state_});
    Maker make = make_;
    return [table, make]() -> std::unique_ptr<dpct::ObjectUnderTest> {
      std::shared_ptr<const Table> shared = this_threads_owner(table);
      if (dpct::CallCheckScope::active())
        return std::make_unique<Bound>(nullptr, std::move(shared));
      return std::make_unique<Bound>(make(), std::move(shared));
    };
  }

 private:
  using Checker = std::function<std::optional<std::string>(const std::vector<history::Value>&)>;
  using StateOf = std::function<history::Value(T&)>;
  struct Entry {
    std::string name;
    Invoker invoke;
    Checker check;  // bind_detail::conversion_problem for the method's parameters
  };
  // What every object of a factory shares.
  struct Table {
    std::vector<Entry> entries;
    StateOf state;  // empty: the object names no state
  };

  // `table`, owned through a reference count of the calling thread's own. Every object holds
  // its table; were they all to count on `table`'s, the workers of a parallel campaign (which
  // make an object per history, hundreds of thousands a second) would pass that count's cache
  // line between their cores at every object made and destroyed. A thread keeps the owner of the
  // last table it used, which keeps that table alive until the thread makes an object of another
  // or exits: a table cannot be freed while its address is remembered.
  static std::shared_ptr<const Table> this_threads_owner(
      const std::shared_ptr<const Table>& table) {
    thread_local std::shared_ptr<const Table> owner;
    if (owner.get() != table.get()) {
      auto holder = std::make_shared<const std::shared_ptr<const Table>>(table);
      owner = std::shared_ptr<const Table>(holder, table.get());
    }
    return owner;
  }

  class Bound : public dpct::ObjectUnderTest {
   public:
    Bound(std::unique_ptr<T> object, std::shared_ptr<const Table> table)
        : object_(std::move(object)), table_(std::move(table)) {}

    history::Value invoke(const history::Call& call) override {
      if (!object_) throw std::logic_error("Binding: invoke() on a stand-in made for call checks");
      for (const Entry& entry : table_->entries) {
        if (entry.name == call.method) return entry.invoke(*object_, call.args);
      }
      throw std::invalid_argument(unknown_method(call.method));
    }

    std::optional<std::string> call_problem(const history::Call& call) const override {
      for (const Entry& entry : table_->entries) {
        if (entry.name == call.method) return entry.check(call.args);
      }
      return unknown_method(call.method);
    }

    std::optional<history::Value> state() override {
      if (!object_ || !table_->state) return std::nullopt;
      return table_->state(*object_);
    }

   private:
    std::string unknown_method(const std::string& method) const {
      std::string known;
      for (const Entry& entry : table_->entries) {
        known += (known.empty() ? "" : ", ") + entry.name;
      }
      return "object has no method '" + method + "' (" +
             (known.empty() ? std::string("no method is bound") : "methods: " + known) + ")";
    }

    std::unique_ptr<T> object_;
    std::shared_ptr<const Table> table_;
  };

  template <class Fn>
  Binding& set_state(Fn fn) {
    static_assert(!std::is_void_v<std::invoke_result_t<Fn&, T&>>,
                  "targets::Binding::state: the state function must return the state");
    if (state_) throw std::invalid_argument("the object's state is named twice");
    state_ = [fn = std::move(fn)](T& object) {
      return bind_detail::to_value</*kUtf8Strings=*/false>(std::invoke(fn, object));
    };
    return *this;
  }

  template <class F, class... P>
  Binding& apply_params(std::string name, F fn, std::type_identity<std::tuple<P...>>) {
    return add<P...>(std::move(name), std::move(fn));
  }

  template <class... P, class Fn>
  Binding& add(std::string name, Fn fn) {
    for (const Entry& entry : methods_) {
      if (entry.name == name) throw std::invalid_argument("method '" + name + "' bound twice");
    }
    Invoker invoke = [fn, name](T& object, const std::vector<history::Value>& args) {
      return bind_detail::call_converted<T, P...>(fn, object, name, args);
    };
    Checker check = [name](const std::vector<history::Value>& args) {
      return bind_detail::conversion_problem<P...>(name, args);
    };
    methods_.push_back({std::move(name), std::move(invoke), std::move(check)});
    return *this;
  }

  Maker make_;
  std::vector<Entry> methods_;
  StateOf state_;
};

}  // namespace linfault::targets

#endif  // LINFAULT_TARGETS_BIND_H_
