// Output of a run: the terminal table, Markdown, CSV and JSON. The JSON carries everything needed to
// trace a figure: the device, the CPU, the build, the git revision, the date, the ceilings, every row.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "swath/bench/runner.hpp"
#include "swath/build_info.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"

namespace swath::bench {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string milliseconds(double seconds) {
  const double ms = seconds * 1e3;
  return fixed(ms, ms < 0.1 ? 4 : (ms < 10 ? 3 : 2));
}

struct cells {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

cells tabulate(const run_report& report) {
  cells out;
  out.header = {"variant", "size", "check", "median ms", "min ms", "GB/s", "Gitem/s", "GFLOP/s", "flop/B", "% ceiling", "x vendor"};
  for (const result_row& row : report.rows) {
    std::vector<std::string> line = {std::string(row.variant.name), row.config.empty() ? row.size : row.size + " " + row.config};
    if (row.status == "skipped") {
      line.push_back("skipped: " + row.note);
      line.resize(out.header.size());
    } else if (row.status == "failed") {
      line.push_back("FAILED: " + row.note);
      line.resize(out.header.size());
    } else {
      char error[32];
      std::snprintf(error, sizeof error, "ok %.1e", row.check.max_relative_error);
      line.push_back(error);
      if (row.time.repetitions > 0) {
        line.push_back(milliseconds(row.time.median_s));
        line.push_back(milliseconds(row.time.min_s));
        line.push_back(fixed(row.gbps, 1));
        line.push_back(row.work.items > 0 ? fixed(row.gitems, 2) : "-");
        line.push_back(row.work.flops > 0 ? fixed(row.gflops, 1) : "-");
        line.push_back(row.work.flops > 0 ? fixed(row.intensity, 3) : "-");
        // 'c': the inputs fit in cache, so the row measures the cache rather than memory.
        line.push_back(row.percent_of_ceiling ? fixed(*row.percent_of_ceiling, 1) + (row.cache_resident ? "c" : "")
                                              : "-");
        line.push_back(row.variant.vendor ? "vendor" : (row.vendor_ratio ? fixed(*row.vendor_ratio, 3) : "-"));
      } else {
        line.resize(out.header.size());
      }
    }
    out.rows.push_back(line);
  }
  return out;
}

std::string csv_escape(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

}  // namespace

std::string format_table(const run_report& report) {
  const cells table = tabulate(report);
  std::vector<std::size_t> width(table.header.size(), 0);
  for (std::size_t i = 0; i < width.size(); ++i) width[i] = table.header[i].size();
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      // Skip and failure notes run across the remaining (empty) columns.
      if (i == 2 && row[3].empty()) continue;
      width[i] = std::max(width[i], row[i].size());
    }
  }
  std::ostringstream out;
  const auto emit = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i == 2 && row.size() > 3 && row[3].empty()) {
        out << row[i];
        break;
      }
      const bool numeric = i >= 3;
      const std::string pad(width[i] - std::min(width[i], row[i].size()), ' ');
      out << (numeric ? pad + row[i] : row[i] + pad) << (i + 1 < row.size() ? "  " : "");
    }
    out << '\n';
  };
  emit(table.header);
  for (const auto& row : table.rows) emit(row);
  const auto& limits = report.limits;
  out << "ceilings (" << limits.source << ", " << limits.device << "):";
  if (limits.gpu) {
    out << " copy " << fixed(limits.gpu->copy_gbps, 0) << " GB/s, read " << fixed(limits.gpu->read_gbps, 0)
        << " GB/s, FP32 FMA " << fixed(limits.gpu->fp32_fma_gflops, 0) << " GFLOP/s, h2d "
        << fixed(limits.gpu->h2d_pinned_gbps, 1) << " GB/s, d2h " << fixed(limits.gpu->d2h_pinned_gbps, 1) << " GB/s";
  }
  if (limits.cpu) {
    out << (limits.gpu ? ";" : "") << " CPU copy " << fixed(limits.cpu->copy_gbps_all_cores, 1) << " GB/s ("
        << fixed(limits.cpu->copy_gbps_one_core, 1) << " one core), FMA " << fixed(limits.cpu->fma_gflops_all_cores, 0)
        << " GFLOP/s";
  }
  out << '\n';
  return out.str();
}

std::string format_markdown(const run_report& report) {
  const cells table = tabulate(report);
  std::ostringstream out;
  out << '|';
  for (const auto& h : table.header) out << ' ' << h << " |";
  out << "\n|";
  for (std::size_t i = 0; i < table.header.size(); ++i) out << (i < 3 ? " --- |" : " ---: |");
  out << '\n';
  for (const auto& row : table.rows) {
    out << '|';
    for (const auto& cell : row) out << ' ' << (cell.empty() ? "" : "`" + cell + "`") << " |";
    out << '\n';
  }
  return out.str();
}

std::string format_csv(const run_report& report) {
  std::ostringstream out;
  out << "family,variant,backend,vendor,problem,size,config,status,note,max_relative_error,sets,median_s,min_s,max_s,reps,"
         "bytes,flops,items,gbps,gflops,gitems_per_s,intensity,ceiling_gbps,percent_of_ceiling,bound,vendor_ratio\n";
  for (const result_row& r : report.rows) {
    const auto optional = [](const std::optional<double>& v) { return v ? std::to_string(*v) : std::string(); };
    out << r.family << ',' << r.variant.name << ',' << to_string(r.variant.where) << ',' << (r.variant.vendor ? 1 : 0)
        << ',' << r.variant.problem << ',' << r.size << ',' << csv_escape(r.config) << ',' << r.status << ',' << csv_escape(r.note) << ','
        << r.check.max_relative_error << ',' << r.sets << ',' << r.time.median_s << ',' << r.time.min_s << ','
        << r.time.max_s << ',' << r.time.repetitions << ',' << r.work.bytes << ',' << r.work.flops << ',' << r.work.items << ','
        << r.gbps << ',' << r.gflops << ',' << r.gitems << ',' << r.intensity << ',' << optional(r.ceiling_gbps) << ','
        << optional(r.percent_of_ceiling) << ',' << r.bound << ',' << optional(r.vendor_ratio) << '\n';
  }
  return out.str();
}

nlohmann::json environment_json() {
  nlohmann::json env;
  env["swath_version"] = build_info::version;
  env["git_revision"] = build_info::git_revision;
  env["build"] = {{"type", build_info::build_type},
                  {"cxx_compiler", build_info::cxx_compiler},
                  {"cuda_compiler", build_info::cuda_compiler},
                  {"cuda_architectures", build_info::cuda_architectures},
                  {"cuda_backend", cuda_built()}};
  const cpu_info cpu = query_cpu();
  env["cpu"] = {{"model", cpu.model},           {"logical_cores", cpu.logical_cores},
                {"openmp_threads", cpu.openmp_threads}, {"l1d_bytes", cpu.l1d_bytes},
                {"l2_bytes", cpu.l2_bytes},     {"l3_bytes", cpu.l3_bytes},
                {"memory_bytes", cpu.memory_bytes}};
  std::string why;
  if (const auto gpu = query_gpu(&why)) {
    env["device"] = {{"name", gpu->name},
                     {"slug", slug(gpu->name)},
                     {"compute_capability", std::to_string(gpu->compute_major) + "." + std::to_string(gpu->compute_minor)},
                     {"sm_count", gpu->sm_count},
                     {"l2_bytes", gpu->l2_bytes},
                     {"memory_bytes", gpu->memory_bytes},
                     {"shared_memory_per_block_optin", gpu->shared_memory_per_block_optin},
                     {"sm_clock_khz", gpu->sm_clock_khz},
                     {"memory_clock_khz", gpu->memory_clock_khz},
                     {"memory_bus_bits", gpu->memory_bus_bits},
                     {"driver_version", gpu->driver_version},
                     {"runtime_version", gpu->runtime_version}};
  } else {
    env["device"] = nullptr;
    env["no_device_reason"] = why;
  }
  return env;
}

nlohmann::json to_json(const run_report& report) {
  nlohmann::json out;
  out["schema"] = "swath-bench/1";
  out["started_at"] = report.started_at;
  out["elapsed_s"] = report.elapsed_s;
  out["environment"] = environment_json();
  out["ceilings"] = report.limits;
  nlohmann::json parameters = nlohmann::json::object();
  for (const auto& choice : report.options.parameters) parameters[choice.key] = choice.values;
  out["options"] = {{"parameters", parameters},
                    {"families", report.options.families},
                    {"backend", to_string(report.options.where)},
                    {"variants", report.options.variant_glob},
                    {"repetitions", report.options.repetitions},
                    {"warmup", report.options.warmup},
                    {"timed", report.options.timed},
                    {"seed", report.options.seed}};
  out["rows"] = nlohmann::json::array();
  for (const result_row& r : report.rows) {
    nlohmann::json row = {{"family", r.family},
                          {"variant", r.variant.name},
                          {"backend", to_string(r.variant.where)},
                          {"summary", r.variant.summary},
                          {"problem", r.variant.problem},
                          {"vendor", r.variant.vendor},
                          {"size", r.size},
                          {"config", r.config},
                          {"status", r.status},
                          {"note", r.note},
                          {"check",
                           {{"passed", r.check.passed()},
                            {"checked", r.check.checked},
                            {"unwritten", r.check.unwritten},
                            {"not_finite", r.check.not_finite},
                            {"outside_writes", r.check.outside_writes},
                            {"max_relative_error", r.check.max_relative_error},
                            {"tolerance", r.check.tolerance}}},
                          {"sets", r.sets},
                          {"cache_resident", r.cache_resident},
                          {"phase_seconds", {{"prepare", r.phases.prepare}, {"verify", r.phases.verify}, {"timing", r.phases.timing}}},
                          {"bytes", r.work.bytes},
                          {"flops", r.work.flops},
                          {"items", r.work.items}};
    if (r.time.repetitions > 0) {
      row["time"] = {{"median_s", r.time.median_s},
                     {"min_s", r.time.min_s},
                     {"max_s", r.time.max_s},
                     {"repetitions", r.time.repetitions}};
      row["gbps"] = r.gbps;
      row["gflops"] = r.gflops;
      row["gitems_per_s"] = r.gitems;
      row["intensity"] = r.intensity;
      row["bound"] = r.bound;
      row["ceiling_kind"] = to_string(r.variant.bound);
      row["ceiling_gbps"] = r.ceiling_gbps ? nlohmann::json(*r.ceiling_gbps) : nlohmann::json(nullptr);
      row["percent_of_ceiling"] = r.percent_of_ceiling ? nlohmann::json(*r.percent_of_ceiling) : nlohmann::json(nullptr);
      row["vendor_ratio"] = r.vendor_ratio ? nlohmann::json(*r.vendor_ratio) : nlohmann::json(nullptr);
      row["vendor_baseline"] = r.vendor_name;
    }
    out["rows"].push_back(row);
  }
  return out;
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  const fs::path temporary = target.string() + ".partial";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) throw usage_error("cannot write '" + temporary.string() + "'");
    file << contents;
    file.close();
    if (!file) throw error("writing '" + temporary.string() + "' failed");
  }
  fs::rename(temporary, target);
}

}  // namespace swath::bench
