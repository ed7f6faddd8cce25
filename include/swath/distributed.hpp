#pragma once
// swath::distributed: one stencil grid over several ranks (GPUs or processes). The grid is cut along its
// outermost axis (z in 3D, y in 2D) into slabs, one a rank, of any sizes; each rank keeps its slab with
// `halo` planes of its neighbours' data on each side and runs the library's own stencil::iterate on it.
// A halo h planes deep carries t = h / r sweeps: the ranks exchange halos once every t sweeps (t > 1 is
// temporal blocking across ranks: the fused steps' passes, and h - r·s planes of redundant work at
// each of the slab's faces after s sweeps).
//
// Boundaries are applied at the global faces only: the first and last ranks' local grids end at the
// grid's own faces, so the step applies clamp, constant and copy there exactly as on one GPU; periodic
// grids wrap across the first and last rank. The gathered result equals the one-GPU result of the same
// passes (stencil::iterate in passes of t sweeps) bit for bit: the local grids have the global grid's
// rows, pitch and alignment, so the dispatch picks the same step. docs/distributed.md has the
// decomposition, the overlap of exchange and compute, the measurements and the scaling model.
//
// The backends (each optional at configure time; swath/distributed_config.hpp says which were built):
//   host_domain<T>    host memory, one rank per MPI process, halos by MPI_Sendrecv, the CPU steps;
//   device_domain<T>  device memory, one rank per GPU, halos by NCCL on the caller's communicator
//                     (nccl_communicator builds one from an MPI_Comm);
//   device_group<T>   one process over several GPUs (ncclCommInitAll), a device_domain each.
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "swath/core/error.hpp"
#include "swath/distributed_config.hpp"
#include "swath/stencil.hpp"

#if SWATH_DISTRIBUTED_MPI
#include <mpi.h>
#endif
#if SWATH_DISTRIBUTED_NCCL
#include <nccl.h>
#endif

namespace swath::distributed {

// Planes (rows in 2D) split as evenly as they go: the first `planes % ranks` ranks take one more.
std::vector<std::int64_t> even_slabs(std::int64_t planes, int ranks);

// The whole grid and how it is cut.
struct slab_grid {
  stencil::grid_layout global;       // the grid every rank's slab is part of (depth, or height in 2D, is the cut axis)
  std::vector<std::int64_t> slabs;   // planes of each rank, in rank order: they sum to the cut extent
  int halo = 0;                      // halo planes each side, a multiple of the radius (0: the radius)
};

// One rank's slab and its buffer. A local buffer holds halo + planes + halo planes, plane_elements
// apart (the global grid's row pitch × height in 3D, the row pitch in 2D): the interior starts at
// interior_offset(). Buffers of both backends are laid out so.
struct slab {
  int rank = 0, ranks = 1;
  int lower = -1, upper = -1;      // neighbour ranks (-1: the slab ends at a face of the grid)
  std::int64_t first = 0;          // the global index of the first interior plane
  std::int64_t planes = 0;         // interior planes
  int halo = 0;                    // planes each side
  int sweeps_per_exchange = 1;     // halo / radius
  std::int64_t plane_elements = 0; // elements from one plane to the next
  [[nodiscard]] std::int64_t buffer_elements() const { return (planes + 2 * halo) * plane_elements; }
  [[nodiscard]] std::int64_t interior_offset() const { return halo * plane_elements; }
  [[nodiscard]] std::int64_t interior_elements() const { return planes * plane_elements; }
};

// Rank `rank`'s slab. Throws swath::usage_error naming the argument for a bad grid or operator (as
// stencil::apply), slab sizes that are not positive or do not sum to the cut extent, a halo that is not
// a positive multiple of the radius, or a slab thinner than the halo while there are several ranks (its
// neighbours' halos would need planes from two ranks away).
slab slab_of(const slab_grid& grid, const stencil::operator_spec& op, int rank);

// The sweeps of each exchange period for T sweeps: t = sweeps_per_exchange as often as it goes, the
// rest last (so every period's halo is at most the previous one's).
std::vector<int> exchange_periods(int sweeps, int sweeps_per_exchange);

#if SWATH_DISTRIBUTED_MPI
// Host memory, one rank per MPI process. Every call is collective over the communicator.
template <class T>
class host_domain {
 public:
  // Checks the arguments on every rank and agrees: if any rank's are bad, every rank throws the first
  // failing rank's error (so no rank is left waiting for a partner).
  host_domain(MPI_Comm comm, slab_grid grid, stencil::operator_spec op);
  [[nodiscard]] const slab& local() const { return slab_; }
  // T sweeps over the whole grid. a and b are this rank's buffers (slab.buffer_elements() each), a's
  // interior holding the input; the halos need not be set. Returns the buffer whose interior holds the
  // result (a or b, the same on every rank); both are overwritten. Done on return.
  T* iterate(T* a, T* b, int sweeps);
  // Fills `depth` halo planes on each side of `buffer` from the neighbours' interiors.
  void exchange(T* buffer, int depth);

 private:
  MPI_Comm comm_;
  slab_grid grid_;
  stencil::operator_spec op_;
  slab slab_;
};
extern template class host_domain<float>;
extern template class host_domain<double>;
#endif

#if SWATH_DISTRIBUTED_NCCL
template <class T>
class device_group;

// Device memory, one rank per GPU, halos over the caller's NCCL communicator on the current device.
// A domain keeps the state of the period in flight: it runs one iterate at a time (two grids at once on
// two streams take two domains, each with its own communicator).
template <class T>
class device_domain {
 public:
  // Collective and synchronising (set-up only): allocates the workspace for an overlapped exchange
  // (two slab faces of 3·halo planes, twice, and two halos) and a stream and events on the current device,
  // then agrees over the communicator: if any rank failed (a bad argument, out of memory), every rank
  // throws the first failing rank's error. overlap = true computes the slab's faces first and
  // exchanges them during the slab's sweeps; the default exchanges after the sweeps, which measured
  // faster over NVLink (an H100 pair: docs/distributed.md), where the exchange is a few percent of a
  // period and the faces' extra sweeps and copies cost more than they hide.
  device_domain(ncclComm_t comm, slab_grid grid, stencil::operator_spec op, bool overlap = false)
      : device_domain(comm, std::move(grid), std::move(op), overlap, true) {}
  ~device_domain();
  device_domain(const device_domain&) = delete;
  device_domain& operator=(const device_domain&) = delete;
  [[nodiscard]] const slab& local() const { return slab_; }
  [[nodiscard]] int device() const { return device_; }
  // T sweeps, asynchronous on `stream` (of this domain's device), as host_domain::iterate. Each
  // period runs the slab's sweeps, then exchanges the halos the next period needs on `stream`; with
  // overlap, it first computes the slab's faces (the planes the neighbours need) into the workspace,
  // hands them to NCCL on the exchange stream, and computes the whole slab meanwhile. Every rank must
  // call it with the same sweeps.
  T* iterate(T* a, T* b, int sweeps, stream_t stream);
  // Fills `depth` halo planes on each side of `buffer`, in stream order on `stream`.
  void exchange(T* buffer, int depth, stream_t stream);

 private:
  friend class device_group<T>;
  struct workspace;
  // agree = false: no agreement over the communicator (device_group builds every rank in one thread).
  device_domain(ncclComm_t comm, slab_grid grid, stencil::operator_spec op, bool overlap, bool agree);
  // One period in three phases, so that a single thread can drive several domains (device_group):
  // begin queues the faces and the slab's sweeps, post hands the faces to NCCL (inside the caller's
  // ncclGroupStart/End), finish waits for the halos and copies them in. Returns the result buffer.
  T* begin_period(T* current, T* other, int sweeps, int next_sweeps, stream_t stream);
  void post_period();
  void finish_period();
  void post_exchange(const T* lower_face, const T* upper_face, T* lower_halo, T* upper_halo, std::int64_t elements,
                     stream_t stream);

  ncclComm_t comm_;
  slab_grid grid_;
  stencil::operator_spec op_;
  slab slab_;
  bool overlap_;
  int device_ = -1;
  std::unique_ptr<workspace> work_;
};
extern template class device_domain<float>;
extern template class device_domain<double>;

// One process over several GPUs: a communicator a device (ncclCommInitAll) and a domain on each.
template <class T>
class device_group {
 public:
  // devices[i] holds rank i's slab. Synchronising (set-up only).
  device_group(std::vector<int> devices, slab_grid grid, stencil::operator_spec op, bool overlap = false);
  ~device_group();
  device_group(const device_group&) = delete;
  device_group& operator=(const device_group&) = delete;
  [[nodiscard]] int size() const { return static_cast<int>(domains_.size()); }
  [[nodiscard]] device_domain<T>& domain(int rank) { return *domains_[rank]; }
  [[nodiscard]] ncclComm_t communicator(int rank) const { return comms_[rank]; }
  // T sweeps on every device: a[i], b[i] and streams[i] on devices[i]. Asynchronous on each stream.
  // Returns which buffers hold the result (a's when the return is false, b's when true).
  bool iterate(std::span<T* const> a, std::span<T* const> b, int sweeps, std::span<const stream_t> streams);

 private:
  std::vector<ncclComm_t> comms_;
  std::vector<std::unique_ptr<device_domain<T>>> domains_;
};
extern template class device_group<float>;
extern template class device_group<double>;

#if SWATH_DISTRIBUTED_MPI
// A communicator of the MPI communicator's ranks on each rank's current device: rank 0's
// ncclGetUniqueId, broadcast with MPI_Bcast, then ncclCommInitRank. Collective; the caller destroys
// it with ncclCommDestroy.
ncclComm_t nccl_communicator(MPI_Comm comm);
#endif
#endif

}  // namespace swath::distributed
