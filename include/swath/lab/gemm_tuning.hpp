#pragma once
// What `swath tune gemm` finds and `policy=auto` reads: for one GPU, the fastest tile policy of the
// tunable CUDA step (08) at each tuned size. A problem takes the policy of the tuned size nearest to it
// (the smallest sum of |log(m / m_i)| + |log(n / n_i)| + |log(k / k_i)|). The file is plain JSON:
//   {"gpu": "NVIDIA H200", "variant": "gemm/cuda/08_double_buffered", "measured_at": "...",
//    "sizes": [{"m": 4096, "n": 4096, "k": 4096, "policy": "128x128x16", "gflops": 42721.1}, ...]}
// Reading refuses what could not run correctly: a policy that is not compiled (tile_policies), or one
// that breaks the kernel's static rules (compilable()), with an error naming the file and the field.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "swath/bench/runner.hpp"
#include "swath/gemm.hpp"

namespace swath::gemm {

struct tuned_size {
  std::int64_t m = 0, n = 0, k = 0;
  tile_policy policy;
  double gflops = 0;
};

struct tuning {
  std::string gpu;
  std::string variant = "gemm/cuda/08_double_buffered";
  std::string measured_at;
  std::vector<tuned_size> sizes;
};

tuning read_tuning(const std::string& path);  // throws usage_error naming the file and what is wrong
void write_tuning(const std::string& path, const tuning& found);
tile_policy pick_policy(const tuning& found, std::int64_t m, std::int64_t n, std::int64_t k);

// ---- The dispatch tuner (swath tune gemm --dispatch) ------------------------------------------------
// For each case (a size and op=/batch=), every candidate step and setting that could win there is
// verified and timed beside cuBLAS; the fastest verified one becomes the case's choice in a dispatch
// table (src/gemm/dispatch_table.hpp's JSON), which swath::sgemm reads once compiled in (or named by
// SWATH_GEMM_DISPATCH). A candidate that fails verification is reported and never chosen.
struct dispatch_tuning {
  std::string json;            // the table
  std::string summary;         // one line a case: the choice, its time, cuBLAS's, the ratio
  int failures = 0;            // candidates that failed verification
  std::vector<bench::result_row> rows;  // every candidate's row, cuBLAS's too
  std::string started_at;      // when the first case was measured (UTC, ISO 8601)
};
// `checkpoint`, when given, is rewritten with the table so far after every case (while none failed):
// a long run that is stopped keeps what it measured.
dispatch_tuning tune_dispatch(const std::vector<bench::problem_spec>& cases, int repetitions, int warmup, bool progress,
                              const bench::ceilings& limits, const std::string& revision,
                              const std::string& checkpoint = "");

// $SWATH_GEMM_TUNING when set, else gemm-tuning-<gpu>.json in the cache directory (next to the ceilings).
std::string tuning_path(const std::string& gpu_name);

}  // namespace swath::gemm
