// Model specs: a model name with parameters, as one string that flows through every command and
// file where a model name does ("cas-register", "cas-register(init=0)").
//
// Grammar (whitespace allowed between tokens):
//   spec   := name [ "(" [ param { "," param } ] ")" ]
//   name   := letters, digits, '-' and '_'
//   param  := name "=" value
//   value  := nil | true | false | integer | "string" (escapes \" \\ \n \t \r \uXXXX) | :keyword
//             | bare word (letters, digits, '-', '_', '.', '/', ':'; read as a string)
//             | "[" value* "]" (a list, values separated by spaces)
// A keyword keeps its colon, as the EDN readers keep it (:x reads as the string ":x").
//
// parse_model_spec() checks the syntax only (no repeated parameter); which parameters a model
// takes is the model's business: its constructor takes a ModelParams&, take()s the ones it knows,
// and make_model() then fails on any left over ("model 'stack' takes no parameter 'init'").
// ModelSpec::canonical() writes the spec back in one form ("cas-register(init=0)", parameters in
// the order given, values printed as history::Value::to_string() does), which is the model's name
// in verdicts and files; parsing the canonical form gives the same spec.
//
// Errors are ModelSpecError, a std::invalid_argument whose what() is one line.
//
// Thread-safety: ModelParams is a plain value; take() mutates it, so each model construction uses
// its own copy.
//
// Internal header: not part of linfault's public API (include/linfault/), which includes it where
// needed; it may change between versions.

#ifndef LINFAULT_SPEC_MODEL_PARAMS_H_
#define LINFAULT_SPEC_MODEL_PARAMS_H_

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "history/value.h"

namespace linfault::spec {

class ModelSpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class ModelParams {
 public:
  ModelParams() = default;

  // Adds `name` = `value`; throws ModelSpecError if `name` is already given.
  void add(std::string name, history::Value value);
  // Sets `name` = `value`, replacing an earlier value (the command line's --init over a file's).
  void set(std::string name, history::Value value);

  // The value of `name`, removed so that make_model() knows it was used; nullopt when not given.
  std::optional<history::Value> take(std::string_view name);

  bool empty() const { return entries_.empty(); }
  const std::vector<std::pair<std::string, history::Value>>& entries() const { return entries_; }

  // Throws ModelSpecError naming `model` (its name up to any '(') and the first parameter nobody
  // took.
  void expect_all_taken(std::string_view model) const;

  friend bool operator==(const ModelParams&, const ModelParams&) = default;

 private:
  std::vector<std::pair<std::string, history::Value>> entries_;
};

struct ModelSpec {
  std::string name;
  ModelParams params;

  std::string canonical() const;
};

// The canonical spec of `model` with one parameter, e.g. canonical_spec("register", "init", 0)
// == "register(init=0)": the name a model constructed with that parameter reports.
std::string canonical_spec(std::string model, std::string param, history::Value value);

// Throws ModelSpecError ("bad model spec 'x(': ...") for a spec that does not parse.
ModelSpec parse_model_spec(std::string_view text);

// A parameter value as a command-line option gives it (--init 0): the `value` grammar above.
// Throws ModelSpecError for one that does not parse.
history::Value parse_param_value(std::string_view text);

// Constructs model type M from `params`: M(params) when M has such a constructor, else M{}; then
// fails if a parameter was left untaken (a parameter M does not know, or any parameter for a
// model that takes none). The usual way to give a model of your own parameters.
template <class M>
M make_model(ModelParams params) {
  if constexpr (std::is_constructible_v<M, ModelParams&>) {
    M model(params);
    params.expect_all_taken(model.name());
    return model;
  } else {
    M model{};
    params.expect_all_taken(model.name());
    return model;
  }
}

}  // namespace linfault::spec

#endif  // LINFAULT_SPEC_MODEL_PARAMS_H_
