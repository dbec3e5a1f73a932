// libFuzzer harness: dpct schedule text (docs/schedule-format.md), as saved runs and test cases
// carry it.
//
// dpct::Schedule::from_text() must accept the input or throw dpct::ScheduleFormatError. An accepted
// schedule must come back equal through to_text()/from_text() and through to_json()/from_json().
// Seeds: fuzz/corpus/schedule/.

#include "dpct/schedule.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using linfault::dpct::Schedule;
  Schedule schedule;
  try {
    schedule = Schedule::from_text(linfault::fuzz::as_text(data, size));
  } catch (const linfault::dpct::ScheduleFormatError&) {
    return 0;
  }
  linfault::fuzz::require(Schedule::from_text(schedule.to_text()) == schedule,
                          "a schedule changed through its text form");
  linfault::fuzz::require(Schedule::from_json(schedule.to_json()) == schedule,
                          "a schedule changed through its JSON form");
  return 0;
}
