#pragma once
// Where a library call runs: what each operand's memory is, which device the stream belongs to, and the
// launch context built from that device (never a zero SM count). Shared by the entry points in
// src/api/; the steps below them take a launch_context and know nothing of this.
#include <cstdint>
#include <initializer_list>
#include <string>

#include "swath/core/error.hpp"
#include "swath/core/stream.hpp"
#include "swath/registry.hpp"

namespace swath::api {

// What a pointer points at. Managed memory counts as device memory (the GPU reads it in place).
struct memory_place {
  bool device = false;  // device or managed memory
  bool pinned = false;  // page-locked host memory (cudaMallocHost / cudaHostRegister)
  int ordinal = -1;     // the device, for device memory
};
memory_place locate(const void* pointer);  // host, not pinned, for nullptr and in CPU-only builds

struct operand {
  const char* name;
  const void* pointer;
};

// One call's decision: on the device (with the launch context of the stream's device) or on the host.
struct call_site {
  bool on_device = false;
  int device = -1;
  int capability = 0;  // the device's compute capability, major · 10 + minor
  std::string device_name;  // the GPU's name, as cudaGetDeviceProperties gives it
  launch_context launch;
};

// For a call whose operands must all be on the device or all on the host: throws usage_error naming
// `function` and the first operand that differs from the first, or a device operand that is not on the
// stream's device. Null pointers are not operands (the caller checks which may be null).
call_site place_call(const char* function, std::initializer_list<operand> operands, stream_t stream);
// The device call site of `stream` (its device, SM count), for calls whose operands were placed by hand.
call_site device_site(stream_t stream);
// Throws usage_error when this build has no machine code for the device's architecture.
void require_code_for(const char* function, int device);

// Makes `device` current for the call and restores the caller's on the way out. -1: nothing to do.
class device_scope {
 public:
  explicit device_scope(int device);
  ~device_scope();
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int previous_ = -1;
};

// For the length of a device call: at its end, queues the frees of the workspaces the call's steps took
// while `stream` was being captured into a CUDA graph (src/cuda/core/per_device.cuh), so that the graph
// frees what it allocates; outside a capture it does nothing.
class captured_workspaces_scope {
 public:
  explicit captured_workspaces_scope(stream_t stream) : stream_(stream) {}
  ~captured_workspaces_scope();
  captured_workspaces_scope(const captured_workspaces_scope&) = delete;
  captured_workspaces_scope& operator=(const captured_workspaces_scope&) = delete;

 private:
  stream_t stream_;
};

// Checks that read as the argument's rule: "swath::sgemm: lda = 3 must be at least 4 (op(A)'s stored row)".
[[noreturn]] void argument_error(const char* function, const std::string& message);
inline void require(bool condition, const char* function, const std::string& message) {
  if (!condition) argument_error(function, message);
}

}  // namespace swath::api
