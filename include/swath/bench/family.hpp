#pragma once
// What the benchmark runner needs from a kernel family: its variants, its default sizes, and a way to
// set up one variant at one size (a trial) with fresh inputs, run it, and check it.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "swath/core/buffer.hpp"
#include "swath/registry.hpp"

namespace swath::bench {

// A problem size as the user writes it: "N", "2^k", "WxH" or "WxHxD"; all extents ≥ 1.
struct size_spec {
  std::vector<std::int64_t> extents;
  [[nodiscard]] std::string text() const;
  [[nodiscard]] std::int64_t count() const;  // product of the extents
  bool operator==(const size_spec&) const = default;
};
// Throws usage_error naming the problem (zero, negative, not a number, overflow).
size_spec parse_size(std::string_view text);

// One problem: a size and, for families with parameters besides the size (a stencil's radius, shape,
// boundary and element type), one point of their space written "key=value ..." ("" when none).
struct problem_spec {
  size_spec size;
  std::string config;
  [[nodiscard]] std::string text() const { return config.empty() ? size.text() : size.text() + " " + config; }
};

// --param key=value[,value...]: the values a family's parameter takes; several values make several cases.
struct parameter_choice {
  std::string key;
  std::vector<std::string> values;
};
parameter_choice parse_parameter(std::string_view text);  // throws usage_error

// A configuration string ("key=value key=value") as a map, over the given defaults.
std::map<std::string, std::string> parse_config(const std::string& config, std::map<std::string, std::string> defaults);
// A parameter that is a whole number ≥ 1; throws usage_error naming key and text.
std::int64_t parse_positive(const std::string& key, const std::string& text);
// A parameter that is a finite number; throws usage_error naming key and text.
double parse_finite(const std::string& key, const std::string& text);

// The outcome of checking one run against the float64 reference.
struct check_result {
  std::int64_t checked = 0;           // output elements compared
  std::int64_t unwritten = 0;         // elements still holding the poison
  std::int64_t not_finite = 0;        // NaN or infinity that was computed
  std::int64_t outside_writes = 0;    // elements outside the output region that were overwritten
  double max_relative_error = 0;      // |out - ref| / max(|ref|, 1e-6 · max|ref|)
  std::int64_t worst_index = -1;
  double tolerance = 0;
  [[nodiscard]] bool passed() const {
    return checked > 0 && unwritten == 0 && not_finite == 0 && outside_writes == 0 &&
           max_relative_error <= tolerance;
  }
  [[nodiscard]] std::string describe() const;
};

struct trial_options {
  std::uint64_t seed = 0x5eed;
  // Extra input sets are allocated until all sets together exceed this many bytes (so that timing
  // does not measure the cache), memory permitting; 0 = one set.
  std::int64_t rotate_until_bytes = 0;
  int max_sets = 64;
  // The step's settings this row chose (its configuration's keys that the row declares); the step
  // takes its policy's defaults for the rest. table_family::make_trial fills it.
  std::shared_ptr<const chosen_settings> settings;
};

// What every family's trial does first (src/bench/trial.cpp).
// The launch context for a variant: throws precondition_error naming the variant when it cannot run the
// problem (`supported`), usage_error when it needs a CUDA device and there is none; the SM count and
// the OpenMP threads, the GPU's capability and L2, and the row's chosen settings filled in.
launch_context prepare_launch(const variant_info& variant, const support& supported,
                              std::shared_ptr<const chosen_settings> settings = {});
// The keys of `config` ("key=value ...") that the variant declares as its settings, with their values.
chosen_settings settings_chosen_in(const variant_info& variant, const std::string& config);
// Input sets to allocate: enough that together they exceed options.rotate_until_bytes, at most
// options.max_sets, at least one.
int wanted_sets(const trial_options& options, std::int64_t set_bytes);
// Whether one more set of set_bytes fits beside `sets` of them: extra sets only sharpen the measurement,
// so they stay within half the free device memory, or a quarter of the host's.
bool room_for_another_set(memory_kind where, int sets, std::int64_t set_bytes);

// One variant at one size, with its data allocated and filled.
class trial {
 public:
  virtual ~trial() = default;
  [[nodiscard]] virtual int sets() const = 0;
  virtual void poison_outputs() = 0;
  // Enqueue one run on input set `set` (asynchronous on the GPU).
  virtual void run(int set) = 0;
  // Wait for the device, then compare set 0's outputs with the reference.
  virtual check_result check() = 0;
  // True: time with CUDA events on the trial's stream; false: the host clock (run() finishes its work).
  [[nodiscard]] virtual bool timed_on_device() const = 0;
  [[nodiscard]] virtual void* stream() const { return nullptr; }
  // Work items the checked run counted, for families whose work depends on the data (a ray tracer's
  // shadow rays): the runner reports these instead of work().items. Every run of a trial does the
  // same work.
  [[nodiscard]] virtual std::optional<double> counted_items() const { return std::nullopt; }
};

class family {
 public:
  virtual ~family() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::string_view summary() const = 0;
  [[nodiscard]] virtual std::vector<variant_info> variants() const = 0;
  [[nodiscard]] virtual std::vector<size_spec> default_sizes(const variant_info& variant) const = 0;
  [[nodiscard]] virtual std::string_view size_help() const = 0;
  // The suite's cases for a variant when the user chose neither sizes nor parameters, where they are
  // not the product of default_sizes and configurations (a ray tracer runs brute force at a smaller
  // image than its BVH). Empty: that product.
  [[nodiscard]] virtual std::vector<problem_spec> default_cases(const variant_info&) const { return {}; }
  // The problem's parameters, declared once (a step's own settings are on its row: variant_info::settings).
  [[nodiscard]] virtual std::span<const parameter> parameters() const { return {}; }
  // Every setting the family's steps declare, those of steps this build leaves out included (a CPU-only
  // build's gemm still parses tma=); empty: the rows' settings are all there is.
  [[nodiscard]] virtual std::span<const parameter> settings() const { return {}; }
  // What the suite runs of a parameter or setting the user did not choose: its default, unless the family
  // sweeps it (a stencil's radii, a histogram's five inputs).
  [[nodiscard]] virtual std::vector<std::string> suite_values(const variant_info& variant, const parameter& key,
                                                              const std::vector<parameter_choice>& chosen) const;

  // Generated from the descriptors (src/bench/parameters.cpp), the same for every family:
  // The configurations to run for a variant: the product of the chosen values of its parameters and
  // settings, the suite's values for the rest; a row names what parameter::named says. Throws
  // usage_error for a key that neither the family nor any of its steps declares, or a value its
  // descriptor does not allow.
  [[nodiscard]] std::vector<std::string> configurations(const variant_info& variant,
                                                        const std::vector<parameter_choice>& chosen) const;
  // One line a parameter: "key=values (default d) help", then the steps' settings with the steps that
  // take them; parameter_help() joins the lines with "; ".
  [[nodiscard]] std::vector<std::string> parameter_lines() const;
  [[nodiscard]] std::string parameter_help() const;
  // Every key's default: the family's parameters and every row's settings (what a problem's maker reads).
  [[nodiscard]] std::map<std::string, std::string> defaults() const;
  // The descriptor of a key, among the parameters and every row's settings; nullptr when none declares it.
  [[nodiscard]] const parameter* find_parameter(std::string_view key) const;
  // Why this variant cannot run this problem ("" if it can).
  [[nodiscard]] virtual std::string unsupported(const variant_info& variant, const problem_spec& problem) const = 0;
  [[nodiscard]] virtual work_amount work(const variant_info& variant, const problem_spec& problem) const = 0;
  // Device or host bytes one input+output set needs, to refuse sizes that cannot fit before allocating.
  [[nodiscard]] virtual std::int64_t footprint_bytes(const variant_info& variant, const problem_spec& problem) const = 0;
  [[nodiscard]] virtual std::unique_ptr<trial> make_trial(const variant_info& variant, const problem_spec& problem,
                                                          const trial_options& options) const = 0;
};

// The common part of every record in a family's table.
template <class Record>
std::vector<variant_info> variant_infos(std::span<const Record> table) {
  std::vector<variant_info> infos;
  infos.reserve(table.size());
  for (const Record& record : table) infos.push_back(record.info);
  return infos;
}

// Every family, in the order the suite runs them (src/families.cpp).
std::span<const family* const> families();
const family& find_family(std::string_view name);  // throws usage_error listing the known names

}  // namespace swath::bench
