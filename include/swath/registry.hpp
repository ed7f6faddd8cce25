#pragma once
// The variant record's common part. Each family keeps one table of its records (src/<family>/registry.cpp); the CLI, the
// tests and the benchmarks all read that table. Adding an optimisation step is one file plus one row.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace swath {

enum class backend { cpu, cuda };
std::string_view to_string(backend where);

// The minimum traffic and arithmetic a problem needs: each input read once, each output written once.
struct work_amount {
  double bytes = 0;
  double flops = 0;
  double items = 0;  // the family's unit of work (stencil points), when it has one: reported per second
};

// Which measured ceiling bounds a variant's memory traffic.
enum class ceiling_kind {
  device_memory,   // GPU device memory (measured copy bandwidth, bytes read + written)
  device_memory_read,  // GPU device memory, reads only (measured read-only bandwidth): reductions, histograms
  host_to_device,  // the host link, pinned, host to device
  device_to_host,  // the host link, pinned, device to host
  host_memory,     // CPU memory, all cores
  host_memory_one_core,
  none,            // no bandwidth bounds it (a ray tracer): reported per item (rays/s), no roofline
};
std::string_view to_string(ceiling_kind kind);

// One setting, declared once where it belongs: a family's parameter (the problem's mathematics: a
// stencil's radius, a product's transposes) or a step's own setting (its tile shape, its grid), on the
// step's registry row. The CLI writes it key=value; `swath list`, `--help`, the validation of --param
// and the lab's rows are all generated from these records.
struct parameter {
  std::string_view key;
  // The allowed values, '|'-separated: literal words, or N (a whole number >= 1), X (a finite number),
  // or a capitalised form the problem's maker checks (MxNxK, FILE.json, w0:w1:...).
  std::string_view values;
  std::string_view default_value;
  std::string_view help;
  // Whether a benchmark row's name carries key=value: always, only when the user chose the value, or
  // whenever the value is not the default (a layout whose default is the unnamed plain case).
  enum class naming { always, when_chosen, unless_default };
  naming named = naming::when_chosen;
};

// What every variant says about itself, whatever its family.
struct variant_info {
  std::string_view name;     // "family/backend/NN_step"; vendor rows "family/backend/vendor_<library>"
  backend where = backend::cpu;
  std::string_view summary;  // one line
  std::string_view problem;  // the problem it solves; rows of the same problem and size share a vendor baseline
  double tolerance = 0;      // largest relative error against the float64 reference that passes
  bool vendor = false;       // a vendor library, registered as a baseline
  ceiling_kind bound = ceiling_kind::device_memory;
  std::span<const parameter> settings{};  // the step's own settings (its policy), beyond the family's parameters
};

// Why a variant cannot run a problem; empty `why` means it can.
struct support {
  std::string_view why;
  [[nodiscard]] bool ok() const { return why.empty(); }
  static support yes() { return {}; }
  static support no(std::string_view reason) { return {reason}; }
};

// The values a run chose for steps' settings, key → value as written on the command line, checked
// against the rows' parameter records by whoever chose them (the lab, from --param). A library call
// chooses none: every step then takes its policy's default for the device it runs on.
using chosen_settings = std::map<std::string, std::string, std::less<>>;

// How a variant is launched: the stream (a cudaStream_t; nullptr = default), what the device offers,
// and the settings chosen for the step.
struct launch_context {
  void* stream = nullptr;
  int sm_count = 0;
  int cpu_threads = 0;
  int capability = 0;       // the GPU's compute capability, major · 10 + minor; 0 for the CPU
  double cache_bytes = 0;   // the GPU's L2 (CUDA steps); 0: the step asks (CPU steps: this CPU's cache)
  std::shared_ptr<const chosen_settings> settings;  // null: none chosen

  // The value chosen for `key`, or `fallback` (the policy's default) when none was.
  [[nodiscard]] std::string_view setting(std::string_view key, std::string_view fallback) const {
    if (!settings) return fallback;
    const auto found = settings->find(key);
    return found == settings->end() ? fallback : std::string_view(found->second);
  }
  // The value chosen for a step's setting, or its record's default.
  [[nodiscard]] std::string_view setting(const parameter& record) const {
    return setting(record.key, record.default_value);
  }
};

// A setting's value read as a whole number >= 1; throws usage_error naming key=value otherwise.
std::int64_t whole_setting(std::string_view key, std::string_view value);

// A step's tuning value for a range of architectures, with the measurement that chose it. A step keeps
// a table of them (newest architecture first) and takes the first row whose range holds the device:
// the CUB way of keeping tuning as data per architecture, with the evidence beside the number.
template <class Value>
struct measured_default {
  int min_capability = 0;    // major · 10 + minor; 0 also matches the CPU
  int max_capability = 999;
  Value value{};
  std::string_view measured;  // where the measurement that chose it is: a results file, a journal section
};

template <class Value>
const Value& default_for(std::span<const measured_default<Value>> table, int capability) {
  for (const auto& row : table) {
    if (capability >= row.min_capability && capability <= row.max_capability) return row.value;
  }
  return table.back().value;  // tables end with a row for every architecture; this is only a guard
}

// Each family's record embeds variant_info and adds its typed entry points, e.g. (elementwise.hpp):
//   struct variant { variant_info info; operation op; ...; support (*supports)(const problem&);
//                    void (*run)(const problem&, const operands&, const launch_context&);
//                    work_amount (*work)(const problem&); };

namespace detail {
[[noreturn]] void throw_unknown_variant(std::string_view family, std::string_view name);
}  // namespace detail

// The row of a family's table with this name; throws usage_error naming the family when none has it.
template <class Record>
const Record& find_in_table(std::span<const Record> table, std::string_view family, std::string_view name) {
  const auto found = std::find_if(table.begin(), table.end(), [&](const Record& r) { return r.info.name == name; });
  if (found == table.end()) detail::throw_unknown_variant(family, name);
  return *found;
}

}  // namespace swath
