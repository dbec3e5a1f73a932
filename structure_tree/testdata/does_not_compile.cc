// Input for the structure_tool_bad_source test: the extractor must report the first error with
// its file, line and column, and exit with 65.
#include "dpct/shared.h"

class Broken {
 public:
  int get() { return value_.load() + undefined_name; }

 private:
  linfault::dpct::Atomic<int> value_;
};
