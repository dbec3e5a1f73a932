#include "localize/localize.h"

#include <algorithm>
#include <unordered_map>

#include "detect/checker.h"

namespace linfault::localize {

std::vector<Witness> witnesses_of_prefixes(const history::History& history,
                                           const detect::Verdict& verdict) {
  if (verdict.result != detect::Result::kViolation || verdict.prefix_events == 0) return {};
  const std::vector<history::OpIndex>& w = verdict.longest_partial;
  std::unordered_map<history::OpIndex, std::size_t> position;
  for (std::size_t i = 0; i < w.size(); ++i) position[w[i]] = i;

  // Walk the events of H_p(b-1); at each response, the witness of the prefix ending there is the
  // shortest prefix of w holding every op completed so far (see the header for why it is legal).
  std::vector<Witness> found;
  std::size_t needed = 0;  // length of the shortest prefix of w covering the completed ops
  const std::size_t last = verdict.prefix_events - 1;  // the culprit's response
  const std::vector<history::Event>& events = history.events();
  for (std::size_t e = 0; e < last && e < events.size(); ++e) {
    if (events[e].kind != history::Event::Kind::kReturn) continue;
    auto it = position.find(events[e].op);
    if (it == position.end()) continue;  // a failed op: it took no effect and is in no witness
    needed = std::max(needed, it->second + 1);
    Witness witness{e + 1, std::vector<history::OpIndex>(w.begin(), w.begin() + needed)};
    if (!found.empty() && found.back().order.size() == needed) {
      found.back() = std::move(witness);  // same order, longer prefix explained
    } else {
      found.push_back(std::move(witness));
    }
  }
  if (found.empty() || !found.front().order.empty()) {
    std::size_t before_first_return = 0;
    while (before_first_return < events.size() &&
           events[before_first_return].kind != history::Event::Kind::kReturn) {
      ++before_first_return;
    }
    found.insert(found.begin(), Witness{before_first_return, {}});
  }
  std::reverse(found.begin(), found.end());
  return found;
}

Localization localize(std::string_view model, const history::History& history,
                      const detect::CheckOptions& options) {
  detect::CheckOptions search_options = options;
  search_options.want_witness = true;
  Localization out;
  out.verdict = detect::check_history(model, history, search_options);
  if (out.verdict.result == detect::Result::kViolation) {
    out.prefix_events = out.verdict.prefix_events;
    out.culprit = out.verdict.culprit;
    out.op_order = witnesses_of_prefixes(history, out.verdict);
  }
  return out;
}

}  // namespace linfault::localize
