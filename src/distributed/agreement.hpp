#pragma once
// Collective set-up: every rank checks its own arguments and allocations, then the ranks agree, so that
// a failure on one rank becomes the same error on all of them instead of a partner waiting forever. The
// transports (MPI, NCCL) carry a failure_record from the first failing rank to the others.
#include <cstring>
#include <exception>
#include <string>

#include "swath/core/error.hpp"

namespace swath::distributed::detail {

struct failure_record {
  int kind = 0;  // 0 none, 1 usage_error, 2 out_of_memory_error, 3 any other error
  char text[1000] = {};
};

inline failure_record record_of(const std::exception_ptr& failure) {
  failure_record record;
  if (!failure) return record;
  const auto keep = [&](int kind, const char* what) {
    record.kind = kind;
    std::strncpy(record.text, what, sizeof(record.text) - 1);
  };
  try {
    std::rethrow_exception(failure);
  } catch (const usage_error& e) {
    keep(1, e.what());
  } catch (const out_of_memory_error& e) {
    keep(2, e.what());
  } catch (const std::exception& e) {
    keep(3, e.what());
  } catch (...) {
    keep(3, "an unknown exception");
  }
  return record;
}

// Throws the error `record` describes, as seen from every rank: "rank 1 of 3: ...".
[[noreturn]] inline void throw_agreed(int failing_rank, int ranks, const failure_record& record) {
  const std::string text = "rank " + std::to_string(failing_rank) + " of " + std::to_string(ranks) + ": " + record.text;
  if (record.kind == 1) throw usage_error(text);
  if (record.kind == 2) throw out_of_memory_error(text);
  throw error(text);
}

}  // namespace swath::distributed::detail
