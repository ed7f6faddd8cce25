// device_domain and device_group: device memory, one rank per GPU, halos by NCCL, overlapped with the
// slab's sweeps. One period (t sweeps between exchanges), on the caller's stream S and the domain's
// exchange stream E:
//   S: copy each face's input planes (sent + 2·t·r, at most 3 halos) to the workspace, run the t sweeps
//      there (the library's iterate: the same step as the slab's), record faces_done;
//   S: the t sweeps of the whole slab (its redundant face planes included);
//   E: wait faces_done; send the faces, receive the halos into the workspace (NCCL, grouped);
//   S: wait for E, copy the halos into the result's halo planes.
// So the exchange runs while the slab's sweeps do; its cost is the faces' extra sweeps (3 halos of each
// face against the slab's planes) and the halo copies. Thin slabs (under 4 halos) skip the faces and
// exchange after the sweeps, on S.
#include <cuda_runtime_api.h>

#include <climits>
#include <exception>
#include <string>

#include "../api/placement.hpp"
#include "swath/core/buffer.hpp"
#include "agreement.hpp"
#include "nccl_check.hpp"
#include "periods.hpp"

namespace swath::distributed {
namespace {

template <class T>
ncclDataType_t nccl_type() {
  return sizeof(T) == 4 ? ncclFloat32 : ncclFloat64;
}

}  // namespace

template <class T>
struct device_domain<T>::workspace {
  cudaStream_t exchange_stream = nullptr;
  cudaEvent_t faces_done = nullptr;
  cudaEvent_t halos_done = nullptr;
  buffer<T> faces;  // [side][buffer]: 2 × 2 blocks of 3·halo planes (overlapped exchanges only)
  buffer<T> halos;  // [side]: 2 blocks of halo planes
  std::int64_t face_elements = 0, halo_elements = 0;
  buffer<detail::failure_record> agreement;  // the set-up's agreement: a rank, then a failure_record
  struct {
    T* result = nullptr;
    detail::period geometry;
    bool faces_computed = false;
    const T* lower_face = nullptr;
    const T* upper_face = nullptr;
    cudaStream_t stream = nullptr;
  } pending;
  T* face(int side, int copy) { return faces.data() + (2 * side + copy) * face_elements; }
  T* halo(int side) { return halos.data() + side * halo_elements; }
  ~workspace() {  // destructors do not throw: errors here are left to the next call that checks
    if (faces_done != nullptr) (void)cudaEventDestroy(faces_done);
    if (halos_done != nullptr) (void)cudaEventDestroy(halos_done);
    if (exchange_stream != nullptr) (void)cudaStreamDestroy(exchange_stream);
  }
};

template <class T>
device_domain<T>::device_domain(ncclComm_t comm, slab_grid grid, stencil::operator_spec op, bool overlap, bool agree)
    : comm_(comm), grid_(std::move(grid)), op_(std::move(op)), overlap_(overlap), work_(std::make_unique<workspace>()) {
  constexpr const char* f = "swath::distributed::device_domain";
  api::require(comm != nullptr, f, "comm is null");
  int rank = 0, ranks = 1;
  SWATH_NCCL_CHECK(ncclCommUserRank(comm_, &rank));
  SWATH_NCCL_CHECK(ncclCommCount(comm_, &ranks));
  SWATH_NCCL_CHECK(ncclCommCuDevice(comm_, &device_));
  const api::device_scope on_device(device_);
  SWATH_CUDA_CHECK(cudaStreamCreateWithFlags(&work_->exchange_stream, cudaStreamNonBlocking));
  if (agree) work_->agreement = buffer<detail::failure_record>(memory_kind::device, 1);
  std::exception_ptr failure;
  try {
    api::require(static_cast<int>(grid_.slabs.size()) == ranks, f,
                 "slabs has " + std::to_string(grid_.slabs.size()) + " entries for a communicator of " + std::to_string(ranks) + " ranks");
    slab_ = slab_of(grid_, op_, rank);
    SWATH_CUDA_CHECK(cudaEventCreateWithFlags(&work_->faces_done, cudaEventDisableTiming));
    SWATH_CUDA_CHECK(cudaEventCreateWithFlags(&work_->halos_done, cudaEventDisableTiming));
    if (slab_.ranks > 1 && overlap_) {
      work_->face_elements = 3 * slab_.halo * slab_.plane_elements;
      work_->halo_elements = slab_.halo * slab_.plane_elements;
      work_->faces = buffer<T>(memory_kind::device, static_cast<std::size_t>(4 * work_->face_elements));
      work_->halos = buffer<T>(memory_kind::device, static_cast<std::size_t>(2 * work_->halo_elements));
    }
  } catch (...) {
    if (!agree) throw;
    failure = std::current_exception();
  }
  if (!agree) return;
  // The first failing rank (a min over "rank if failed, else INT_MAX"), then its error, to every rank.
  cudaStream_t s = work_->exchange_stream;
  void* shared = work_->agreement.data();
  int first = failure ? rank : INT_MAX;
  SWATH_CUDA_CHECK(cudaMemcpyAsync(shared, &first, sizeof(int), cudaMemcpyHostToDevice, s));
  SWATH_NCCL_CHECK(ncclAllReduce(shared, shared, 1, ncclInt32, ncclMin, comm_, s));
  SWATH_CUDA_CHECK(cudaMemcpyAsync(&first, shared, sizeof(int), cudaMemcpyDeviceToHost, s));
  SWATH_CUDA_CHECK(cudaStreamSynchronize(s));
  if (first == INT_MAX) return;
  detail::failure_record record = rank == first ? detail::record_of(failure) : detail::failure_record{};
  SWATH_CUDA_CHECK(cudaMemcpyAsync(shared, &record, sizeof(record), cudaMemcpyHostToDevice, s));
  SWATH_NCCL_CHECK(ncclBroadcast(shared, shared, sizeof(record), ncclUint8, first, comm_, s));
  SWATH_CUDA_CHECK(cudaMemcpyAsync(&record, shared, sizeof(record), cudaMemcpyDeviceToHost, s));
  SWATH_CUDA_CHECK(cudaStreamSynchronize(s));
  detail::throw_agreed(first, ranks, record);
}

template <class T>
device_domain<T>::~device_domain() = default;

template <class T>
void device_domain<T>::post_exchange(const T* lower_face, const T* upper_face, T* lower_halo, T* upper_halo,
                                     std::int64_t elements, stream_t stream) {
  const auto count = static_cast<std::size_t>(elements);
  // Upward (the top planes to the upper neighbour's lower halo), then downward: between one pair of
  // ranks NCCL matches sends and receives in order, so the two directions stay apart even when both
  // neighbours are one rank (two ranks, periodic).
  if (slab_.upper >= 0) SWATH_NCCL_CHECK(ncclSend(upper_face, count, nccl_type<T>(), slab_.upper, comm_, stream));
  if (slab_.lower >= 0) SWATH_NCCL_CHECK(ncclRecv(lower_halo, count, nccl_type<T>(), slab_.lower, comm_, stream));
  if (slab_.lower >= 0) SWATH_NCCL_CHECK(ncclSend(lower_face, count, nccl_type<T>(), slab_.lower, comm_, stream));
  if (slab_.upper >= 0) SWATH_NCCL_CHECK(ncclRecv(upper_halo, count, nccl_type<T>(), slab_.upper, comm_, stream));
}

template <class T>
void device_domain<T>::exchange(T* buffer, int depth, stream_t stream) {
  constexpr const char* f = "swath::distributed::device_domain::exchange";
  api::require(buffer != nullptr, f, "buffer is null");
  api::require(depth >= 0 && depth <= slab_.halo, f, "depth = " + std::to_string(depth) + " must be 0 to the halo, " + std::to_string(slab_.halo));
  if (depth == 0 || slab_.ranks == 1) return;
  const api::device_scope on_device(device_);
  const std::int64_t h = slab_.halo, n = slab_.planes, p = slab_.plane_elements;
  SWATH_NCCL_CHECK(ncclGroupStart());
  post_exchange(buffer + h * p, buffer + (h + n - depth) * p, buffer + (h - depth) * p, buffer + (h + n) * p, depth * p, stream);
  SWATH_NCCL_CHECK(ncclGroupEnd());
}

template <class T>
T* device_domain<T>::begin_period(T* current, T* other, int sweeps, int next_sweeps, stream_t stream) {
  workspace& w = *work_;
  const detail::period g = detail::geometry(slab_, op_.radius, sweeps, next_sweeps);
  const std::int64_t p = slab_.plane_elements;
  w.pending = {};
  w.pending.geometry = g;
  w.pending.stream = stream;
  w.pending.faces_computed = w.faces.size() > 0 && next_sweeps > 0 && slab_.planes >= 4 * slab_.halo;
  if (w.pending.faces_computed) {
    // One sweep reads its input and writes only the other buffer; more ping-pong through both.
    const bool in_place_faces = sweeps == 1 && (p * static_cast<std::int64_t>(sizeof(T))) % 16 == 0 &&
                                reinterpret_cast<std::uintptr_t>(current) % 16 == 0;
    const detail::face* faces[2] = {&g.lower, &g.upper};
    for (int side = 0; side < 2; ++side) {
      const detail::face& face = *faces[side];
      if (!face.present) continue;
      // A face's single sweep reads its input planes in place where every plane starts on 16 bytes as
      // the buffer does (the dispatch then picks the step the slab gets); otherwise, and for several
      // sweeps, it works on a copy at the workspace's aligned start. Faces write only the workspace.
      T* input = w.face(side, 0);
      if (!in_place_faces) {
        SWATH_CUDA_CHECK(cudaMemcpyAsync(input, current + face.inputs.first * p, face.inputs.count() * p * sizeof(T),
                                         cudaMemcpyDeviceToDevice, stream));
      } else {
        input = current + face.inputs.first * p;
      }
      const T* result = stencil::iterate(input, w.face(side, 1), detail::layout_of(grid_.global, face.inputs.count()), op_, sweeps, stream);
      (side == 0 ? w.pending.lower_face : w.pending.upper_face) = result + (face.sent.first - face.inputs.first) * p;
    }
    SWATH_CUDA_CHECK(cudaEventRecord(w.faces_done, stream));
  }
  T* result = stencil::iterate(current + g.grid.first * p, other + g.grid.first * p, detail::layout_of(grid_.global, g.grid.count()),
                               op_, sweeps, stream);
  w.pending.result = result == current + g.grid.first * p ? current : other;
  return w.pending.result;
}

template <class T>
void device_domain<T>::post_period() {
  workspace& w = *work_;
  const detail::period& g = w.pending.geometry;
  if (g.next_sweeps == 0) return;
  const std::int64_t p = slab_.plane_elements, elements = std::int64_t{g.next_sweeps} * op_.radius * p;
  T* r = w.pending.result;
  if (w.pending.faces_computed) {
    SWATH_CUDA_CHECK(cudaStreamWaitEvent(w.exchange_stream, w.faces_done, 0));
    post_exchange(w.pending.lower_face, w.pending.upper_face, w.halo(0), w.halo(1), elements, w.exchange_stream);
  } else {
    post_exchange(r + g.lower.sent.first * p, r + g.upper.sent.first * p, r + g.lower.halo.first * p, r + g.upper.halo.first * p,
                  elements, w.pending.stream);
  }
}

template <class T>
void device_domain<T>::finish_period() {
  workspace& w = *work_;
  const detail::period& g = w.pending.geometry;
  if (g.next_sweeps == 0 || !w.pending.faces_computed) return;
  const std::int64_t p = slab_.plane_elements;
  SWATH_CUDA_CHECK(cudaEventRecord(w.halos_done, w.exchange_stream));
  SWATH_CUDA_CHECK(cudaStreamWaitEvent(w.pending.stream, w.halos_done, 0));
  const detail::face* faces[2] = {&g.lower, &g.upper};
  for (int side = 0; side < 2; ++side) {
    if (!faces[side]->present) continue;
    SWATH_CUDA_CHECK(cudaMemcpyAsync(w.pending.result + faces[side]->halo.first * p, w.halo(side), faces[side]->halo.count() * p * sizeof(T),
                                     cudaMemcpyDeviceToDevice, w.pending.stream));
  }
}

template <class T>
T* device_domain<T>::iterate(T* a, T* b, int sweeps, stream_t stream) {
  constexpr const char* f = "swath::distributed::device_domain::iterate";
  api::require(a != nullptr && b != nullptr, f, "a buffer is null");
  const api::call_site site = api::place_call(f, {{"a", a}, {"b", b}}, stream);
  api::require(site.on_device && site.device == device_, f,
               "a and b must be device memory on the communicator's device " + std::to_string(device_));
  const std::vector<int> periods = exchange_periods(sweeps, slab_.sweeps_per_exchange);
  const api::device_scope on_device(device_);
  // One rank has no neighbours: its periods run on the interior alone (a periodic grid wraps there) and
  // its exchanges post nothing.
  T* current = a;
  T* other = b;
  if (!periods.empty()) exchange(current, periods.front() * op_.radius, stream);
  for (std::size_t k = 0; k < periods.size(); ++k) {
    const int next = k + 1 < periods.size() ? periods[k + 1] : 0;
    T* result = begin_period(current, other, periods[k], next, stream);
    SWATH_NCCL_CHECK(ncclGroupStart());
    post_period();
    SWATH_NCCL_CHECK(ncclGroupEnd());
    finish_period();
    if (result != current) std::swap(current, other);
  }
  return current;
}

template <class T>
device_group<T>::device_group(std::vector<int> devices, slab_grid grid, stencil::operator_spec op, bool overlap) {
  constexpr const char* f = "swath::distributed::device_group";
  api::require(!devices.empty(), f, "devices is empty");
  api::require(grid.slabs.size() == devices.size(), f,
               "slabs has " + std::to_string(grid.slabs.size()) + " entries for " + std::to_string(devices.size()) + " devices");
  comms_.resize(devices.size());
  SWATH_NCCL_CHECK(ncclCommInitAll(comms_.data(), static_cast<int>(devices.size()), devices.data()));
  try {
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const api::device_scope on_device(devices[i]);
      domains_.emplace_back(new device_domain<T>(comms_[i], grid, op, overlap, false));
    }
  } catch (...) {
    domains_.clear();
    for (ncclComm_t c : comms_) (void)ncclCommDestroy(c);
    throw;
  }
}

template <class T>
device_group<T>::~device_group() {
  domains_.clear();
  for (ncclComm_t c : comms_) (void)ncclCommDestroy(c);
}

template <class T>
bool device_group<T>::iterate(std::span<T* const> a, std::span<T* const> b, int sweeps, std::span<const stream_t> streams) {
  constexpr const char* f = "swath::distributed::device_group::iterate";
  const std::size_t n = domains_.size();
  api::require(a.size() == n && b.size() == n && streams.size() == n, f,
               "a, b and streams need one entry for each of the " + std::to_string(n) + " devices");
  for (std::size_t i = 0; i < n; ++i) {
    api::require(a[i] != nullptr && b[i] != nullptr, f, "a buffer of device " + std::to_string(i) + " is null");
    const api::call_site site = api::place_call(f, {{"a", a[i]}, {"b", b[i]}}, streams[i]);
    api::require(site.on_device && site.device == domains_[i]->device(), f,
                 "a[" + std::to_string(i) + "] and b[" + std::to_string(i) + "] must be on device " + std::to_string(domains_[i]->device()));
  }
  const std::vector<int> periods = exchange_periods(sweeps, domains_[0]->local().sweeps_per_exchange);
  std::vector<T*> current(a.begin(), a.end()), other(b.begin(), b.end());
  if (!periods.empty()) {
    // One group over every device's exchange (groups nest: each exchange's own is inside this one).
    SWATH_NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < n; ++i) domains_[i]->exchange(current[i], periods.front() * domains_[i]->op_.radius, streams[i]);
    SWATH_NCCL_CHECK(ncclGroupEnd());
  }
  bool in_b = false;
  for (std::size_t k = 0; k < periods.size(); ++k) {
    const int next = k + 1 < periods.size() ? periods[k + 1] : 0;
    bool swapped = false;
    for (std::size_t i = 0; i < n; ++i) {
      const api::device_scope on_device(domains_[i]->device());
      T* result = domains_[i]->begin_period(current[i], other[i], periods[k], next, streams[i]);
      swapped = result != current[i];
    }
    SWATH_NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < n; ++i) {
      const api::device_scope on_device(domains_[i]->device());
      domains_[i]->post_period();
    }
    SWATH_NCCL_CHECK(ncclGroupEnd());
    for (std::size_t i = 0; i < n; ++i) {
      const api::device_scope on_device(domains_[i]->device());
      domains_[i]->finish_period();
      if (swapped) std::swap(current[i], other[i]);
    }
    if (swapped) in_b = !in_b;
  }
  return in_b;
}

template class device_domain<float>;
template class device_domain<double>;
template class device_group<float>;
template class device_group<double>;

}  // namespace swath::distributed
