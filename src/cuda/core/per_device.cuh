#pragma once
// State that belongs to one device, or to one stream of one device: never to the process.
//
// A kernel's shared-memory limit (cudaFuncSetAttribute) and its occupancy are properties of the
// current device; a buffer allocated on device 0 cannot serve a launch on device 1; a workspace that
// two streams share is overwritten by one while the other's kernel reads it. So every piece of state a
// step keeps between calls is kept here, keyed by the device (per_device) or by the device and the
// stream (stream_workspace), and created on first use on that device or stream.
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>

#include "swath/core/error.hpp"

namespace swath::cuda {

// The device current on this thread (the one a launch would go to).
inline int current_device() {
  int device = 0;
  SWATH_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

// One T per device, made by `make()` with that device current, the first time it is asked for there.
// Thread-safe; the T lives as long as the process (it holds device resources created once).
template <class T>
class per_device {
 public:
  static constexpr int max_devices = 64;
  // Default-constructed (T may hold a mutex and not move).
  T& get() {
    return get_or_make([] { return std::make_unique<T>(); });
  }
  template <class Make>
  T& get(Make&& make) {
    return get_or_make([&] { return std::make_unique<T>(make()); });
  }

 private:
  template <class MakeUnique>
  T& get_or_make(MakeUnique&& make_unique) {
    const int device = current_device();
    SWATH_EXPECTS(device >= 0 && device < max_devices, "swath supports device ordinals below 64");
    const std::lock_guard lock(guard_);
    std::unique_ptr<T>& slot = slots_[static_cast<std::size_t>(device)];
    if (!slot) slot = make_unique();
    return *slot;
  }

  std::mutex guard_;
  std::array<std::unique_ptr<T>, max_devices> slots_{};
};

// What a step keeps between calls in device memory, per use.
enum class workspace_use : int {
  stream_k_parts,     // steps 11-13 and 16: the split tiles' parts
  stream_k_counters,  // the same steps' arrival counters, zero when new and left at zero by every launch
  rewritten_a,      // steps 14-16: op(A) rewritten deep-major
  rewritten_b,      // steps 14-16: op(B) rewritten deep-major
  tail_records,     // step 16: the whole tiles' start records, the published plan and the claims
  split_parts,      // steps 17-18: each split of K's partial sums, added in order by sum_parts
  split_counters,   // step 18: arrivals a column block, zero when new and left at zero by every launch
  tile_arrivals,    // step 22: arrivals a tile, zero when new and left at zero by every launch
  count
};

// Device memory for `use` on `stream` (of the current device), at least `bytes` long. The first
// `zeroed_bytes` are zero the first time the stream sees this buffer (a step that leaves its counters
// as it found them relies on that); `fresh` says whether the buffer is new, so the caller can set up
// other initial values. A larger request grows it in stream order: the old buffer is freed
// (cudaFreeAsync) after the work already queued on the stream, and the new one allocated
// (cudaMallocAsync) and cleared on the stream. Never synchronises. The buffers of a stream live until
// release_stream_workspaces(stream) or the end of the process; they are keyed by the stream's
// unique id (cudaStreamGetId), so a stream created later never inherits another's.
//
// While `stream` is being captured into a CUDA graph the buffer is the graph's own instead: allocated
// (cudaMallocAsync) and zeroed inside the captured work, reused by the same call for the same use, and
// freed inside it by free_captured_workspaces(stream) at the end of the library call. So every replay
// of the graph allocates, zeroes and frees its own, the stream's kept buffers are neither read nor
// grown by a capture, and nothing a graph owns outlives its replay.
void* stream_workspace(cudaStream_t stream, workspace_use use, std::size_t bytes, std::size_t zeroed_bytes,
                       bool* fresh = nullptr);

// Whether `stream` is being captured into a graph (the legacy default stream never is).
bool capturing(cudaStream_t stream);

// Queues the frees (cudaFreeAsync, captured too) of the workspaces this thread's call took on
// `stream` during a capture; nothing outside one. Never throws: it also runs while an exception
// leaves the call, where a failed free has nothing left to protect.
void free_captured_workspaces(cudaStream_t stream) noexcept;

}  // namespace swath::cuda

namespace swath::cuda {
// Keeps `holder` (device buffers a call's queued work still reads) alive until the work queued on
// `stream` so far is done: an event is recorded now, and a later call of this function (or the end of
// the process) drops the holders whose events have completed. Never waits on the host now; note that
// dropping a holder frees its buffers with cudaFree, which waits for the device at that later moment.
void keep_until_done(cudaStream_t stream, std::shared_ptr<void> holder);
}  // namespace swath::cuda
