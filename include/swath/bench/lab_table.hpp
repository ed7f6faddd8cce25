#pragma once
// The lab's table of a family: the library's steps, then the rows only the lab has (vendor baselines,
// the entry points' "auto" rows), built once.
#include <span>
#include <vector>

namespace swath::bench {

template <class Record, std::size_t N>
std::vector<Record> join_rows(std::span<const Record> steps, const Record (&lab_rows)[N]) {
  std::vector<Record> rows(steps.begin(), steps.end());
  rows.insert(rows.end(), std::begin(lab_rows), std::end(lab_rows));
  return rows;
}

}  // namespace swath::bench
