#pragma once
// NCCL calls checked like the CUDA runtime's: the failing call, NCCL's description and file:line.
#include <nccl.h>

#include <string>

#include "swath/core/error.hpp"

namespace swath::distributed::detail {
[[noreturn]] inline void nccl_failed(ncclResult_t status, const char* call, const char* file, int line) {
  throw error(std::string(call) + " failed: " + ncclGetErrorString(status) + " (" + file + ":" + std::to_string(line) + ")");
}
}  // namespace swath::distributed::detail

#define SWATH_NCCL_CHECK(call)                                                                             \
  do {                                                                                                     \
    const ncclResult_t swath_nccl_status_ = (call);                                                        \
    if (swath_nccl_status_ != ncclSuccess) ::swath::distributed::detail::nccl_failed(swath_nccl_status_, #call, __FILE__, __LINE__); \
  } while (0)
