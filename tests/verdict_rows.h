// The rows of ../shared/data/verdicts.tsv (path, model, expected verdict), for the tests that
// check every shared history in its original format.

#ifndef LINFAULT_TESTS_VERDICT_ROWS_H_
#define LINFAULT_TESTS_VERDICT_ROWS_H_

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace linfault::tests {

struct VerdictRow {
  std::string path;  // relative to the shared data folder
  std::string model;
  std::string expected;  // "linearizable" | "violation"
};

// The path of `relative` inside the shared data folder. Appended rather than added: GCC 12 sees a
// false out-of-bounds copy in `std::string&& + const char*` once the path outgrows the short-string
// buffer, depending on the checkout's path.
inline std::string shared_data_path(std::string_view relative) {
  std::string path = LINFAULT_SHARED_DIR "/data/";
  path.append(relative);
  return path;
}

// All rows whose path starts with `prefix`.
inline std::vector<VerdictRow> verdict_rows(const std::string& prefix) {
  const std::string path = shared_data_path("verdicts.tsv");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<VerdictRow> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    VerdictRow row;
    if (!std::getline(fields, row.path, '\t') || !std::getline(fields, row.model, '\t') ||
        !std::getline(fields, row.expected)) {
      throw std::runtime_error("malformed verdicts.tsv line: " + line);
    }
    if (row.path.rfind(prefix, 0) == 0) rows.push_back(row);
  }
  return rows;
}

}  // namespace linfault::tests

#endif  // LINFAULT_TESTS_VERDICT_ROWS_H_
