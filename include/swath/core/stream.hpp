#pragma once
// The caller's CUDA stream, without CUDA's headers: cudaStream_t is `CUstream_st*`, so a stream_t is a
// cudaStream_t and converts both ways without a cast. nullptr is the legacy default stream of the
// current device. CPU-only builds take it too (host calls ignore it).
struct CUstream_st;

namespace swath {

using stream_t = CUstream_st*;

// Frees the device memory swath keeps for `stream` (SGEMM's split-tile parts, rewritten operands and
// tail records: a few MiB at most per stream and device), in stream order: after the work already
// queued on the stream. Call it before destroying a stream that ran many large SGEMMs, where memory is
// tight; without it the memory is kept until the process ends. A no-op in CPU-only builds.
void release_stream_workspaces(stream_t stream);

}  // namespace swath
