#pragma once
// The SGEMM dispatch tables: for one GPU, which step (and which of its settings) ran fastest at each
// shape of the suite, as measured by `swath tune gemm --dispatch` beside cuBLAS. The tables are data:
// JSON files under src/gemm/dispatch/, one a GPU, compiled into the library (src/CMakeLists.txt), and
// read by swath::sgemm (src/api/gemm.cpp). A call takes the choice of the nearest tuned shape with the
// same ops and batching whose step takes the problem (distance: the sum of |log(x / x_i)| over M, N, K
// and the batch); past `near_enough` from every one, none: the architecture's rules decide.
//   {"gpu": "NVIDIA H100 80GB HBM3", "capability": 90, "measured_at": "...", "revision": "...",
//    "choices": [{"m": 1024, "n": 1024, "k": 1024, "op": "nn", "batch": 1,
//                 "step": "gemm/cuda/17_split_k", "settings": {"fit": "128x128", "splits": "2"},
//                 "ms": 0.051, "vendor_ms": 0.062}, ...]}
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "swath/gemm.hpp"

namespace swath::gemm {

struct tuned_choice {
  std::int64_t m = 1, n = 1, k = 1, batch = 1;
  bool trans_a = false, trans_b = false;
  std::string step;  // a registry row of steps()
  std::shared_ptr<const chosen_settings> settings;  // what the launch gets
  double ms = 0, vendor_ms = 0;                      // the tuner's medians: the step's and cuBLAS's
  // Resolved when read, so that a call's pick is arithmetic only: the row of `step` in this build
  // (nullptr when the build lacks it: never picked) and log M, N, K, batch.
  const variant* row = nullptr;
  double log_m = 0, log_n = 0, log_k = 0, log_batch = 0;
  bool rows_of_16_bytes = false;  // rows_of_16_bytes (below) of the tuner's packed leading dimensions
};

// Whether every row of op(A), op(B) and C as stored starts 16 bytes after the one before (leading
// dimensions multiples of 4 floats). Where they do, the copies can be 16-byte ones and the tiles at the
// edges are moved inside; where not (the suite's odd squares), the copies are 4-byte ones or step 20
// rewrites the operands, and other steps and settings win.
inline bool rows_of_16_bytes(std::int64_t lda, std::int64_t ldb, std::int64_t ldc) {
  return lda % 4 == 0 && ldb % 4 == 0 && ldc % 4 == 0;
}

struct dispatch_table {
  std::string gpu;
  int capability = 0;
  std::string measured_at, revision;
  std::vector<tuned_choice> choices;
};

// Throws usage_error naming `where` and the field for anything malformed, or a step that is not a row.
dispatch_table parse_dispatch_table(std::string_view json, const std::string& where);
std::string format_dispatch_table(const dispatch_table& table);  // the JSON text, one choice a line

// The tables compiled in; with SWATH_GEMM_DISPATCH naming a file, that file's table first (a tuner's
// output tried before it is committed). Read once.
std::span<const dispatch_table> dispatch_tables();
// The table of this GPU's name, else the first of its compute capability; nullptr when none.
const dispatch_table* dispatch_table_for(std::string_view gpu_name, int capability);

// A problem further than this from every tuned shape is left to the rules: a factor of 3.3 in one
// dimension, or 1.5 in each of three. The suite's squares are at most 1.5 apart.
inline constexpr double near_enough = 1.2;
// Among the choices near enough, one whose rows are not 16 bytes apart where the problem's are (or the
// other way round) ranks as if it were this much further: a factor of 1.5 in one dimension. 992 ×
// 992 × 1024 tn (16-byte rows) is 0.0626 from 1023³ (4-byte rows) and 0.0634 from 1024³; 1023³'s
// choice ran 57.3 µs there and 1024³'s 52.6 (H200, docs/journal/gemm.md, "Edge tiles moved inside").
inline constexpr double other_row_alignment = 0.405;

struct dispatch_pick {
  const variant* step = nullptr;
  std::shared_ptr<const chosen_settings> settings;  // the tuned ones
  double distance = 0;
};
std::optional<dispatch_pick> pick_step(const dispatch_table& table, const problem& p);

}  // namespace swath::gemm
