#pragma once
// The verified benchmark runner: for each selected variant and size, fresh random inputs, poisoned
// outputs, one checked run, and only then warm-up and timed repetitions.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "swath/bench/ceilings.hpp"
#include "swath/bench/family.hpp"
#include "swath/core/timing.hpp"

namespace swath::bench {

struct run_options {
  std::vector<std::string> families;  // names; "all" expands to every family
  std::vector<size_spec> sizes;       // empty: each family's defaults for the backend
  std::vector<parameter_choice> parameters;  // --param choices (families with parameters)
  std::string variant_glob = "*";     // shell-style patterns on the variant name, comma-separated
  backend where = backend::cpu;
  int repetitions = 20;
  int warmup = 3;
  bool timed = true;                  // false: verify only
  std::uint64_t seed = 0x5eed;
  bool progress = true;
};

struct result_row {
  std::string family;
  variant_info variant;
  std::string size;
  std::string config;  // the family's parameters for this row ("" when it has none)
  std::string status;  // "ok", "failed" (verification), "skipped"
  std::string note;    // why it was skipped or failed
  check_result check;
  int sets = 1;        // input sets rotated through while timing
  bool cache_resident = false;  // all sets together were smaller than the rotation target: this row
                                // measures the cache, not memory, and its % of ceiling can exceed 100
  timing_stats time;
  work_amount work;
  // Derived from the median time.
  double gbps = 0;
  double gflops = 0;
  double gitems = 0;                    // billions of work items (stencil points) per second, when counted
  double intensity = 0;                 // flops per byte
  std::optional<double> ceiling_gbps;   // the bandwidth ceiling that applies
  std::optional<double> percent_of_ceiling;
  std::string bound;                    // "memory", "compute" or the ceiling name
  std::optional<double> vendor_ratio;   // vendor median / this median: > 1 is faster than the vendor
  std::string vendor_name;
  // Wall seconds the row took on the host, by phase: making the trial (inputs allocated, filled and
  // copied where they run), the verified run with its check against the reference, and the warm-up
  // and timed repetitions. What a long sweep or the tuner spends besides the timed work.
  struct phase_seconds {
    double prepare = 0, verify = 0, timing = 0;
  } phases;
};

struct run_report {
  std::vector<result_row> rows;
  ceilings limits;
  std::string started_at;
  double elapsed_s = 0;
  run_options options;
  [[nodiscard]] int failures() const;
};

// Throws what run() would throw before running anything: usage_error for unknown families or a
// pattern that selects nothing, out_of_memory_error for sizes that cannot fit. Cheap: call it before
// measuring ceilings.
void check_plan(const run_options& options);
// Throws as check_plan does.
run_report run(const run_options& options, const ceilings& limits);

// Output. write_* write to a temporary file and rename, so a failed run never leaves a partial file.
std::string format_table(const run_report& report);
std::string format_markdown(const run_report& report);
std::string format_csv(const run_report& report);
nlohmann::json to_json(const run_report& report);
void write_file_atomically(const std::string& path, const std::string& contents);

// Machine description for the JSON: device, CPU, build, git revision.
nlohmann::json environment_json();

// Matches '*' and '?' (shell-style).
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace swath::bench
