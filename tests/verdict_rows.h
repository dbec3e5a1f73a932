// The rows of ../shared/data/verdicts.tsv (path, model, expected verdict), for the tests that
// check every shared history in its original format.

#ifndef LINFAULT_TESTS_VERDICT_ROWS_H_
#define LINFAULT_TESTS_VERDICT_ROWS_H_

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace linfault::tests {

struct VerdictRow {
  std::string path;  // relative to the shared data folder
  std::string model;
  std::string expected;  // "linearizable" | "violation"
};

inline std::string shared_data_dir() { return std::string(LINFAULT_SHARED_DIR) + "/data/"; }

// All rows whose path starts with `prefix`.
inline std::vector<VerdictRow> verdict_rows(const std::string& prefix) {
  std::ifstream in(shared_data_dir() + "verdicts.tsv");
  if (!in) throw std::runtime_error("cannot open " + shared_data_dir() + "verdicts.tsv");
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
