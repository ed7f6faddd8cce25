// The tuner's file: reading (with refusals), writing, and the nearest-size choice that policy=auto makes.
#include "swath/lab/gemm_tuning.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "json_field.hpp"

#include "dispatch_table.hpp"
#include "swath/lab/gemm.hpp"
#include "swath/bench/ceilings.hpp"
#include "swath/bench/runner.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/timing.hpp"

namespace swath::gemm {

tuning read_tuning(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw usage_error("gemm tuning file '" + path + "' cannot be read");
  nlohmann::json in;
  try {
    in = nlohmann::json::parse(file);
  } catch (const nlohmann::json::parse_error& e) {
    throw usage_error("gemm tuning file '" + path + "' is not JSON: " + e.what());
  }
  tuning found;
  found.gpu = json_field<std::string>(in, "gpu", path);
  found.variant = json_field<std::string>(in, "variant", path);
  found.measured_at = in.value("measured_at", "");
  const auto sizes = json_field<nlohmann::json>(in, "sizes", path);
  if (!sizes.is_array() || sizes.empty()) throw usage_error(path + ": \"sizes\" must be a non-empty array");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::string where = path + ": sizes[" + std::to_string(i) + "]";
    tuned_size entry;
    entry.m = json_field<std::int64_t>(sizes[i], "m", where);
    entry.n = json_field<std::int64_t>(sizes[i], "n", where);
    entry.k = json_field<std::int64_t>(sizes[i], "k", where);
    if (entry.m < 1 || entry.n < 1 || entry.k < 1) throw usage_error(where + ": m, n and k must be at least 1");
    const auto name = json_field<std::string>(sizes[i], "policy", where);
    const auto policy = find_policy(name);
    if (!policy) throw usage_error(where + ": policy \"" + name + "\" is not one of the compiled tile shapes");
    if (!compilable(*policy)) throw usage_error(where + ": policy \"" + name + "\" breaks the kernel's tiling rules");
    entry.policy = *policy;
    entry.gflops = sizes[i].value("gflops", 0.0);
    found.sizes.push_back(entry);
  }
  return found;
}

void write_tuning(const std::string& path, const tuning& found) {
  nlohmann::json out = {{"gpu", found.gpu}, {"variant", found.variant}, {"measured_at", found.measured_at}};
  nlohmann::json sizes = nlohmann::json::array();
  for (const tuned_size& entry : found.sizes) {
    sizes.push_back({{"m", entry.m}, {"n", entry.n}, {"k", entry.k}, {"policy", policy_name(entry.policy)},
                     {"gflops", entry.gflops}});
  }
  out["sizes"] = sizes;
  bench::write_file_atomically(path, out.dump(2) + "\n");
}

tile_policy pick_policy(const tuning& found, std::int64_t m, std::int64_t n, std::int64_t k) {
  SWATH_EXPECTS(!found.sizes.empty(), "a gemm tuning without sizes");
  const auto distance = [&](const tuned_size& s) {
    return std::fabs(std::log(static_cast<double>(m) / static_cast<double>(s.m))) +
           std::fabs(std::log(static_cast<double>(n) / static_cast<double>(s.n))) +
           std::fabs(std::log(static_cast<double>(k) / static_cast<double>(s.k)));
  };
  const tuned_size* best = &found.sizes.front();
  for (const tuned_size& entry : found.sizes) {
    if (distance(entry) < distance(*best)) best = &entry;
  }
  return best->policy;
}

namespace {

// What may win a case, every setting written out (so the table says what ran, whatever the steps'
// models later choose): step 16 (even shares, as the library runs it) wherever there is one product,
// also with tma=on where its 256 × 128 tiles make one wave at least 90% full or two to four waves
// (step 15's kernel won 2048³ and 3072³ on an H200; step 14's lost 2048³ on an H100: the table decides);
// step 17 at each block tile where 256 × 128 tiles make fewer than four waves or it is a batch, its K
// also cut in 2 and 4 where that tile makes under two waves, in 6, 8 and about one wave's count where it
// makes under half a wave, and in 8-128 with the two large tiles where C is small beside K; step 19 at the same places with 2 or 4 warp groups a block (its own list); step
// 20 at the same places where it rewrites an operand; step 21 at three tiles for batches and for many
// tiles over a K of 256 or less; step 18 where M ≤ 16, at several splits.
struct candidate {
  const char* step;
  std::string settings;  // "key=value key=value"
};
std::vector<candidate> candidates_for(const problem& p, int sms) {
  std::vector<candidate> all;
  const auto tiles_of = [&](std::int64_t bm, std::int64_t bn) { return (p.m + bm - 1) / bm * ((p.n + bn - 1) / bn) * p.batch; };
  if (p.batch == 1) {
    all.push_back({"gemm/cuda/16_balanced_tail", "shares=even"});
    const std::int64_t wide_tiles = tiles_of(256, 128);
    // One wave at least 90% full: step 16's lone-wave rule (full_enough, async_pipeline.cuh).
    const bool one_full_wave = wide_tiles <= sms && 10 * wide_tiles >= 9 * static_cast<std::int64_t>(sms);
    if (one_full_wave || (wide_tiles >= 2 * sms && wide_tiles < 4 * sms)) {
      all.push_back({"gemm/cuda/16_balanced_tail", "shares=even tma=on"});
    }
  }
  if (p.batch > 1 || tiles_of(256, 128) < 4 * sms) {
    for (const auto& [bm, bn] : {std::pair{256, 128}, {128, 128}, {64, 256}, {128, 64}, {64, 128}, {64, 64}, {64, 32}}) {
      // 64 × 32 (2 warps of 8 × 4 a thread) where its tiles make under four waves' worth of places:
      // the small products, where the larger tiles leave SMs idle or one warp a scheduler.
      if (bn == 32 && tiles_of(bm, bn) >= 4 * sms) continue;
      const std::string fit = "fit=" + std::to_string(bm) + "x" + std::to_string(bn);
      all.push_back({"gemm/cuda/17_split_k", fit + " splits=1"});
      if (p.batch == 1 && tiles_of(bm, bn) < 2 * sms && p.k >= 64) {
        for (const char* splits : {"2", "4"}) all.push_back({"gemm/cuda/17_split_k", fit + " splits=" + splits});
      }
      // Under half a wave of tiles and K of 256 or more: K cut until the tiles make about one wave of
      // blocks (cuBLAS runs 767³ as 36 tiles of 256 × 64 in 7 splits: ncu, docs/journal/gemm.md), and 6
      // and 8 splits.
      if (p.batch == 1 && 2 * tiles_of(bm, bn) < sms && p.k >= 256) {
        std::vector<std::int64_t> counts{6, 8};
        const std::int64_t one_wave = sms / tiles_of(bm, bn);
        if (one_wave > 4 && one_wave != 6 && one_wave != 8 && one_wave <= 16) counts.push_back(one_wave);
        for (const std::int64_t splits : counts) all.push_back({"gemm/cuda/17_split_k", fit + " splits=" + std::to_string(splits)});
      }
    }
    // Step 19: the tiles of 4 warps or fewer with their warps doubled along K (64 × 64 also
    // quadrupled: 19_sliced_k.cu's list), one split and, where the tile makes under two waves, two.
    // Step 20 where it rewrites an operand (all but op = tn with rows a whole number of 16 bytes
    // apart), one product: step 19's list, then step 17's tiles on the rewritten pair (groups=1, 4
    // splits where under two waves).
    constexpr std::tuple<int, int, int> sliced[] = {{128, 128, 2}, {128, 64, 2}, {64, 128, 2}, {64, 64, 2}, {64, 64, 4}};
    constexpr std::tuple<int, int, int> split_on_rewritten[] = {{256, 128, 1}, {128, 128, 1}, {64, 128, 1}, {64, 64, 1}};
    const auto add_tiled = [&](const char* step, int bm, int bn, int groups, bool split) {
      const std::string fit = "fit=" + std::to_string(bm) + "x" + std::to_string(bn) + " groups=" + std::to_string(groups);
      all.push_back({step, fit + " splits=1"});
      if (split && tiles_of(bm, bn) < 2 * sms && p.k >= 128) {
        all.push_back({step, fit + (groups == 1 ? " splits=4" : " splits=2")});
      }
    };
    for (const auto& [bm, bn, groups] : sliced) add_tiled("gemm/cuda/19_sliced_k", bm, bn, groups, p.batch == 1);
    const bool rewrites = !(p.trans_a && p.lda % 4 == 0) || p.trans_b || p.ldb % 4 != 0;
    if (rewrites && p.batch == 1) {
      for (const auto& [bm, bn, groups] : sliced) add_tiled("gemm/cuda/20_rewritten_operands", bm, bn, groups, true);
      for (const auto& [bm, bn, groups] : split_on_rewritten) add_tiled("gemm/cuda/20_rewritten_operands", bm, bn, groups, true);
    }
    if (tiles_of(128, 128) < sms && p.k >= 4096) {
      for (const char* splits : {"8", "16", "32", "64", "128"}) {
        all.push_back({"gemm/cuda/17_split_k", std::string("fit=128x128 splits=") + splits});
        all.push_back({"gemm/cuda/17_split_k", std::string("fit=256x128 splits=") + splits});
        all.push_back({"gemm/cuda/19_sliced_k", std::string("fit=128x128 groups=2 splits=") + splits});
      }
    }
  }
  // Steps 17 and 19 wherever they split K, again with the parts' pass launched as the tiles'
  // programmatic dependent (pass=dependent: its launch hidden behind the tiles' end). Step 22 is not a
  // candidate: at 32³-768³ on an H200 it ran 1.17-1.54x slower than step 17 at the same tile and splits
  // (22_last_split_adds.cu's outcome), so timing it only lengthened the tuning.
  const std::size_t listed = all.size();
  for (std::size_t i = 0; i < listed; ++i) {
    const std::string_view step = all[i].step;
    if ((step == "gemm/cuda/17_split_k" || step == "gemm/cuda/19_sliced_k") && !all[i].settings.ends_with(" splits=1")) {
      all.push_back({all[i].step, all[i].settings + " pass=dependent"});
    }
  }
  // Step 21 where a block streams several tiles: batches, and products of many tiles over a short K.
  if (p.batch > 1 || (p.k <= 256 && tiles_of(64, 64) >= 8 * sms)) {
    for (const char* fit : {"128x128", "64x128", "64x64"}) all.push_back({"gemm/cuda/21_streamed_tiles", std::string("fit=") + fit});
  }
  const bool skinny = std::any_of(variants().begin(), variants().end(), [&](const variant& v) {
    return v.info.name == "gemm/cuda/18_skinny" && v.supports(p).ok();
  });
  if (skinny) {
    for (const char* splits : {"8", "16", "32", "64"}) all.push_back({"gemm/cuda/18_skinny", std::string("splits=") + splits});
  }
  return all;
}

// "op=tn batch=4" and "fit=64x64 splits=auto" as --param choices, one value each.
std::vector<bench::parameter_choice> choices_of(const std::string& config, const std::string& settings) {
  std::vector<bench::parameter_choice> out;
  std::stringstream words(config + " " + settings);
  std::string word;
  while (words >> word) out.push_back(bench::parse_parameter(word));
  return out;
}

}  // namespace

dispatch_tuning tune_dispatch(const std::vector<bench::problem_spec>& cases, int repetitions, int warmup, bool progress,
                              const bench::ceilings& limits, const std::string& revision, const std::string& checkpoint) {
  const std::optional<gpu_info> gpu = query_gpu();
  if (!gpu) throw usage_error("swath tune gemm --dispatch: no CUDA device");
  dispatch_tuning out;
  dispatch_table table;
  table.gpu = gpu->name;
  table.capability = gpu->compute_major * 10 + gpu->compute_minor;
  table.revision = revision;
  char line[320];
  std::snprintf(line, sizeof line, "%-22s %-24s %-32s %9s %9s %7s %9s\n", "size", "config", "choice", "ms", "cuBLAS", "ratio",
                "case s");
  out.summary += line;
  int index = 0;
  for (const bench::problem_spec& spec : cases) {
    ++index;
    const problem p = make_problem(find_variant("gemm/cuda/17_split_k"), spec);
    bench::run_options options;
    options.families = {"gemm"};
    options.sizes = {spec.size};
    options.where = backend::cuda;
    options.repetitions = repetitions;
    options.warmup = warmup;
    options.progress = false;
    const auto run_one = [&](const std::string& step, const std::string& settings) {
      options.variant_glob = step;
      options.parameters = choices_of(spec.config, settings);
      bench::run_report report = bench::run(options, limits);
      if (table.measured_at.empty()) table.measured_at = report.started_at;
      for (bench::result_row& row : report.rows) out.rows.push_back(row);
      return report.rows;
    };
    if (progress) std::fprintf(stderr, "[%d/%zu] %s %s\n", index, cases.size(), spec.size.text().c_str(), spec.config.c_str());
    const stopwatch case_clock;  // the case's wall time: its candidates' trials and checks as well as their timing
    const auto vendor = run_one("gemm/cuda/vendor_cublas", "");
    const double vendor_ms = !vendor.empty() && vendor.front().status == "ok" ? vendor.front().time.median_s * 1e3 : 0;
    tuned_choice best;
    double best_ms = 0;
    for (const candidate& c : candidates_for(p, gpu->sm_count)) {
      for (const bench::result_row& row : run_one(c.step, c.settings)) {
        if (row.status == "failed") ++out.failures;
        if (row.status != "ok") continue;
        const double ms = row.time.median_s * 1e3;
        if (best_ms > 0 && ms >= best_ms) continue;
        best_ms = ms;
        best.step = c.step;
        chosen_settings settings;
        for (const bench::parameter_choice& choice : choices_of("", c.settings)) settings[choice.key] = choice.values.front();
        best.settings = std::make_shared<const chosen_settings>(std::move(settings));
      }
    }
    if (best_ms == 0) continue;  // nothing ran: the case is left to the rules
    best.m = p.m, best.n = p.n, best.k = p.k, best.batch = p.batch;
    best.trans_a = p.trans_a, best.trans_b = p.trans_b;
    best.ms = best_ms, best.vendor_ms = vendor_ms;
    std::string written;
    for (const auto& [key, value] : *best.settings) written += (written.empty() ? "" : " ") + key + "=" + value;
    std::snprintf(line, sizeof line, "%-22s %-24s %-32s %9.4f %9.4f %7.3f %9.1f\n", spec.size.text().c_str(),
                  spec.config.c_str(), (best.step.substr(best.step.rfind('/') + 1) + " " + written).c_str(), best_ms,
                  vendor_ms, vendor_ms > 0 ? vendor_ms / best_ms : 0.0, case_clock.seconds());
    out.summary += line;
    if (progress) std::fputs(line, stderr);
    table.choices.push_back(std::move(best));
    if (!checkpoint.empty() && out.failures == 0) bench::write_file_atomically(checkpoint, format_dispatch_table(table));
  }
  out.json = format_dispatch_table(table);
  out.started_at = table.measured_at;
  return out;
}

std::string tuning_path(const std::string& gpu_name) {
  if (const char* explicit_path = std::getenv("SWATH_GEMM_TUNING"); explicit_path != nullptr && *explicit_path != 0) {
    return explicit_path;
  }
  return bench::cache_directory() + "/gemm-tuning-" + slug(gpu_name) + ".json";
}

}  // namespace swath::gemm
