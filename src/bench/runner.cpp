// The verified benchmark runner. Per case: fresh inputs, poisoned outputs, one run, the check against
// the float64 reference, and only if that passes the warm-up and the timed repetitions.
#include "swath/bench/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>

#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/timing.hpp"

namespace swath::bench {
namespace {

struct planned_case {
  const family* owner;
  variant_info variant;
  problem_spec problem;
};

std::string now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// A progress line on stderr, only once the run has taken more than a second.
class progress_line {
 public:
  explicit progress_line(bool enabled) : enabled_(enabled), terminal_(isatty(STDERR_FILENO) == 1) {}
  void show(std::size_t index, std::size_t total, const planned_case& c, const char* stage) {
    if (!enabled_ || clock_.seconds() < 1.0) return;
    char text[256];
    std::snprintf(text, sizeof text, "[%zu/%zu] %s %s: %s", index + 1, total, std::string(c.variant.name).c_str(),
                  c.problem.text().c_str(), stage);
    if (terminal_) {
      std::fprintf(stderr, "\r\033[K%s", text);
    } else {
      std::fprintf(stderr, "%s\n", text);
    }
    std::fflush(stderr);
    shown_ = true;
  }
  ~progress_line() {
    if (shown_ && terminal_) std::fprintf(stderr, "\r\033[K");
  }
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;

 private:
  bool enabled_;
  bool terminal_;
  bool shown_ = false;
  stopwatch clock_;
};

// Comma-separated globs: a name is selected when any of them matches.
bool matches_any(std::string_view patterns, std::string_view name) {
  std::size_t start = 0;
  while (start <= patterns.size()) {
    const std::size_t comma = std::min(patterns.find(',', start), patterns.size());
    if (glob_match(patterns.substr(start, comma - start), name)) return true;
    start = comma + 1;
  }
  return false;
}

std::vector<planned_case> plan(const run_options& options) {
  std::vector<const family*> chosen;
  for (const std::string& name : options.families) {
    if (name == "all") {
      for (const family* f : families()) chosen.push_back(f);
    } else {
      chosen.push_back(&find_family(name));
    }
  }
  std::vector<planned_case> cases;
  for (const family* f : chosen) {
    for (const variant_info& v : f->variants()) {
      if (v.where != options.where || !matches_any(options.variant_glob, v.name)) continue;
      if (options.sizes.empty() && options.parameters.empty()) {
        const std::vector<problem_spec> suite = f->default_cases(v);
        for (const problem_spec& problem : suite) cases.push_back({f, v, problem});
        if (!suite.empty()) continue;
      }
      const auto sizes = options.sizes.empty() ? f->default_sizes(v) : options.sizes;
      const auto configs = f->configurations(v, options.parameters);
      for (const size_spec& size : sizes) {
        for (const std::string& config : configs) cases.push_back({f, v, {size, config}});
      }
    }
  }
  if (cases.empty()) {
    throw usage_error("no " + std::string(to_string(options.where)) + " variant matches '" + options.variant_glob +
                      "' (see: swath list)");
  }
  return cases;
}

// Refuse sizes that cannot fit before anything runs, so a bad size never leaves half a result.
void check_memory(const std::vector<planned_case>& cases, backend where) {
  const std::int64_t available =
      where == backend::cuda ? gpu_free_memory_bytes() : query_cpu().memory_bytes;
  for (const planned_case& c : cases) {
    if (!c.owner->unsupported(c.variant, c.problem).empty()) continue;
    const std::int64_t needed = c.owner->footprint_bytes(c.variant, c.problem);
    if (needed > available) {
      throw out_of_memory_error(std::string("size ") + c.problem.text() + " needs " +
                                format_bytes(static_cast<double>(needed)) + " for " + std::string(c.variant.name) +
                                " but the " + (where == backend::cuda ? "device has " : "host has ") +
                                format_bytes(static_cast<double>(available)) +
                                (where == backend::cuda ? " free" : " in all"));
    }
  }
}

void derive(result_row& row, const ceilings& limits) {
  if (row.status != "ok" || row.time.repetitions == 0) return;
  const double seconds = row.time.median_s;
  row.gbps = row.work.bytes / seconds * 1e-9;
  row.gflops = row.work.flops / seconds * 1e-9;
  row.gitems = row.work.items / seconds * 1e-9;
  row.intensity = row.work.bytes > 0 ? row.work.flops / row.work.bytes : 0;
  row.ceiling_gbps = limits.bandwidth_gbps(row.variant.bound);
  const auto compute = limits.compute_gflops(row.variant.where, row.variant.bound);
  if (!row.ceiling_gbps) return;
  // Roofline: attainable = min(compute peak, intensity × bandwidth).
  const double memory_roof = row.intensity * *row.ceiling_gbps;
  if (row.work.flops == 0 || !compute || memory_roof < *compute) {
    switch (row.variant.bound) {
      case ceiling_kind::device_memory:
      case ceiling_kind::host_memory:
      case ceiling_kind::host_memory_one_core: row.bound = "memory"; break;
      case ceiling_kind::device_memory_read: row.bound = "memory read"; break;
      default: row.bound = std::string(to_string(row.variant.bound));
    }
    row.percent_of_ceiling = 100.0 * row.gbps / *row.ceiling_gbps;
  } else {
    row.bound = "compute";
    row.percent_of_ceiling = 100.0 * row.gflops / *compute;
  }
}

void compare_with_vendors(std::vector<result_row>& rows) {
  for (result_row& row : rows) {
    if (row.status != "ok" || row.time.repetitions == 0) continue;
    for (const result_row& vendor : rows) {
      if (!vendor.variant.vendor || vendor.status != "ok" || vendor.time.repetitions == 0) continue;
      if (vendor.family != row.family || vendor.variant.where != row.variant.where ||
          vendor.variant.problem != row.variant.problem || vendor.size != row.size || vendor.config != row.config) {
        continue;
      }
      row.vendor_ratio = vendor.time.median_s / row.time.median_s;
      row.vendor_name = std::string(vendor.variant.name);
      break;
    }
  }
}

}  // namespace

int run_report::failures() const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const result_row& r) { return r.status == "failed"; }));
}

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative matcher with backtracking to the last '*'.
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

void check_plan(const run_options& options) { check_memory(plan(options), options.where); }

run_report run(const run_options& options, const ceilings& limits) {
  SWATH_EXPECTS(options.repetitions >= 1, "at least one repetition");
  run_report report;
  report.options = options;
  report.limits = limits;
  report.started_at = now_iso8601();
  const stopwatch clock;
  const std::vector<planned_case> cases = plan(options);
  check_memory(cases, options.where);

  trial_options trial_setup;
  trial_setup.seed = options.seed;
  if (options.where == backend::cuda) {
    const auto gpu = query_gpu();
    trial_setup.rotate_until_bytes = gpu ? 4 * gpu->l2_bytes : 0;
  } else {
    const cpu_info cpu = query_cpu();
    // Capped at 1 GiB: virtual machines sometimes report the host's whole L3 as theirs.
    trial_setup.rotate_until_bytes = std::min<std::int64_t>(4 * std::max(cpu.l3_bytes, cpu.l2_bytes), std::int64_t{1} << 30);
  }

  progress_line progress(options.progress);
  for (std::size_t index = 0; index < cases.size(); ++index) {
    const planned_case& c = cases[index];
    result_row row;
    row.family = std::string(c.owner->name());
    row.variant = c.variant;
    row.size = c.problem.size.text();
    row.config = c.problem.config;
    row.check.tolerance = c.variant.tolerance;
    if (const std::string why = c.owner->unsupported(c.variant, c.problem); !why.empty()) {
      row.status = "skipped";
      row.note = why;
      report.rows.push_back(row);
      continue;
    }
    row.work = c.owner->work(c.variant, c.problem);
    progress.show(index, cases.size(), c, "verifying");
    const stopwatch preparing;
    const auto trial = c.owner->make_trial(c.variant, c.problem, trial_setup);
    row.sets = trial->sets();
    row.cache_resident =
        trial_setup.rotate_until_bytes > 0 &&
        row.sets * c.owner->footprint_bytes(c.variant, c.problem) < trial_setup.rotate_until_bytes;
    trial->poison_outputs();
    row.phases.prepare = preparing.seconds();
    const stopwatch verifying;
    trial->run(0);
    row.check = trial->check();
    row.phases.verify = verifying.seconds();
    if (const auto counted = trial->counted_items()) row.work.items = *counted;
    if (!row.check.passed()) {
      row.status = "failed";
      row.note = row.check.describe();
      report.rows.push_back(row);
      continue;
    }
    row.status = "ok";
    if (row.cache_resident) row.note = "inputs fit in cache: measures the cache, not memory";
    if (options.timed) {
      progress.show(index, cases.size(), c, "timing");
      // Start the rotation at set 1 so that the first timed run does not find set 0 in cache from the check.
      const auto body = [&](int rep) { trial->run((rep + 1) % trial->sets()); };
      const stopwatch timing;
      const auto seconds = trial->timed_on_device()
                               ? time_on_device(body, options.warmup, options.repetitions, trial->stream())
                               : time_on_host(body, options.warmup, options.repetitions);
      row.phases.timing = timing.seconds();
      row.time = summarize(seconds);
    }
    derive(row, limits);
    report.rows.push_back(row);
  }
  compare_with_vendors(report.rows);
  report.elapsed_s = clock.seconds();
  return report;
}

}  // namespace swath::bench
