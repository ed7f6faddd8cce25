#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "swath/bench/family.hpp"
#include "swath/core/error.hpp"

namespace swath::bench {
namespace {

// Products of extents stay far below 2^62 so that byte counts (× 16 at most) cannot overflow int64.
constexpr std::int64_t largest_count = std::int64_t{1} << 56;

std::int64_t parse_extent(std::string_view text, std::string_view whole) {
  const auto bad = [&](const std::string& why) {
    return usage_error("bad size '" + std::string(whole) + "': " + why);
  };
  if (text.empty()) throw bad("an extent is empty");
  if (text.front() == '-') throw bad("extents must be positive");
  std::int64_t value = 0;
  const auto caret = text.find('^');
  if (caret != std::string_view::npos) {  // 2^k
    std::int64_t base = 0;
    std::int64_t exponent = 0;
    const auto base_text = text.substr(0, caret);
    const auto exponent_text = text.substr(caret + 1);
    const auto [base_end, base_error] = std::from_chars(base_text.data(), base_text.data() + base_text.size(), base);
    const auto [exp_end, exp_error] =
        std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), exponent);
    if (base_error != std::errc() || exp_error != std::errc() || base_end != base_text.data() + base_text.size() ||
        exp_end != exponent_text.data() + exponent_text.size() || base != 2) {
      throw bad("write a power as 2^k");
    }
    if (exponent < 0 || exponent > 56) throw bad("2^k needs 0 <= k <= 56");
    return std::int64_t{1} << exponent;
  }
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range) throw bad("too large");
  if (error != std::errc() || end != text.data() + text.size()) throw bad("'" + std::string(text) + "' is not a whole number");
  if (value <= 0) throw bad("extents must be at least 1");
  return value;
}

}  // namespace

size_spec parse_size(std::string_view text) {
  size_spec size;
  std::size_t start = 0;
  while (true) {
    const std::size_t cross = text.find_first_of("xX", start);
    size.extents.push_back(parse_extent(text.substr(start, cross == std::string_view::npos ? cross : cross - start), text));
    if (cross == std::string_view::npos) break;
    start = cross + 1;
  }
  if (size.extents.size() > 3) throw usage_error("bad size '" + std::string(text) + "': at most three extents (WxHxD)");
  std::int64_t count = 1;
  for (const std::int64_t extent : size.extents) {
    if (extent > largest_count / count) throw usage_error("bad size '" + std::string(text) + "': too many elements");
    count *= extent;
  }
  return size;
}

usage_error bad_parameter(std::string_view text, std::string_view why) {
  std::string message = "bad --param '";
  message += text;
  message += "': ";
  message += why;
  return usage_error(message);
}

parameter_choice parse_parameter(std::string_view text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos || equals == 0 || equals + 1 == text.size()) {
    throw bad_parameter(text, "write key=value or key=value1,value2");
  }
  parameter_choice choice{std::string(text.substr(0, equals)), {}};
  std::size_t start = equals + 1;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma == start) throw bad_parameter(text, "an empty value");
    choice.values.emplace_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return choice;
}

std::map<std::string, std::string> parse_config(const std::string& config, std::map<std::string, std::string> defaults) {
  std::size_t start = 0;
  while (start < config.size()) {
    const std::size_t space = std::min(config.find(' ', start), config.size());
    const std::string word = config.substr(start, space - start);
    if (!word.empty()) {
      const std::size_t equals = word.find('=');
      defaults[word.substr(0, equals)] = equals == std::string::npos ? "" : word.substr(equals + 1);
    }
    start = space + 1;
  }
  return defaults;
}

std::int64_t parse_positive(const std::string& key, const std::string& text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) {
    std::string message = key;
    message += "=";
    message += text;
    message += ": expected 'model' or a whole number >= 1";
    throw usage_error(message);
  }
  return value;
}

double parse_finite(const std::string& key, const std::string& text) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value)) return value;
  } catch (const std::exception&) {  // std::stod's invalid_argument and out_of_range
  }
  throw usage_error(key + "=" + text + ": expected a finite number");
}

std::string size_spec::text() const {
  std::string out;
  for (const std::int64_t extent : extents) {
    if (!out.empty()) out += 'x';
    out += std::to_string(extent);
  }
  return out;
}

std::int64_t size_spec::count() const {
  std::int64_t product = 1;
  for (const std::int64_t extent : extents) product *= extent;
  return product;
}

std::string check_result::describe() const {
  char text[256];
  if (checked == 0) return "nothing was checked";
  if (unwritten > 0) {
    std::snprintf(text, sizeof text, "%lld of %lld outputs never written", static_cast<long long>(unwritten),
                  static_cast<long long>(checked));
  } else if (not_finite > 0) {
    std::snprintf(text, sizeof text, "%lld outputs are NaN or infinite", static_cast<long long>(not_finite));
  } else if (outside_writes > 0) {
    std::snprintf(text, sizeof text, "%lld writes outside the output region", static_cast<long long>(outside_writes));
  } else {
    std::snprintf(text, sizeof text, "max relative error %.3g (tolerance %.3g) at element %lld", max_relative_error,
                  tolerance, static_cast<long long>(worst_index));
  }
  return text;
}

}  // namespace swath::bench
