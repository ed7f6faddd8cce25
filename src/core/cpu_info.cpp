#include <omp.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <fstream>
#include <string>

#include "swath/core/device.hpp"
#include "swath/core/error.hpp"

namespace swath {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

// "48K", "2048K", "32M" as in /sys/devices/system/cpu/cpu0/cache/index*/size.
std::int64_t parse_sysfs_size(const std::string& text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return 0;
  std::size_t used = 0;
  const std::int64_t value = std::stoll(text, &used);
  const char unit = used < text.size() ? text[used] : ' ';
  if (unit == 'K') return value << 10;
  if (unit == 'M') return value << 20;
  if (unit == 'G') return value << 30;
  return value;
}

}  // namespace

cpu_info query_cpu() {
  cpu_info info;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      info.model = line.substr(line.find(':') + 2);
      break;
    }
  }
  if (info.model.empty()) info.model = "unknown CPU";
  info.logical_cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  info.openmp_threads = omp_get_max_threads();
  info.memory_bytes = static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  for (int index = 0; index < 8; ++index) {
    const std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string level = read_line(base + "level");
    if (level.empty()) break;
    const std::string type = read_line(base + "type");
    const std::int64_t size = parse_sysfs_size(read_line(base + "size"));
    const std::string ways_text = read_line(base + "ways_of_associativity");
    const int ways = ways_text.empty() ? 0 : std::stoi(ways_text);
    if (level == "1" && type == "Data") {
      info.l1d_bytes = size;
      info.l1d_ways = ways;
    }
    if (level == "2") {
      info.l2_bytes = size;
      info.l2_ways = ways;
    }
    if (level == "3") {
      info.l3_bytes = size;
      info.l3_ways = ways;
    }
  }
  return info;
}

cache_size parse_cache_size(const std::string& text) {
  if (text == "L1" || text == "L2" || text == "L3") {
    // Asked once: the steps read their cache on every launch, and the caches do not change.
    static const cpu_info cpu = query_cpu();
    if (text == "L1") return {static_cast<double>(cpu.l1d_bytes), cpu.l1d_ways};
    if (text == "L2") return {static_cast<double>(cpu.l2_bytes), cpu.l2_ways};
    return {static_cast<double>(cpu.l3_bytes), cpu.l3_ways};
  }
  if (text.rfind("2^", 0) == 0) {  // 2^k bytes
    std::size_t used = 0;
    int exponent = -1;
    try {
      exponent = std::stoi(text.substr(2), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == text.size() - 2 && exponent >= 0 && exponent <= 50) return {std::ldexp(1.0, exponent), 0};
    throw usage_error("cache=" + text + ": write a power of two as 2^k with 0 <= k <= 50");
  }
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string suffix = used == 0 ? text : text.substr(used);
  double scale = 0;
  if (suffix.empty() || suffix == "B") scale = 1;
  if (suffix == "K" || suffix == "KiB") scale = 1024;
  if (suffix == "M" || suffix == "MiB") scale = 1024.0 * 1024;
  if (suffix == "G" || suffix == "GiB") scale = 1024.0 * 1024 * 1024;
  if (used == 0 || scale == 0 || value <= 0) {
    throw usage_error("cache=" + text + ": expected L1, L2, L3 or a size such as 2MiB, 2^21 or 1048576");
  }
  return {value * scale, 0};
}

std::string slug(const std::string& name) {
  std::string out;
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      out += static_cast<char>(std::tolower(c));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown" : out;
}

}  // namespace swath
