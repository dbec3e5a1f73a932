// The ported targets: each is registered with the operations, model and known scenarios of the
// bundled target it was ported from, so that the two can be compared run for run.

#include <linfault/target.h>

#include <string>
#include <string_view>

#include "coarse_list.h"
#include "optimistic_queue.h"
#include "treiber_stack.h"

namespace {

// The bundled target `original` under `name`, with the ported class's factory.
linfault::Target port_of(std::string_view original, std::string name,
                         linfault::dpct::ObjectFactory factory) {
  for (const linfault::Target& bundled : linfault::targets::all()) {
    if (bundled.name != original) continue;
    linfault::Target port = bundled;
    port.name = std::move(name);
    port.description = bundled.description + " [ported to plain std::atomic, built INSTRUMENT]";
    port.paper_name.clear();
    port.factory = std::move(factory);
    return port;
  }
  throw std::invalid_argument("no bundled target " + std::string(original));
}

}  // namespace

LINFAULT_REGISTER_TARGET([] {
  return port_of("treiber_stack_buggy", "treiber_stack_buggy_std",
                 linfault::Binding<ported::TreiberStack>()
                     .method("push", &ported::TreiberStack::push)
                     .method("pop", &ported::TreiberStack::pop)
                     .factory());
});

LINFAULT_REGISTER_TARGET([] {
  return port_of("optimistic_queue_buggy", "optimistic_queue_buggy_std",
                 linfault::Binding<ported::OptimisticQueue>()
                     .method("offer", &ported::OptimisticQueue::offer)
                     .method("poll", &ported::OptimisticQueue::poll)
                     .factory());
});

LINFAULT_REGISTER_TARGET([] {
  return port_of("simple_list_buggy", "simple_list_buggy_std",
                 linfault::Binding<ported::CoarseList>()
                     .method("add", &ported::CoarseList::add)
                     .method("remove", &ported::CoarseList::remove)
                     .method("contains", &ported::CoarseList::contains)
                     .factory());
});
