// Test helper: the rows of ../shared/data/verdicts.tsv (path, model, expected verdict).

#ifndef LINFAULT_DETECT_MONITORS_VERDICTS_TSV_H_
#define LINFAULT_DETECT_MONITORS_VERDICTS_TSV_H_

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "detect/verdict.h"

namespace linfault::detect {

struct VerdictRow {
  std::string path, model, expected;
};

inline std::vector<VerdictRow> verdict_rows() {
  std::ifstream in(std::string(LINFAULT_SHARED_DIR) + "/data/verdicts.tsv");
  std::vector<VerdictRow> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    VerdictRow row;
    if (fields >> row.path >> row.model >> row.expected) rows.push_back(row);
  }
  return rows;
}

inline Result expected_result(const std::string& word) {
  return word == "linearizable" ? Result::kLinearizable : Result::kViolation;
}

}  // namespace linfault::detect

#endif  // LINFAULT_DETECT_MONITORS_VERDICTS_TSV_H_
