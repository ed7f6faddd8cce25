#include "swath/registry.hpp"

#include <charconv>

#include "swath/core/error.hpp"

namespace swath {

std::string_view to_string(backend where) { return where == backend::cpu ? "cpu" : "cuda"; }

std::string_view to_string(ceiling_kind kind) {
  switch (kind) {
    case ceiling_kind::device_memory: return "device_memory";
    case ceiling_kind::device_memory_read: return "device_memory_read";
    case ceiling_kind::host_to_device: return "host_to_device";
    case ceiling_kind::device_to_host: return "device_to_host";
    case ceiling_kind::host_memory: return "host_memory";
    case ceiling_kind::host_memory_one_core: return "host_memory_one_core";
    case ceiling_kind::none: return "none";
  }
  return "?";
}

std::int64_t whole_setting(std::string_view key, std::string_view value) {
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error == std::errc() && end == value.data() + value.size() && number >= 1) return number;
  throw usage_error(std::string(key) + "=" + std::string(value) + ": expected a whole number >= 1");
}

namespace detail {
[[noreturn]] void throw_unknown_variant(std::string_view family, std::string_view name) {
  std::string message = "unknown ";
  message += family;
  message += " variant '";
  message += name;
  message += "' (see: swath list ";
  message += family;
  message += ")";
  throw usage_error(message);
}
}  // namespace detail

}  // namespace swath
