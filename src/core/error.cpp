#include "swath/core/error.hpp"

#include <cstdio>
#include <string>

namespace swath {

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 6) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[64];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

namespace detail {

[[noreturn]] void throw_precondition(const char* condition, std::string_view message, const char* file, int line) {
  std::string text(message);
  text += " (";
  text += condition;
  text += " failed at ";
  text += file;
  text += ":";
  text += std::to_string(line);
  text += ")";
  throw precondition_error(text);
}

[[noreturn]] void throw_cuda(int code, const char* name, const char* description, const char* call, const char* file,
                             int line) {
  std::string text = std::string(call) + " failed: " + name + " (" + description + ") at " + file + ":" +
                     std::to_string(line);
  // cudaErrorMemoryAllocation is 2 in every CUDA version.
  if (code == 2) throw out_of_memory_error("out of device memory: " + text);
  throw cuda_error(code, text);
}

[[noreturn]] void throw_cublas(int status, const char* call, const char* file, int line) {
  // cublasStatus_t values, spelled out so this file needs no CUDA headers.
  const char* name = "CUBLAS_STATUS_UNKNOWN";
  switch (status) {
    case 1: name = "CUBLAS_STATUS_NOT_INITIALIZED"; break;
    case 3: name = "CUBLAS_STATUS_ALLOC_FAILED"; break;
    case 7: name = "CUBLAS_STATUS_INVALID_VALUE"; break;
    case 8: name = "CUBLAS_STATUS_ARCH_MISMATCH"; break;
    case 11: name = "CUBLAS_STATUS_MAPPING_ERROR"; break;
    case 13: name = "CUBLAS_STATUS_EXECUTION_FAILED"; break;
    case 14: name = "CUBLAS_STATUS_INTERNAL_ERROR"; break;
    case 15: name = "CUBLAS_STATUS_NOT_SUPPORTED"; break;
    default: break;
  }
  throw cuda_error(status, std::string(call) + " failed: " + name + " (" + std::to_string(status) + ") at " + file +
                               ":" + std::to_string(line));
}

}  // namespace detail
}  // namespace swath
