// swath: the command-line tool. Every subcommand reads the same registry tables the tests use.
// Only this file turns errors into exit codes:
//   0 success, 1 a verification failed, 2 bad input, 3 out of memory, 4 CUDA or other runtime error.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "swath/bench/ceilings.hpp"
#include "swath/bench/family.hpp"
#include "swath/bench/runner.hpp"
#include "swath/build_info.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/lab/gemm.hpp"
#include "swath/lab/gemm_tuning.hpp"
#include "swath/lab/raytracer.hpp"
#include "swath/schedule/block_order.hpp"
#include "swath/schedule/explain.hpp"
#if SWATH_CLI_DISTRIBUTED
#include "distributed_bench.hpp"
#endif

namespace {

using namespace swath;

enum exit_code { success = 0, verification_failed = 1, bad_input = 2, out_of_memory = 3, runtime_failure = 4 };

// "swath", or "swath (rank 1)" under --distributed: which process an error came from.
std::string error_prefix = "swath";

backend resolve_device(const std::string& requested) {
  if (requested == "cpu") return backend::cpu;
  std::string why;
  const auto gpu = query_gpu(&why);
  if (requested == "auto") return gpu ? backend::cuda : backend::cpu;
  if (!gpu) throw usage_error("--device cuda: " + why);
  return backend::cuda;
}

std::string ceilings_key(backend where) {
  if (where == backend::cuda) return query_gpu()->name;
  return "cpu " + query_cpu().model;
}

bench::ceilings obtain_ceilings(backend where, bool use_cache, bool quick, bool progress) {
  const std::string key = ceilings_key(where);
  if (use_cache) {
    if (auto cached = bench::load_ceilings(key)) return *cached;
  }
  bench::measure_options options;
  options.gpu = where == backend::cuda;
  options.cpu = where == backend::cpu;
  options.quick = quick;
  bench::ceilings values = bench::measure_ceilings(options, progress);
  values.device = key;
  if (quick) {
    values.source += " (quick)";  // rough figures: not cached
  } else {
    bench::save_ceilings(values);
  }
  return values;
}

std::vector<bench::size_spec> parse_sizes(const std::vector<std::string>& texts) {
  std::vector<bench::size_spec> sizes;
  for (const std::string& text : texts) sizes.push_back(bench::parse_size(text));
  return sizes;
}

void print_info() {
  std::printf("swath %s (%s, %s build, %s)\n", build_info::version, build_info::git_revision, build_info::build_type,
              cuda_built() ? "CUDA backend" : "CPU backend only");
  const cpu_info cpu = query_cpu();
  std::printf("CPU   %s: %d logical cores, %d OpenMP threads, L1d %s, L2 %s, L3 %s, memory %s\n", cpu.model.c_str(),
              cpu.logical_cores, cpu.openmp_threads, format_bytes(static_cast<double>(cpu.l1d_bytes)).c_str(),
              format_bytes(static_cast<double>(cpu.l2_bytes)).c_str(), format_bytes(static_cast<double>(cpu.l3_bytes)).c_str(),
              format_bytes(static_cast<double>(cpu.memory_bytes)).c_str());
  std::string why;
  if (const auto gpu = query_gpu(&why)) {
    std::printf("GPU   %s: compute %d.%d, %d SMs, L2 %s, memory %s, SM clock %d MHz, memory clock %d MHz, %d-bit bus\n",
                gpu->name.c_str(), gpu->compute_major, gpu->compute_minor, gpu->sm_count,
                format_bytes(static_cast<double>(gpu->l2_bytes)).c_str(),
                format_bytes(static_cast<double>(gpu->memory_bytes)).c_str(), gpu->sm_clock_khz / 1000,
                gpu->memory_clock_khz / 1000, gpu->memory_bus_bits);
  } else {
    std::printf("GPU   none (%s)\n", why.c_str());
  }
  for (const backend where : {backend::cuda, backend::cpu}) {
    if (where == backend::cuda && !query_gpu()) continue;
    const std::string key = ceilings_key(where);
    if (const auto cached = bench::load_ceilings(key)) {
      std::printf("ceilings for %s, measured %s:\n%s\n", key.c_str(), cached->measured_at.c_str(),
                  nlohmann::json(*cached).dump(2).c_str());
    } else {
      std::printf("ceilings for %s: not measured yet (run: swath roofline --device %s)\n", key.c_str(),
                  std::string(to_string(where)).c_str());
    }
  }
}

void print_list(const std::string& family_name) {
  for (const bench::family* f : bench::families()) {
    if (family_name != "all" && f->name() != family_name) continue;
    std::printf("%s: %s\n  sizes: %s\n  parameters (--param key=value[,value...]):%s\n", std::string(f->name()).c_str(),
                std::string(f->summary()).c_str(), std::string(f->size_help()).c_str(),
                f->parameter_lines().empty() ? " none" : "");
    for (const std::string& line : f->parameter_lines()) std::printf("    %s\n", line.c_str());
    for (const variant_info& v : f->variants()) {
      std::printf("  %-42s %s%s\n", std::string(v.name).c_str(), v.vendor ? "[vendor] " : "",
                  std::string(v.summary).c_str());
    }
  }
  if (family_name != "all") bench::find_family(family_name);  // unknown names are an error
  if (!cuda_built()) std::printf("(this build has no CUDA backend: CUDA variants are not listed)\n");
}

void print_ceilings(const bench::ceilings& values) {
  std::printf("ceilings of %s (%s, %s)\n", values.device.c_str(), values.source.c_str(), values.measured_at.c_str());
  if (values.gpu) {
    const auto& g = *values.gpu;
    std::printf("  device copy        %8.1f GB/s   (kernel %.1f, cudaMemcpy %.1f; bytes read + written)\n", g.copy_gbps,
                g.copy_kernel_gbps, g.copy_memcpy_gbps);
    std::printf("  device read        %8.1f GB/s\n", g.read_gbps);
    std::printf("  FP32 FMA           %8.0f GFLOP/s (%.1f%% of the %.0f GFLOP/s from SMs x lanes x 2 x clock)\n",
                g.fp32_fma_gflops, 100.0 * g.fp32_fma_gflops / g.fp32_theoretical_gflops, g.fp32_theoretical_gflops);
    std::printf("  cuBLAS SGEMM       %8.0f GFLOP/s (FP32, no TF32)\n", g.sgemm_gflops);
    std::printf("  host to device     %8.1f GB/s   (pinned)\n", g.h2d_pinned_gbps);
    std::printf("  device to host     %8.1f GB/s   (pinned)\n", g.d2h_pinned_gbps);
  }
  if (values.cpu) {
    const auto& c = *values.cpu;
    std::printf("  CPU copy           %8.1f GB/s all %d threads, %.1f GB/s one core (bytes read + written)\n",
                c.copy_gbps_all_cores, c.threads, c.copy_gbps_one_core);
    std::printf("  CPU FP32 FMA       %8.1f GFLOP/s all threads, %.1f GFLOP/s one core\n", c.fma_gflops_all_cores,
                c.fma_gflops_one_core);
  }
}

struct bench_arguments {
  std::string family = "all";
  std::vector<std::string> sizes;
  std::vector<std::string> parameters;
  std::string variants = "*";
  std::string device = "auto";
  int reps = 20;
  int warmup = 3;
  std::string json, csv, md;
  bool cached_ceilings = false;
  bool quick_ceilings = false;
  bool quiet = false;
  std::uint64_t seed = 0x5eed;
  // The grid over several GPUs or MPI ranks (stencil only): distributed_bench.hpp.
  bool distributed = false;
  int gpus = 0;
  std::string scaling = "strong";
  bool overlap = false;
};

int run_bench(const bench_arguments& args, bool timed) {
  if (args.distributed || args.gpus > 0) {
#if SWATH_CLI_DISTRIBUTED
    if (args.family != "stencil") throw usage_error("--distributed and --gpus run the stencil family: swath bench stencil --gpus N");
    if (!timed) throw usage_error("--distributed and --gpus belong to bench (which verifies every rank first)");
    cli::distributed_arguments d;
    d.mpi = args.distributed;
    d.gpus = args.gpus;
    d.device = args.device;
    d.sizes = args.sizes;
    d.parameters = args.parameters;
    d.scaling = args.scaling;
    d.reps = args.reps;
    d.warmup = args.warmup;
    d.json = args.json;
    d.overlap = args.overlap;
    d.quiet = args.quiet;
    d.seed = args.seed;
    return cli::run_distributed_bench(d);
#else
    throw usage_error("--distributed and --gpus: this build has no swath::distributed (configure with SWATH_BUILD_DISTRIBUTED=ON)");
#endif
  }
  bench::run_options options;
  options.families = {args.family};
  options.sizes = parse_sizes(args.sizes);
  for (const std::string& text : args.parameters) options.parameters.push_back(bench::parse_parameter(text));
  options.variant_glob = args.variants;
  options.where = resolve_device(args.device);
  options.repetitions = args.reps;
  options.warmup = args.warmup;
  options.timed = timed;
  options.seed = args.seed;
  options.progress = !args.quiet;
  bench::check_plan(options);
  bench::ceilings limits;
  if (timed) {
    limits = obtain_ceilings(options.where, args.cached_ceilings, args.quick_ceilings, options.progress);
  } else {
    limits.source = "not measured (verify only)";
    limits.device = ceilings_key(options.where);
  }
  const bench::run_report report = bench::run(options, limits);
  std::fputs(bench::format_table(report).c_str(), stdout);
  if (!args.json.empty()) bench::write_file_atomically(args.json, bench::to_json(report).dump(2) + "\n");
  if (!args.csv.empty()) bench::write_file_atomically(args.csv, bench::format_csv(report));
  if (!args.md.empty()) bench::write_file_atomically(args.md, bench::format_markdown(report));
  const int failures = report.failures();
  if (failures > 0) {
    std::fprintf(stderr, "swath: %d case%s failed verification\n", failures, failures == 1 ? "" : "s");
    return verification_failed;
  }
  return success;
}

struct tune_arguments {
  std::string family = "gemm";
  std::vector<std::string> sizes;
  std::vector<std::string> parameters;
  int reps = 20;
  int warmup = 3;
  std::string out;
  std::string json;  // --dispatch: every candidate's row
  bool quiet = false;
  bool dispatch = false;
};

// swath tune gemm --dispatch: the steps' candidates at each case of the shape suite (or the sizes and
// op=/batch= given), verified and timed beside cuBLAS; the fastest verified one a case is written as a
// dispatch table (src/gemm/dispatch_table.hpp). SWATH_GEMM_DISPATCH=<file> makes swath::sgemm use it;
// committed under src/gemm/dispatch/, it is compiled in.
int run_tune_dispatch(const tune_arguments& args) {
  std::vector<bench::problem_spec> cases;
  if (args.sizes.empty()) {
    if (!args.parameters.empty()) throw usage_error("swath tune gemm --dispatch: --param goes with --size");
    cases = gemm::shape_suite();
  } else {
    std::vector<std::string> ops = {"nn"}, batches = {"1"};
    for (const std::string& text : args.parameters) {
      const bench::parameter_choice choice = bench::parse_parameter(text);
      if (choice.key == "op") {
        ops = choice.values;
      } else if (choice.key == "batch") {
        batches = choice.values;
      } else {
        throw usage_error("swath tune gemm --dispatch: --param takes op= and batch= (the tuner chooses the settings)");
      }
    }
    for (const bench::size_spec& size : parse_sizes(args.sizes)) {
      for (const std::string& op : ops) {
        for (const std::string& batch : batches) {
          cases.push_back({size, "op=" + op + (batch == "1" ? "" : " batch=" + batch)});
        }
      }
    }
  }
  const backend where = resolve_device("cuda");
  const bench::ceilings limits = obtain_ceilings(where, true, false, !args.quiet);
  const std::string path =
      args.out.empty() ? bench::cache_directory() + "/gemm-dispatch-" + slug(query_gpu()->name) + ".json" : args.out;
  const gemm::dispatch_tuning found =
      gemm::tune_dispatch(cases, args.reps, args.warmup, !args.quiet, limits, build_info::git_revision, path);
  std::fputs(found.summary.c_str(), stdout);
  if (!args.json.empty()) {  // written even when a candidate failed: its row says how
    bench::run_report every;
    every.rows = found.rows;
    every.limits = limits;
    every.started_at = found.started_at;
    every.options.families = {"gemm"};
    every.options.where = where;
    every.options.variant_glob = "the tuner's candidates and cuBLAS, one run each";
    every.options.repetitions = args.reps;
    every.options.warmup = args.warmup;
    bench::write_file_atomically(args.json, bench::to_json(every).dump(2) + "\n");
  }
  if (found.failures > 0) {
    std::fprintf(stderr, "swath: %d candidate%s failed verification: the table holds the cases before the first\n",
                 found.failures, found.failures == 1 ? "" : "s");
    return verification_failed;
  }
  bench::write_file_atomically(path, found.json);
  std::printf("wrote %s (SWATH_GEMM_DISPATCH=%s makes swath::sgemm use it; under src/gemm/dispatch/ it is compiled in)\n",
              path.c_str(), path.c_str());
  return success;
}

// swath tune gemm: every compiled tile policy of the tunable step at each size (verified, then timed
// like bench), the fastest per size written where policy=auto reads it. A policy that fails
// verification anywhere stops the tuner before it writes anything.
int run_tune(const tune_arguments& args) {
  if (args.family == "gemm" && args.dispatch) return run_tune_dispatch(args);
  if (args.family != "gemm") {
    throw usage_error("swath tune: '" + args.family + "' has no tuner (gemm: the tile policies of gemm/cuda/08_double_buffered)");
  }
  if (!args.json.empty()) throw usage_error("swath tune gemm: --json goes with --dispatch");
  const backend where = resolve_device("cuda");
  const gemm::tuning defaults;
  bench::run_options options;
  options.families = {"gemm"};
  options.sizes = parse_sizes(args.sizes);  // none: the family's suite for the step (the SGEMM target sizes)
  options.parameters = {bench::parse_parameter("policy=" + gemm::policy_names(","))};
  options.variant_glob = defaults.variant;
  options.where = where;
  options.repetitions = args.reps;
  options.progress = !args.quiet;
  bench::check_plan(options);
  const bench::ceilings limits = obtain_ceilings(where, true, false, options.progress);
  const bench::run_report report = bench::run(options, limits);
  std::fputs(bench::format_table(report).c_str(), stdout);
  if (report.failures() > 0) {
    std::fprintf(stderr, "swath: %d tile polic%s failed verification: nothing written\n", report.failures(),
                 report.failures() == 1 ? "y" : "ies");
    return verification_failed;
  }
  gemm::tuning found;
  found.gpu = query_gpu()->name;
  found.measured_at = report.started_at;
  std::map<std::string, const bench::result_row*> best;  // by size text
  std::vector<std::string> order;
  for (const bench::result_row& row : report.rows) {
    if (row.status != "ok") continue;
    auto [at, inserted] = best.try_emplace(row.size, &row);
    if (inserted) order.push_back(row.size);
    if (row.gflops > at->second->gflops) at->second = &row;
  }
  std::printf("\n%-18s %-12s %10s\n", "size", "best policy", "GFLOP/s");
  for (const std::string& size : order) {
    const bench::result_row& row = *best.at(size);
    const auto extents = bench::parse_size(size).extents;
    gemm::tuned_size entry;
    entry.m = extents[0];
    entry.n = extents.size() == 3 ? extents[1] : extents[0];
    entry.k = extents.size() == 3 ? extents[2] : extents[0];
    const std::string policy = row.config.substr(row.config.find('=') + 1);
    entry.policy = *gemm::find_policy(policy);
    entry.gflops = row.gflops;
    found.sizes.push_back(entry);
    std::printf("%-18s %-12s %10.0f\n", size.c_str(), policy.c_str(), row.gflops);
  }
  if (found.sizes.empty()) throw usage_error("swath tune: no size could be run");
  const std::string path = args.out.empty() ? gemm::tuning_path(found.gpu) : args.out;
  gemm::write_tuning(path, found);
  std::printf("wrote %s (policy=auto reads it%s)\n", path.c_str(),
              args.out.empty() ? "" : " when SWATH_GEMM_TUNING names it");
  return success;
}

struct render_arguments {
  std::string scene;
  std::string out = "render.png";
  int width = 0, height = 0, samples = 0;  // 0: the scene's own
  std::int64_t spheres = -1;              // -1: the scene's own
  std::string shading, shadows;
  std::string device = "auto";
  std::string variant;  // default: the BVH step of the device
  int repeat = 1;
  std::string json;
  bool quiet = false;
};

// A bar on stderr that redraws in place on a terminal and prints nothing otherwise.
class render_progress {
 public:
  render_progress(int total, bool enabled) : total_(total), enabled_(enabled && isatty(STDERR_FILENO) == 1) {}
  void operator()(int done) const {
    if (!enabled_) return;
    const int filled = static_cast<int>(40LL * done / total_);
    std::fprintf(stderr, "\r[%s%s] %3d%% of %d rows", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(40 - filled), ' ').c_str(), static_cast<int>(100LL * done / total_), total_);
    if (done == total_) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  int total_;
  bool enabled_;
};

int run_render(const render_arguments& args) {
  const backend where = resolve_device(args.device);
  const std::string variant_name =
      !args.variant.empty() ? args.variant : where == backend::cuda ? "raytracer/cuda/05_lbvh" : "raytracer/cpu/02_bvh_sah";
  const raytracer::variant& v = raytracer::find_variant(variant_name);
  if (v.info.where != where) {
    throw usage_error(variant_name + " runs on the " + std::string(to_string(v.info.where)) + " (--device " +
                      std::string(to_string(v.info.where)) + ")");
  }
  // The scene's own settings, then the flags over them; make_problem checks every value.
  std::string config = "scene=" + args.scene;
  if (args.spheres >= 0) config += " spheres=" + std::to_string(args.spheres);
  if (args.samples > 0) config += " samples=" + std::to_string(args.samples);
  if (!args.shading.empty()) config += " shading=" + args.shading;
  if (!args.shadows.empty()) config += " shadows=" + args.shadows;
  const raytracer::problem p = raytracer::make_problem(config, args.width, args.height);
  const int width = p.settings.width, height = p.settings.height;
  if (const support s = v.supports(p); !s.ok()) throw usage_error(variant_name + " cannot render this scene: " + std::string(s.why));
  if (!args.quiet) {
    std::fprintf(stderr, "rendering %s: %zu spheres, %dx%d, %d sample%s per pixel, %s%s, with %s\n", args.scene.c_str(),
                 p.scene_data->spheres.size(), width, height, p.settings.samples, p.settings.samples == 1 ? "" : "s",
                 p.settings.mode == raytracer::shading::flat ? "flat shading" : "Phong",
                 p.settings.mode == raytracer::shading::phong && p.settings.shadows ? " with shadows" : "", variant_name.c_str());
  }
  std::vector<raytracer::rgba> pixels;
  const render_progress progress(height, !args.quiet);
  const raytracer::render_stats stats = raytracer::render(v, p, pixels, progress, args.repeat);
  raytracer::write_png(args.out, pixels, width, height);
  std::printf("%llu rays in %.3f ms: %.3f G rays/s%s", static_cast<unsigned long long>(stats.rays), stats.trace_s * 1e3,
              static_cast<double>(stats.rays) / stats.trace_s * 1e-9,
              stats.frames_timed > 1 ? (" (median of " + std::to_string(stats.frames_timed) + " frames)").c_str() : "");
  if (stats.build_s > 1e-5) std::printf("; tree build %.3f ms", stats.build_s * 1e3);
  std::printf("\nwrote %s\n", args.out.c_str());
  if (!args.json.empty()) {
    const nlohmann::json record = {
        {"variant", variant_name}, {"scene", args.scene}, {"spheres", p.scene_data->spheres.size()},
        {"width", width}, {"height", height}, {"samples", p.settings.samples}, {"shadows", p.settings.shadows},
        {"repetitions", stats.frames_timed}, {"rays", stats.rays}, {"build_ms", stats.build_s * 1e3},
        {"trace_ms", stats.trace_s * 1e3}, {"grays_per_s", static_cast<double>(stats.rays) / stats.trace_s * 1e-9},
        {"environment", bench::environment_json()}};
    bench::write_file_atomically(args.json, record.dump(2) + "\n");
  }
  return success;
}

void add_selection_options(CLI::App* command, bench_arguments& args) {
  command->add_option("family", args.family, "family name, or all")->capture_default_str();
  command->add_option("--size,-s", args.sizes,
                      "problem size, repeatable: N, 2^k, WxH or WxHxD (default: each variant's suite)");
  command->add_option("--param,-p", args.parameters,
                      "family parameter, repeatable: key=value[,value...] (see: swath list <family>)");
  command->add_option("--variants,-v", args.variants, "globs on variant names, comma-separated: '*cuda/05*,*vendor*'")->capture_default_str();
  command->add_option("--device,-d", args.device, "cpu, cuda, or auto (the GPU when there is one)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  command->add_option("--seed", args.seed, "seed of the random inputs");
  command->add_flag("--quiet,-q", args.quiet, "no progress line on stderr");
}

struct explain_arguments {
  std::string family = "stencil2d";
  std::vector<std::string> size;
  int radius = 1;
  std::string shape = "star";
  std::string type = "float";
  std::string cache = "L2";
  int ways = -1;
  int threads = 1;
  bool json = false;
};

struct walk_arguments {
  std::vector<std::string> size;
  std::string order = "column";
  std::int64_t width = 4;
  std::vector<std::int64_t> tile = {4, 3};
  bool json = false;
};

void print_explanation(const explain_arguments& explain_args) {
  schedule::stencil_question question;
  if (explain_args.size.size() != 2) throw usage_error("--size takes a width and a height: --size W H");
  const auto width = bench::parse_size(explain_args.size[0]);
  const auto height = bench::parse_size(explain_args.size[1]);
  question.grid = {width.count(), height.count()};
  question.radius = explain_args.radius;
  question.box = explain_args.shape == "box";
  question.element_bytes = explain_args.type == "double" ? 8 : 4;
  question.threads = explain_args.threads;
  const std::string& cache = explain_args.cache;
  question.cache_name = cache;
  if (cache == "gpu-L2") {
    const auto gpu = query_gpu();
    if (!gpu) throw usage_error("--cache gpu-L2: no CUDA device");
    question.cache_bytes = static_cast<double>(gpu->l2_bytes);
  } else {
    const cache_size named = parse_cache_size(cache);  // L1-L3 with their ways, or bytes
    question.cache_bytes = named.bytes;
    question.ways = named.ways;
  }
  if (explain_args.ways >= 0) question.ways = explain_args.ways;
  if (question.cache_bytes <= 0) throw usage_error("the " + cache + " cache size is unknown on this machine: give --cache BYTES");
  const auto answer = schedule::explain_stencil(question);
  std::fputs(explain_args.json ? (answer.dump(2) + "\n").c_str() : schedule::format_explanation(answer).c_str(), stdout);
}

void print_walk(const walk_arguments& walk_args) {
  const schedule::extent2d grid{bench::parse_size(walk_args.size[0]).count(), bench::parse_size(walk_args.size[1]).count()};
  if (grid.count() > 100000) throw usage_error("schedule walk prints every element: keep the grid under 100000");
  for (const std::int64_t t : walk_args.tile) {
    if (t < 1) throw usage_error("--tile extents must be at least 1");
  }
  std::vector<std::int64_t> order;
  const auto record = [&](const auto& s) {
    for (std::int64_t i = 0; i < grid.count(); ++i) order.push_back(s.map(i, grid));
  };
  if (walk_args.order == "row_major") record(schedule::row_major{});
  if (walk_args.order == "tiled") record(schedule::tiled{walk_args.tile[0], walk_args.tile[1]});
  if (walk_args.order == "column") record(schedule::column{walk_args.width});
  if (walk_args.order == "zigzag") record(schedule::zigzag{walk_args.width});
  if (walk_args.json) {
    std::printf("%s\n", nlohmann::json({{"width", grid.width}, {"height", grid.height}, {"order", walk_args.order},
                                        {"visits", order}}).dump().c_str());
  } else {
    std::vector<std::int64_t> step(static_cast<std::size_t>(grid.count()));
    for (std::size_t i = 0; i < order.size(); ++i) step[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
    const int digits = static_cast<int>(std::to_string(grid.count() - 1).size());
    for (std::int64_t y = 0; y < grid.height; ++y) {
      for (std::int64_t x = 0; x < grid.width; ++x) {
        std::printf("%*lld ", digits, static_cast<long long>(step[static_cast<std::size_t>(y * grid.width + x)]));
      }
      std::printf("\n");
    }
  }
}

void measure_and_cache_ceilings(const std::string& roofline_device, bool roofline_quick, const std::string& roofline_json) {
  const backend where = resolve_device(roofline_device);
  bench::measure_options options;
  options.gpu = where == backend::cuda;
  options.cpu = true;
  options.quick = roofline_quick;
  bench::ceilings values = bench::measure_ceilings(options, true);
  values.device = ceilings_key(where);
  if (where == backend::cuda) {
    // The CPU half goes to the CPU's own cache entry.
    bench::ceilings cpu_part = values;
    cpu_part.gpu.reset();
    cpu_part.device = ceilings_key(backend::cpu);
    bench::save_ceilings(cpu_part);
  }
  bench::save_ceilings(values);
  print_ceilings(values);
  if (!roofline_json.empty()) bench::write_file_atomically(roofline_json, nlohmann::json(values).dump(2) + "\n");
  std::printf("cached in %s\n", bench::ceilings_cache_path(values.device).c_str());
}


// The command line's work; main wraps it in MPI's start and end under --distributed.
int run_command(int argc, char** argv) {
  CLI::App app{"swath: data-parallel kernels as numbered optimisation steps, verified against a float64\n"
               "reference and measured against this machine's own ceilings and the vendor libraries."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("swath ") + build_info::version + " (" + build_info::git_revision + ")");

  auto* info = app.add_subcommand("info", "the machine: CPU, GPU, caches, cached ceilings");

  std::string list_family = "all";
  auto* list = app.add_subcommand("list", "variants with their summaries");
  list->add_option("family", list_family, "family name, or all")->capture_default_str();

  bench_arguments verify_args;
  auto* verify = app.add_subcommand("verify", "run every selected variant once and check it against the float64 reference");
  add_selection_options(verify, verify_args);

  bench_arguments bench_args;
  auto* bench = app.add_subcommand("bench", "verify, then time the selected variants (median of --reps repetitions)");
  add_selection_options(bench, bench_args);
  bench->add_option("--reps,-r", bench_args.reps, "timed repetitions per case")->check(CLI::Range(1, 100000))->capture_default_str();
  bench->add_option("--warmup", bench_args.warmup, "untimed runs before timing")->check(CLI::Range(0, 1000))->capture_default_str();
  bench->add_option("--json", bench_args.json, "write every row, the machine and the ceilings as JSON");
  bench->add_option("--csv", bench_args.csv, "write the rows as CSV");
  bench->add_option("--md", bench_args.md, "write the table as Markdown");
  bench->add_flag("--cached-ceilings", bench_args.cached_ceilings,
                  "reuse this device's cached ceilings instead of measuring them in this run");
  bench->add_flag("--quick-ceilings", bench_args.quick_ceilings, "measure the ceilings quickly and roughly (smoke runs)");
  bench->add_flag("--distributed", bench_args.distributed,
                  "stencil: one rank per MPI process (run under mpirun -np N; a GPU a rank, or the CPU with --device cpu)");
  bench->add_option("--gpus", bench_args.gpus, "stencil: one process over this many GPUs (NCCL)")->check(CLI::Range(1, 1024));
  bench->add_option("--scaling", bench_args.scaling, "with --distributed or --gpus: strong (--size is the grid) or weak (each rank's)")
      ->check(CLI::IsMember({"strong", "weak"}))
      ->capture_default_str();
  bench->add_flag("--overlap", bench_args.overlap,
                  "with --distributed or --gpus: compute the slab's faces first and exchange them during its sweeps");

  std::string roofline_device = "auto";
  bool roofline_quick = false;
  std::string roofline_json;
  auto* roofline = app.add_subcommand("roofline", "measure this machine's ceilings (bandwidths, FMA peak, cuBLAS SGEMM) and cache them");
  roofline->add_option("--device,-d", roofline_device, "cpu, cuda, or auto")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  roofline->add_flag("--quick", roofline_quick, "smaller buffers, fewer repetitions");
  roofline->add_option("--json", roofline_json, "also write the ceilings to this file");

  tune_arguments tune_args;
  auto* tune = app.add_subcommand("tune", "search a family's tile parameters on this GPU and store the winners (gemm)");
  tune->add_option("family", tune_args.family, "the family to tune: gemm")->capture_default_str();
  tune->add_option("--size,-s", tune_args.sizes, "sizes to tune, repeatable (default: the SGEMM target sizes)");
  tune->add_option("--reps,-r", tune_args.reps, "timed repetitions per case")->check(CLI::Range(1, 100000))->capture_default_str();
  tune->add_option("--out,-o", tune_args.out, "write here instead of the cache file that policy=auto reads");
  tune->add_flag("--quiet,-q", tune_args.quiet, "no progress line on stderr");
  tune->add_flag("--dispatch", tune_args.dispatch,
                 "gemm: choose the step and settings of swath::sgemm at each case of the shape suite (or --size), "
                 "written as a dispatch table");
  tune->add_option("--param,-p", tune_args.parameters, "with --dispatch and --size: op=nn,tn,... batch=N,...");
  tune->add_option("--json", tune_args.json,
                   "with --dispatch: every candidate's row (verified and timed, one run each) and cuBLAS's, as bench JSON");
  tune->add_option("--warmup", tune_args.warmup, "untimed runs before timing")->check(CLI::Range(0, 1000))->capture_default_str();

  render_arguments render_args;
  auto* render = app.add_subcommand("render", "render a scene of spheres to PNG and print the rays per second");
  render->add_option("--scene", render_args.scene, "a scene file (JSON), or the name of a shipped one: seed, spheres, random")->required();
  render->add_option("--out,-o", render_args.out, "the PNG to write")->capture_default_str();
  render->add_option("--width", render_args.width, "image width (default: the scene's)")->check(CLI::Range(1, 65536));
  render->add_option("--height", render_args.height, "image height (default: the scene's)")->check(CLI::Range(1, 65536));
  render->add_option("--spp,--samples", render_args.samples, "samples per pixel (default: the scene's)")->check(CLI::Range(1, 1024));
  render->add_option("--spheres", render_args.spheres, "the count of the scene's random generator")->check(CLI::Range(0, 100000000));
  render->add_option("--shading", render_args.shading, "flat (the seed's) or phong")->check(CLI::IsMember({"flat", "phong"}));
  render->add_option("--shadows", render_args.shadows, "on or off")->check(CLI::IsMember({"on", "off"}));
  render->add_option("--device,-d", render_args.device, "cpu, cuda, or auto (the GPU when there is one)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  render->add_option("--variant,-v", render_args.variant,
                     "the step to render with (default: raytracer/cuda/05_lbvh on a GPU, raytracer/cpu/02_bvh_sah on the CPU)");
  render->add_option("--repeat,-r", render_args.repeat, "time this many frames and report the medians")->check(CLI::Range(1, 10000))->capture_default_str();
  render->add_option("--json", render_args.json, "also write the figures (rays, build and frame times, the machine) as JSON");
  render->add_flag("--quiet,-q", render_args.quiet, "no progress bar on stderr");

  explain_arguments explain_args;
  auto* schedule_command = app.add_subcommand("schedule", "the schedule layer and its cache model");
  schedule_command->require_subcommand(1);
  auto* explain = schedule_command->add_subcommand(
      "explain", "the column widths the cache model picks, each traversal's predicted cache-line fetches, and why");
  explain->add_option("--family", explain_args.family, "problem family")->check(CLI::IsMember({"stencil2d"}))->capture_default_str();
  explain->add_option("--size", explain_args.size, "grid width and height: --size W H")->expected(2)->required();
  explain->add_option("--radius,-r", explain_args.radius, "stencil radius")->check(CLI::Range(1, 16))->capture_default_str();
  explain->add_option("--shape", explain_args.shape, "star or box")->check(CLI::IsMember({"star", "box"}))->capture_default_str();
  explain->add_option("--type", explain_args.type, "float or double")->check(CLI::IsMember({"float", "double"}))->capture_default_str();
  explain->add_option("--cache", explain_args.cache, "L1, L2, L3 (this CPU's), gpu-L2, or a size in bytes (262144, 256K, 2^18)")
      ->capture_default_str();
  explain->add_option("--ways", explain_args.ways, "associativity for the model (default: the named cache's; 0 = ignore)")
      ->check(CLI::Range(0, 1024));
  explain->add_option("--threads,-t", explain_args.threads, "active threads sharing the cache")->check(CLI::Range(1, 1 << 24))->capture_default_str();
  explain->add_flag("--json", explain_args.json, "print JSON instead of text");

  walk_arguments walk_args;
  auto* walk = schedule_command->add_subcommand("walk", "print the order in which a traversal visits a grid");
  walk->add_option("--size", walk_args.size, "grid width and height: --size W H")->expected(2)->required();
  walk->add_option("--order", walk_args.order, "row_major, tiled, column or zigzag")
      ->check(CLI::IsMember({"row_major", "tiled", "column", "zigzag"}))
      ->capture_default_str();
  walk->add_option("--width,-w", walk_args.width, "column width (column, zigzag)")->check(CLI::Range(1, 1 << 30))->capture_default_str();
  walk->add_option("--tile", walk_args.tile, "tile width and height (tiled)")->expected(2);
  walk->add_flag("--json", walk_args.json, "print the visited element indices as JSON");

  // CLI11 reports an unknown command as a missing one; name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string command = argv[1];
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) known = known || sub->get_name() == command;
    if (!known) {
      std::fprintf(stderr, "swath: error: unknown command '%s' (commands: info, list, verify, bench, render, tune, roofline, schedule)\n",
                   command.c_str());
      return bad_input;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "swath: error: %s (see swath --help)\n", e.what());
    return bad_input;
  }

  try {
    if (*walk) {
      print_walk(walk_args);
      return success;
    }
    if (*explain) {
      print_explanation(explain_args);
      return success;
    }
    if (*info) {
      print_info();
      return success;
    }
    if (*list) {
      print_list(list_family);
      return success;
    }
    if (*verify) return run_bench(verify_args, false);
    if (*tune) return run_tune(tune_args);
    if (*render) return run_render(render_args);
    if (*bench) return run_bench(bench_args, true);
    if (*roofline) {
      measure_and_cache_ceilings(roofline_device, roofline_quick, roofline_json);
      return success;
    }
  } catch (const usage_error& e) {
    std::fprintf(stderr, "%s: error: %s\n", error_prefix.c_str(), e.what());
    return bad_input;
  } catch (const out_of_memory_error& e) {
    std::fprintf(stderr, "%s: error: %s\n", error_prefix.c_str(), e.what());
    return out_of_memory;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of host memory\n", error_prefix.c_str());
    return out_of_memory;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", error_prefix.c_str(), e.what());
    return runtime_failure;
  }
  return success;
}

}  // namespace

int main(int argc, char** argv) {
#if SWATH_CLI_DISTRIBUTED
  // Under mpirun (--distributed) every rank runs this; an error on any rank ends them all (MPI_Abort), so
  // that none waits for a partner that has stopped.
  bool distributed = false;
  for (int k = 1; k < argc; ++k) distributed = distributed || std::string(argv[k]) == "--distributed";
  if (distributed) {
    cli::start_mpi(&argc, &argv);
    error_prefix = "swath (rank " + std::to_string(cli::mpi_rank()) + ")";
  }
  const int code = run_command(argc, argv);
  if (distributed) {
    if (code != success && code != verification_failed) cli::abort_mpi(code);
    cli::finish_mpi();
  }
  return code;
#else
  return run_command(argc, argv);
#endif
}
