// A user's model registered under a built-in model's name is an error reported at the first
// lookup of any model, including a built-in one: before, a spec naming the built-in resolved to
// it and the user's model was silently ignored. A test binary of its own: the bad registration
// stays in the process's registry.

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "spec/registry.h"

namespace linfault::spec {
namespace {

const bool registered = [] {
  register_dynamic_model(
      "counter", [](ModelParams&) { return std::shared_ptr<DynamicModel>(); },
      "my_counter_model.cc:12");
  return true;
}();

TEST(BadModelRegistration, EveryLookupReportsItWithItsPlace) {
  ASSERT_TRUE(registered);
  for (const char* spec : {"counter", "stack", "no-such-model"}) {
    SCOPED_TRACE(spec);
    try {
      canonical_model_spec(spec);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                "my_counter_model.cc:12: model name 'counter' is taken by a built-in model");
    }
  }
}

}  // namespace
}  // namespace linfault::spec
