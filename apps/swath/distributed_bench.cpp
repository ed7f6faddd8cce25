// swath bench stencil --gpus N | --distributed (distributed_bench.hpp). One procedure over three
// backends: ranks of MPI processes on the CPU (host_domain), ranks of MPI processes a GPU each
// (device_domain over nccl_communicator), and one process over N GPUs (device_group).
//
// Per case: every rank's slab is checked bit for bit against one GPU (or one process) running the whole
// grid in the same periods of t sweeps; then, each a median of --reps after --warmup:
//   one      T sweeps of the one-GPU problem (strong: the whole grid; weak: one rank's share), alone;
//   ranks    T sweeps over the ranks, the slowest rank's time from a common start;
//   exchange an exchange of a full halo, alone (a batch of 20 back to back, divided by 20);
//   p2p      ranks 0 and 1 swapping one message of a halo's size with the transport alone (NCCL or MPI),
//            batched the same way. One operation timed from an idle start measures mostly its launch.
// The weights are the default taps scaled to sum 1 (an averaging operator), as the iterate family's, so
// values stay O(1) over any number of sweeps.
#include "distributed_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "swath/bench/family.hpp"
#include "swath/bench/runner.hpp"
#include "swath/core/buffer.hpp"
#include "swath/core/device.hpp"
#include "swath/core/error.hpp"
#include "swath/core/random.hpp"
#include "swath/core/timing.hpp"
#include "swath/distributed.hpp"

#if SWATH_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace swath::cli {
namespace {

using distributed::slab;
using distributed::slab_grid;

// ---- MPI, where built ------------------------------------------------------------------------------
#if SWATH_DISTRIBUTED_MPI
bool mpi_running() {
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  return up != 0 && down == 0;
}
#endif

struct settings {
  stencil::grid_layout global;  // the distributed grid
  stencil::grid_layout one;     // the one-GPU baseline's grid (strong: global; weak: one rank's share)
  stencil::operator_spec op;
  bool f64 = false;
  int sweeps = 0;
  int halo = 0;
  int ranks = 1;
  bool overlap = true;
  bool weak = false;
  std::uint64_t seed = 0;
  [[nodiscard]] std::int64_t plane_elements() const { return global.dims == 3 ? global.width * global.height : global.width; }
  [[nodiscard]] std::int64_t outer(const stencil::grid_layout& g) const { return g.dims == 3 ? g.depth : g.height; }
  [[nodiscard]] std::int64_t points(const stencil::grid_layout& g) const { return g.width * g.height * g.depth; }
};

settings settings_of(const distributed_arguments& args, int ranks, bool on_gpu) {
  settings s;
  s.ranks = ranks;
  s.overlap = args.overlap && on_gpu;  // the host backend exchanges after each period
  s.weak = args.scaling == "weak";
  s.seed = args.seed;
  if (args.sizes.size() > 1) throw usage_error("--distributed and --gpus take one --size (the grid, or with --scaling weak each rank's)");
  const std::string size_text = args.sizes.empty() ? (on_gpu ? "1024x1024x1024" : "48x40x64") : args.sizes.front();
  const bench::size_spec size = bench::parse_size(size_text);
  if (size.extents.size() != 2 && size.extents.size() != 3) throw usage_error("--size " + size_text + ": give WxH (2D) or WxHxD (3D)");
  std::map<std::string, std::string> values{{"radius", "1"}, {"shape", "star"}, {"boundary", "clamp"}, {"type", "float"},
                                            {"sweeps", on_gpu ? "100" : "8"}, {"halo", "0"}};
  for (const std::string& text : args.parameters) {
    const bench::parameter_choice choice = bench::parse_parameter(text);
    if (!values.contains(choice.key)) {
      throw usage_error("--param " + text + ": the distributed stencil takes radius, shape, boundary, type, sweeps and halo");
    }
    if (choice.values.size() != 1) throw usage_error("--param " + text + ": one value per parameter under --distributed and --gpus");
    values[choice.key] = choice.values.front();
  }
  s.op.radius = static_cast<int>(bench::parse_positive("radius", values["radius"]));
  if (values["shape"] != "star" && values["shape"] != "box") throw usage_error("shape=" + values["shape"] + ": star or box");
  s.op.form = values["shape"] == "box" ? stencil::shape::box : stencil::shape::star;
  const std::map<std::string, stencil::boundary> edges{{"clamp", stencil::boundary::clamp}, {"copy", stencil::boundary::copy},
                                                       {"constant", stencil::boundary::constant}, {"periodic", stencil::boundary::periodic}};
  if (!edges.contains(values["boundary"])) throw usage_error("boundary=" + values["boundary"] + ": clamp, copy, constant or periodic");
  s.op.edge = edges.at(values["boundary"]);
  s.op.edge_value = 1.0;
  if (values["type"] != "float" && values["type"] != "double") throw usage_error("type=" + values["type"] + ": float or double");
  s.f64 = values["type"] == "double";
  s.sweeps = values["sweeps"] == "0" ? 0 : static_cast<int>(bench::parse_positive("sweeps", values["sweeps"]));
  s.halo = values["halo"] == "0" ? s.op.radius : static_cast<int>(bench::parse_positive("halo", values["halo"]));
  const int dims = static_cast<int>(size.extents.size());
  s.one = {size.extents[0], size.extents[1], dims == 3 ? size.extents[2] : 1, 0, dims};
  s.global = s.one;
  if (s.weak) (dims == 3 ? s.global.depth : s.global.height) *= ranks;
  // The averaging operator: the default taps scaled to sum 1.
  const std::vector<stencil::tap> taps = stencil::default_taps(s.op.form, s.op.radius, dims);
  double total = 0;
  for (const stencil::tap& t : taps) total += t.weight;
  for (const stencil::tap& t : taps) s.op.weights.push_back(t.weight / total);
  return s;
}

slab_grid slab_grid_of(const settings& s) {
  return {s.global, distributed::even_slabs(s.outer(s.global), s.ranks), s.halo};
}

// Elements [first, first + count) of the grid's counter-based random input (swath/core/random.hpp), so
// that every rank draws its own slab without the rest of the grid.
template <class T>
void draw(T* host, std::int64_t first, std::int64_t count, std::uint64_t seed) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto index = static_cast<std::uint64_t>(first + i);
    if constexpr (sizeof(T) == 4) {
      host[i] = random_float(seed, index);
    } else {
      host[i] = random_double(seed, index);
    }
  }
}

// Elements whose bits differ, or that are not finite.
template <class T>
long long count_mismatches(const T* got, const T* expected, std::int64_t count) {
  long long wrong = 0;
#pragma omp parallel for reduction(+ : wrong) schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    wrong += (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0 || !std::isfinite(got[i])) ? 1 : 0;
  }
  return wrong;
}

constexpr int batch = 20;  // exchanges or swaps a timing

// What one backend measures; every method is collective over its ranks and returns the same on each.
class backend_runner {
 public:
  virtual ~backend_runner() = default;
  [[nodiscard]] virtual bool leader() const = 0;   // the rank that prints and writes
  [[nodiscard]] virtual std::string device_name() const = 0;
  [[nodiscard]] virtual std::string transport() const = 0;
  virtual long long verify() = 0;          // mismatching elements over all ranks
  virtual double time_ranks() = 0;         // seconds
  virtual double time_exchange() = 0;
  virtual double time_p2p() = 0;           // 0 with one rank
  virtual double time_one() = 0;
};

// ---- host ranks (MPI processes, CPU steps) -----------------------------------------------------------------
#if SWATH_DISTRIBUTED_MPI
double max_over_ranks(double seconds) {
  double worst = 0;
  MPI_Allreduce(&seconds, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}
long long sum_over_ranks(long long value) {
  long long total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

template <class T>
class host_runner final : public backend_runner {
 public:
  explicit host_runner(const settings& s) : s_(s), domain_(MPI_COMM_WORLD, slab_grid_of(s), s.op) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    const slab& l = domain_.local();
    a_.assign(static_cast<std::size_t>(l.buffer_elements()), T(0));
    b_ = a_;
  }
  [[nodiscard]] bool leader() const override { return rank_ == 0; }
  [[nodiscard]] std::string device_name() const override { return "cpu " + query_cpu().model; }
  [[nodiscard]] std::string transport() const override { return "MPI_Sendrecv"; }
  long long verify() override {
    const slab& l = domain_.local();
    // The whole grid in one process, the same periods.
    std::vector<T> whole(static_cast<std::size_t>(s_.points(s_.global))), scratch(whole.size());
    draw(whole.data(), 0, static_cast<std::int64_t>(whole.size()), s_.seed);
    T* x = whole.data();
    T* y = scratch.data();
    for (int t : distributed::exchange_periods(s_.sweeps, l.sweeps_per_exchange)) {
      if (stencil::iterate(x, y, s_.global, s_.op, t) == y) std::swap(x, y);
    }
    load();
    const T* result = domain_.iterate(a_.data(), b_.data(), s_.sweeps);
    return sum_over_ranks(count_mismatches(result + l.interior_offset(), x + l.first * l.plane_elements, l.interior_elements()));
  }
  double time_ranks() override {
    MPI_Barrier(MPI_COMM_WORLD);
    const stopwatch clock;
    (void)domain_.iterate(a_.data(), b_.data(), s_.sweeps);
    return max_over_ranks(clock.seconds());
  }
  double time_exchange() override {
    MPI_Barrier(MPI_COMM_WORLD);
    const stopwatch clock;
    for (int k = 0; k < batch; ++k) domain_.exchange(a_.data(), s_.halo);
    return max_over_ranks(clock.seconds()) / batch;
  }
  double time_p2p() override {
    const slab& l = domain_.local();
    if (l.ranks < 2) return 0;
    const int count = static_cast<int>(s_.halo * l.plane_elements);
    MPI_Datatype type = sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
    MPI_Barrier(MPI_COMM_WORLD);
    const stopwatch clock;
    for (int k = 0; k < batch && rank_ < 2; ++k) {
      MPI_Sendrecv(a_.data() + l.interior_offset(), count, type, 1 - rank_, 3, a_.data(), count, type, 1 - rank_, 3, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    }
    return max_over_ranks(rank_ < 2 ? clock.seconds() : 0.0) / batch;
  }
  double time_one() override {
    double seconds = 0;
    if (rank_ == 0) {
      std::vector<T> x(static_cast<std::size_t>(s_.points(s_.one))), y(x.size());
      draw(x.data(), 0, static_cast<std::int64_t>(x.size()), s_.seed);
      const stopwatch clock;
      (void)stencil::iterate(x.data(), y.data(), s_.one, s_.op, s_.sweeps);
      seconds = clock.seconds();
    }
    MPI_Bcast(&seconds, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return seconds;
  }

 private:
  void load() {
    const slab& l = domain_.local();
    draw(a_.data() + l.interior_offset(), l.first * l.plane_elements, l.interior_elements(), s_.seed);
  }
  settings s_;
  distributed::host_domain<T> domain_;
  int rank_ = 0;
  std::vector<T> a_, b_;
};
#endif

// ---- GPU ranks -----------------------------------------------------------------------------------------
#if SWATH_DISTRIBUTED_NCCL
#define CLI_CUDA(call) SWATH_CUDA_CHECK(call)

template <class T>
buffer<T> on_device(std::int64_t elements) {
  return buffer<T>(memory_kind::device, static_cast<std::size_t>(elements));
}

// Draws elements [first, first + count) of the global index space into device memory, in pieces.
template <class T>
void upload(T* device, std::int64_t first, std::int64_t count, std::uint64_t seed) {
  constexpr std::int64_t piece = 1 << 24;
  std::vector<T> host(static_cast<std::size_t>(std::min(piece, count)));
  for (std::int64_t at = 0; at < count; at += piece) {
    const std::int64_t n = std::min(piece, count - at);
    draw(host.data(), first + at, n, seed);
    CLI_CUDA(cudaMemcpy(device + at, host.data(), static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyHostToDevice));
  }
}

// The whole grid on the current device in periods of t; returns elements [first, first + count) of the
// result on the host.
template <class T>
std::vector<T> whole_grid_part(const settings& s, int t, std::int64_t first, std::int64_t count) {
  const std::int64_t n = s.points(s.global);
  buffer<T> first_grid = on_device<T>(n), second_grid = on_device<T>(n);
  T* x = first_grid.data();
  T* y = second_grid.data();
  upload(x, 0, n, s.seed);
  for (int sweeps : distributed::exchange_periods(s.sweeps, t)) {
    if (stencil::iterate(x, y, s.global, s.op, sweeps) == y) std::swap(x, y);
  }
  std::vector<T> part(static_cast<std::size_t>(count));
  CLI_CUDA(cudaMemcpy(part.data(), x + first, static_cast<std::size_t>(count) * sizeof(T), cudaMemcpyDeviceToHost));
  return part;
}

struct event_pair {
  cudaEvent_t start = nullptr, stop = nullptr;
  event_pair() {
    CLI_CUDA(cudaEventCreate(&start));
    CLI_CUDA(cudaEventCreate(&stop));
  }
  ~event_pair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  double seconds() const {
    CLI_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CLI_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return 1e-3 * ms;
  }
};

// The one-GPU problem: its two grids, drawn on the first call and kept for the repetitions.
template <class T>
struct one_device {
  int device = -1;
  buffer<T> x, y;
  // T sweeps of the one-GPU problem on `d`.
  double seconds(const settings& s, int d, cudaStream_t stream) {
    CLI_CUDA(cudaSetDevice(d));
    if (x.size() == 0) {
      device = d;
      const std::int64_t n = s.points(s.one);
      x = on_device<T>(n);
      y = on_device<T>(n);
      upload(x.data(), 0, n, s.seed);
    }
    event_pair e;
    CLI_CUDA(cudaEventRecord(e.start, stream));
    (void)stencil::iterate(x.data(), y.data(), s.one, s.op, s.sweeps, stream);
    CLI_CUDA(cudaEventRecord(e.stop, stream));
    return e.seconds();
  }
  ~one_device() {
    if (device >= 0) cudaSetDevice(device);  // the grids are freed on their device
  }
};

// One slab on one device: its buffers and stream.
template <class T>
struct device_slab {
  int device = -1;
  buffer<T> a, b;
  cudaStream_t stream = nullptr;
  void allocate(int d, const slab& l) {
    device = d;
    CLI_CUDA(cudaSetDevice(d));
    a = on_device<T>(l.buffer_elements());
    b = on_device<T>(l.buffer_elements());
    CLI_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  void load(const slab& l, std::uint64_t seed) {
    CLI_CUDA(cudaSetDevice(device));
    upload(a.data() + l.interior_offset(), l.first * l.plane_elements, l.interior_elements(), seed);
  }
  long long compare(const slab& l, const T* result, const std::vector<T>& expected) const {
    std::vector<T> got(static_cast<std::size_t>(l.interior_elements()));
    CLI_CUDA(cudaSetDevice(device));
    CLI_CUDA(cudaMemcpy(got.data(), result + l.interior_offset(), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return count_mismatches(got.data(), expected.data(), l.interior_elements());
  }
  ~device_slab() {
    if (device < 0) return;
    cudaSetDevice(device);  // the stream, then the buffers, on their device
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

#define CLI_NCCL(call) nccl_ok((call), #call, __LINE__)
void nccl_ok(ncclResult_t status, const char* call, int line) {
  if (status != ncclSuccess) {
    throw error(std::string(call) + " failed: " + ncclGetErrorString(status) + " (distributed_bench.cpp:" + std::to_string(line) + ")");
  }
}

// Ranks 0 and 1 of a communicator swapping one message (posted inside the caller's group).
template <class T>
void post_swap(ncclComm_t comm, int rank, const T* send, T* receive, std::int64_t count, cudaStream_t stream) {
  const ncclDataType_t type = sizeof(T) == 4 ? ncclFloat32 : ncclFloat64;
  CLI_NCCL(ncclSend(send, static_cast<std::size_t>(count), type, 1 - rank, comm, stream));
  CLI_NCCL(ncclRecv(receive, static_cast<std::size_t>(count), type, 1 - rank, comm, stream));
}

std::string gpu_name(int device) {
  cudaDeviceProp p{};
  CLI_CUDA(cudaGetDeviceProperties(&p, device));
  return p.name;
}

#if SWATH_DISTRIBUTED_MPI
// One rank a GPU, MPI processes, NCCL over them.
template <class T>
class mpi_gpu_runner final : public backend_runner {
 public:
  explicit mpi_gpu_runner(const settings& s) : s_(s) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    int devices = 0;
    CLI_CUDA(cudaGetDeviceCount(&devices));
    // Ranks of one node take its GPUs in turn (a node's ranks are consecutive under mpirun's default).
    device_ = rank_ % std::max(devices, 1);
    CLI_CUDA(cudaSetDevice(device_));
    comm_ = distributed::nccl_communicator(MPI_COMM_WORLD);
    domain_ = std::make_unique<distributed::device_domain<T>>(comm_, slab_grid_of(s), s.op, s.overlap);
    mine_.allocate(device_, domain_->local());
  }
  ~mpi_gpu_runner() override {
    domain_.reset();
    if (comm_ != nullptr) ncclCommDestroy(comm_);
  }
  [[nodiscard]] bool leader() const override { return rank_ == 0; }
  [[nodiscard]] std::string device_name() const override { return gpu_name(device_); }
  [[nodiscard]] std::string transport() const override { return "NCCL (MPI processes)"; }
  long long verify() override {
    const slab& l = domain_->local();
    const std::vector<T> expected = whole_grid_part<T>(s_, l.sweeps_per_exchange, l.first * l.plane_elements, l.interior_elements());
    mine_.load(l, s_.seed);
    const T* result = domain_->iterate(mine_.a.data(), mine_.b.data(), s_.sweeps, mine_.stream);
    CLI_CUDA(cudaStreamSynchronize(mine_.stream));
    return sum_over_ranks(mine_.compare(l, result, expected));
  }
  double time_ranks() override {
    return timed([&] { (void)domain_->iterate(mine_.a.data(), mine_.b.data(), s_.sweeps, mine_.stream); });
  }
  double time_exchange() override {
    return timed([&] {
      for (int k = 0; k < batch; ++k) domain_->exchange(mine_.a.data(), s_.halo, mine_.stream);
    }) / batch;
  }
  double time_p2p() override {
    const slab& l = domain_->local();
    if (l.ranks < 2) return 0;
    return timed([&] {
      for (int k = 0; k < batch && rank_ < 2; ++k) {
        CLI_NCCL(ncclGroupStart());
        post_swap(comm_, rank_, mine_.a.data() + l.interior_offset(), mine_.b.data(), s_.halo * l.plane_elements, mine_.stream);
        CLI_NCCL(ncclGroupEnd());
      }
    }) / batch;
  }
  double time_one() override {
    double seconds = 0;
    if (rank_ == 0) seconds = one_.seconds(s_, device_, mine_.stream);
    MPI_Bcast(&seconds, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return seconds;
  }

 private:
  // The slowest rank's time for `work` on its stream, from a common start (device idle, then a barrier).
  template <class F>
  double timed(F&& work) {
    CLI_CUDA(cudaStreamSynchronize(mine_.stream));
    MPI_Barrier(MPI_COMM_WORLD);
    event_pair e;
    CLI_CUDA(cudaEventRecord(e.start, mine_.stream));
    work();
    CLI_CUDA(cudaEventRecord(e.stop, mine_.stream));
    return max_over_ranks(e.seconds());
  }
  settings s_;
  int rank_ = 0, device_ = 0;
  ncclComm_t comm_ = nullptr;
  std::unique_ptr<distributed::device_domain<T>> domain_;
  device_slab<T> mine_;
  one_device<T> one_;
};
#endif

// One process over N GPUs.
template <class T>
class group_runner final : public backend_runner {
 public:
  explicit group_runner(const settings& s) : s_(s) {
    int devices = 0;
    CLI_CUDA(cudaGetDeviceCount(&devices));
    if (devices < s.ranks) {
      throw usage_error("--gpus " + std::to_string(s.ranks) + ": this machine has " + std::to_string(devices) + " CUDA device" +
                        (devices == 1 ? "" : "s"));
    }
    std::vector<int> ids(static_cast<std::size_t>(s.ranks));
    std::iota(ids.begin(), ids.end(), 0);
    group_ = std::make_unique<distributed::device_group<T>>(ids, slab_grid_of(s), s.op, s.overlap);
    slabs_ = std::vector<device_slab<T>>(ids.size());
    for (int i = 0; i < s.ranks; ++i) slabs_[static_cast<std::size_t>(i)].allocate(i, group_->domain(i).local());
    for (auto& d : slabs_) {
      a_.push_back(d.a.data());
      b_.push_back(d.b.data());
      streams_.push_back(d.stream);
    }
  }
  [[nodiscard]] bool leader() const override { return true; }
  [[nodiscard]] std::string device_name() const override { return gpu_name(0); }
  [[nodiscard]] std::string transport() const override { return "NCCL (one process, ncclCommInitAll)"; }
  long long verify() override {
    const slab& first = group_->domain(0).local();
    CLI_CUDA(cudaSetDevice(0));
    const std::vector<T> whole = whole_grid_part<T>(s_, first.sweeps_per_exchange, 0, s_.points(s_.global));
    for (int i = 0; i < s_.ranks; ++i) slabs_[static_cast<std::size_t>(i)].load(group_->domain(i).local(), s_.seed);
    const bool in_b = group_->iterate(a_, b_, s_.sweeps, streams_);
    long long wrong = 0;
    for (int i = 0; i < s_.ranks; ++i) {
      const slab& l = group_->domain(i).local();
      const auto& d = slabs_[static_cast<std::size_t>(i)];
      CLI_CUDA(cudaSetDevice(i));
      CLI_CUDA(cudaStreamSynchronize(d.stream));
      const std::vector<T> expected(whole.begin() + l.first * l.plane_elements,
                                    whole.begin() + (l.first + l.planes) * l.plane_elements);
      wrong += d.compare(l, in_b ? d.b.data() : d.a.data(), expected);
    }
    return wrong;
  }
  double time_ranks() override {
    return timed([&] { (void)group_->iterate(a_, b_, s_.sweeps, streams_); });
  }
  double time_exchange() override {
    return timed([&] {
      for (int k = 0; k < batch; ++k) {
        CLI_NCCL(ncclGroupStart());
        for (int i = 0; i < s_.ranks; ++i) group_->domain(i).exchange(a_[static_cast<std::size_t>(i)], s_.halo, streams_[static_cast<std::size_t>(i)]);
        CLI_NCCL(ncclGroupEnd());
      }
    }) / batch;
  }
  double time_p2p() override {
    if (s_.ranks < 2) return 0;
    const slab& l = group_->domain(0).local();
    return timed([&] {
      for (int k = 0; k < batch; ++k) {
        CLI_NCCL(ncclGroupStart());
        for (int i = 0; i < 2; ++i) {
          CLI_CUDA(cudaSetDevice(i));
          post_swap(group_->communicator(i), i, a_[static_cast<std::size_t>(i)] + l.interior_offset(), b_[static_cast<std::size_t>(i)],
                    s_.halo * l.plane_elements, streams_[static_cast<std::size_t>(i)]);
        }
        CLI_NCCL(ncclGroupEnd());
      }
    }) / batch;
  }
  double time_one() override { return one_.seconds(s_, 0, streams_[0]); }

 private:
  // The slowest device's time for `work` from a common start (every device idle first).
  template <class F>
  double timed(F&& work) {
    std::vector<std::unique_ptr<event_pair>> events;
    for (int i = 0; i < s_.ranks; ++i) {
      CLI_CUDA(cudaSetDevice(i));
      CLI_CUDA(cudaStreamSynchronize(streams_[static_cast<std::size_t>(i)]));
      events.push_back(std::make_unique<event_pair>());
    }
    for (int i = 0; i < s_.ranks; ++i) {
      CLI_CUDA(cudaSetDevice(i));
      CLI_CUDA(cudaEventRecord(events[static_cast<std::size_t>(i)]->start, streams_[static_cast<std::size_t>(i)]));
    }
    work();
    double worst = 0;
    for (int i = 0; i < s_.ranks; ++i) {
      CLI_CUDA(cudaSetDevice(i));
      CLI_CUDA(cudaEventRecord(events[static_cast<std::size_t>(i)]->stop, streams_[static_cast<std::size_t>(i)]));
    }
    for (int i = 0; i < s_.ranks; ++i) {
      CLI_CUDA(cudaSetDevice(i));
      worst = std::max(worst, events[static_cast<std::size_t>(i)]->seconds());
    }
    return worst;
  }
  settings s_;
  std::unique_ptr<distributed::device_group<T>> group_;
  std::vector<device_slab<T>> slabs_;
  std::vector<T*> a_, b_;
  std::vector<stream_t> streams_;
  one_device<T> one_;
};
#endif

// ---- the model ---------------------------------------------------------------------------------------------
// A period of t sweeps on a rank costs its local grid's sweeps (the slab and t·r redundant planes a
// neighbour side) plus the exchange; overlapped, the faces' sweeps (3 halos a side) and a fixed cost
// before the slab's sweeps, and the exchange only where it outlasts them. c, the seconds a point a sweep, is
// the one-GPU run's; the exchange moves one halo each way to each neighbour at the measured point-to-
// point rate (two neighbours share it). Efficiency = the one-GPU time / (N · the N-rank time) for
// strong scaling, the one-GPU time / the N-rank time for weak.
struct link {
  std::string name;
  double bytes_per_second;
  double latency;
};

double predicted_seconds(const settings& s, int ranks, double c, const link& l) {
  const std::int64_t outer = s.outer(s.weak ? s.one : s.global) * (s.weak ? ranks : 1);
  const double planes = static_cast<double>(outer) / ranks, plane_points = static_cast<double>(s.plane_elements());
  const int t = s.halo / s.op.radius;
  const double periods = std::ceil(static_cast<double>(s.sweeps) / t);
  if (ranks == 1) return c * plane_points * planes * s.sweeps;
  const int neighbours = (ranks == 2 && s.op.edge != stencil::boundary::periodic) ? 1 : 2;
  const double reach = static_cast<double>(s.halo);
  const double slab_sweeps = c * plane_points * (planes + neighbours * reach) * t;
  const bool faces = s.overlap && planes >= 4 * s.halo;
  const double face_sweeps = faces ? c * plane_points * neighbours * 3 * reach * t : 0;
  const double bytes = reach * plane_points * (s.f64 ? 8 : 4);
  const double exchange = l.latency + neighbours * bytes / l.bytes_per_second;
  // An overlapped period also pays its extra stream operations (the faces' sweeps and the halo copies,
  // the events between the streams) and the exchange's share of the HBM the slab's sweeps are bound by:
  // 36 µs a period, fitted on an H100 pair (1024^3 float: overlapped 1.5635 ms a sweep, faces 9 µs,
  // slab 1.519 ms; docs/distributed.md).
  constexpr double overlap_cost = 36e-6;
  const double period = faces ? face_sweeps + overlap_cost + std::max(slab_sweeps, exchange) : slab_sweeps + exchange;
  return periods * period;
}

}  // namespace

// ---- the procedure ------------------------------------------------------------------------------------------

namespace {

template <class T>
std::unique_ptr<backend_runner> make_runner(const distributed_arguments& args, const settings& s, bool on_gpu) {
  if (!on_gpu) {
#if SWATH_DISTRIBUTED_MPI
    return std::make_unique<host_runner<T>>(s);
#else
    throw usage_error("--distributed --device cpu: this build has no MPI backend (install libopenmpi-dev and rebuild)");
#endif
  }
#if SWATH_DISTRIBUTED_NCCL
  if (args.mpi) {
#if SWATH_DISTRIBUTED_MPI
    return std::make_unique<mpi_gpu_runner<T>>(s);
#else
    throw usage_error("--distributed: this build has no MPI backend (install libopenmpi-dev and rebuild)");
#endif
  }
  return std::make_unique<group_runner<T>>(s);
#else
  (void)args;
  throw usage_error("--gpus and --distributed on GPUs: this build has no NCCL backend (a CUDA build with NCCL found)");
#endif
}

int ranks_of(const distributed_arguments& args) {
#if SWATH_DISTRIBUTED_MPI
  if (args.mpi) {
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
  }
#endif
  if (args.mpi) throw usage_error("--distributed: this build has no MPI backend (install libopenmpi-dev and rebuild)");
  return args.gpus;
}

}  // namespace

int run_distributed_bench(const distributed_arguments& args) {
  if (args.mpi && args.gpus > 0) throw usage_error("--distributed and --gpus: choose one (mpirun gives --distributed its ranks)");
  if (args.scaling != "strong" && args.scaling != "weak") throw usage_error("--scaling " + args.scaling + ": strong or weak");
  const int ranks = ranks_of(args);
  bool on_gpu = false;
  if (args.device == "cuda" || args.device == "auto") on_gpu = query_gpu().has_value();
  if (args.device == "cuda" && !on_gpu) throw usage_error("--device cuda: no CUDA device");
  if (!args.mpi && !on_gpu) throw usage_error("--gpus " + std::to_string(args.gpus) + ": no CUDA device (on the CPU, run ranks under mpirun with --distributed)");
  const settings s = settings_of(args, ranks, on_gpu);
  const std::unique_ptr<backend_runner> runner = s.f64 ? make_runner<double>(args, s, on_gpu) : make_runner<float>(args, s, on_gpu);
  const bool talk = runner->leader() && !args.quiet;
  const auto say = [&](const char* what) {
    if (talk) std::fprintf(stderr, "swath: distributed: %s\n", what);
  };

  say("verifying every rank's slab against one device running the same periods");
  const long long wrong = runner->verify();
  std::vector<double> one, many, exchange, p2p;
  say("timing the one-device run");
  for (int k = 0; k < args.warmup + args.reps; ++k) {
    const double x = runner->time_one();
    if (k >= args.warmup) one.push_back(x);
  }
  say("timing the ranks, the exchange and the transport's own swap");
  for (int k = 0; k < args.warmup + args.reps; ++k) {
    // The exchange and the transport's swap alternate which goes first, so neither always follows the sweeps.
    const double x = runner->time_ranks();
    double y = 0, z = 0;
    if (k % 2 == 0) {
      y = runner->time_exchange();
      z = runner->time_p2p();
    } else {
      z = runner->time_p2p();
      y = runner->time_exchange();
    }
    if (k >= args.warmup) {
      many.push_back(x);
      exchange.push_back(y);
      p2p.push_back(z);
    }
  }
  if (!runner->leader()) return wrong == 0 ? 0 : 1;

  const double t_one = summarize(one).median_s, t_many = summarize(many).median_s, t_exchange = summarize(exchange).median_s,
               t_p2p = summarize(p2p).median_s;
  const slab_grid g = slab_grid_of(s);
  const std::int64_t plane_bytes = s.plane_elements() * (s.f64 ? 8 : 4);
  const double message = static_cast<double>(s.halo * plane_bytes);
  const double efficiency = s.weak ? t_one / t_many : t_one / (ranks * t_many);
  const double rate = static_cast<double>(s.sweeps) * static_cast<double>(s.points(s.global)) / t_many;
  const double one_rate = static_cast<double>(s.sweeps) * static_cast<double>(s.points(s.one)) / t_one;
  const double c = t_one / (static_cast<double>(s.points(s.one)) * std::max(s.sweeps, 1));
  const double p2p_rate = t_p2p > 0 ? message / t_p2p : 0;
  // The model: this run's link, then NVLink at the measured rate for 4 and 8 ranks, and one GPU a node
  // over 400 Gb/s (50 GB/s, 5 µs).
  const link measured{"this run's link", p2p_rate > 0 ? p2p_rate : 1e18, 0};
  nlohmann::json predictions = nlohmann::json::array();
  for (int n : {1, 2, 4, 8}) {
    for (const link& l : {measured, link{"400 Gb/s network", 50e9, 5e-6}}) {
      for (const bool overlapped : {false, true}) {
        settings variant = s;
        variant.overlap = overlapped;
        const double predicted = predicted_seconds(variant, n, c, l);
        const double one_seconds =
            c * static_cast<double>(s.weak ? s.points(s.one) : s.points(s.global)) * s.sweeps;
        predictions.push_back({{"ranks", n}, {"link", l.name}, {"link_GBps", l.bytes_per_second / 1e9}, {"overlap", overlapped},
                               {"seconds", predicted}, {"efficiency", s.weak ? one_seconds / predicted : one_seconds / (n * predicted)}});
      }
    }
  }
  const double predicted_here = predicted_seconds(s, ranks, c, measured);
  const double predicted_efficiency = s.weak ? t_one / predicted_here : t_one / (ranks * predicted_here);
  std::vector<std::int64_t> extents{s.global.width, s.global.height};
  if (s.global.dims == 3) extents.push_back(s.global.depth);
  std::vector<std::int64_t> one_extents{s.one.width, s.one.height};
  if (s.one.dims == 3) one_extents.push_back(s.one.depth);
  const nlohmann::json row = {
      {"device", runner->device_name()},
      {"transport", runner->transport()},
      {"ranks", ranks},
      {"scaling", s.weak ? "weak" : "strong"},
      {"global", extents},
      {"one_device_grid", one_extents},
      {"slabs", g.slabs},
      {"type", s.f64 ? "double" : "float"},
      {"shape", std::string(stencil::to_string(s.op.form))},
      {"radius", s.op.radius},
      {"boundary", std::string(stencil::to_string(s.op.edge))},
      {"sweeps", s.sweeps},
      {"halo_planes", s.halo},
      {"sweeps_per_exchange", s.halo / s.op.radius},
      {"overlap", s.overlap},
      {"halo_message_bytes", message},
      {"verified_bit_for_bit", wrong == 0},
      {"mismatching_elements", wrong},
      {"one_device_seconds", t_one},
      {"ranks_seconds", t_many},
      {"exchange_seconds", t_exchange},
      {"p2p_seconds", t_p2p},
      {"p2p_GBps", p2p_rate / 1e9},
      {"exchange_vs_p2p", t_exchange > 0 && t_p2p > 0 ? t_p2p / t_exchange : 0.0},
      {"efficiency", efficiency},
      {"global_Gcells_per_s", rate / 1e9},
      {"one_device_Gcells_per_s", one_rate / 1e9},
      {"speedup", rate / one_rate},
      {"predicted_efficiency", predicted_efficiency},
      {"repetitions", args.reps},
      {"seed", s.seed},
  };
  std::printf("%-5s %-6s %-16s %-6s %-3s %-5s %-9s %-10s %-10s %-10s %-9s %-8s %-10s %-9s %s\n", "ranks", "scale", "grid", "type", "r", "halo",
              "verified", "one ms", "ranks ms", "exch ms", "p2p GB/s", "exch/p2p", "Gcells/s", "effic.", "model");
  std::printf("%-5d %-6s %-16s %-6s %-3d %-5d %-9s %-10.3f %-10.3f %-10.4f %-9.1f %-8.2f %-10.1f %-9.3f %.3f\n", ranks, s.weak ? "weak" : "strong",
              bench::size_spec{extents}.text().c_str(), s.f64 ? "double" : "float", s.op.radius, s.halo, wrong == 0 ? "bitwise" : "NO",
              1e3 * t_one, 1e3 * t_many, 1e3 * t_exchange, p2p_rate / 1e9, t_exchange > 0 && t_p2p > 0 ? t_p2p / t_exchange : 0.0, rate / 1e9,
              efficiency, predicted_efficiency);
  if (!args.json.empty()) {
    const nlohmann::json record = {{"kind", "distributed-stencil"}, {"rows", nlohmann::json::array({row})}, {"model", predictions},
                                   {"environment", bench::environment_json()}};
    bench::write_file_atomically(args.json, record.dump(2) + "\n");
  }
  if (wrong != 0) {
    std::fprintf(stderr, "swath: %lld elements of the ranks' result differ from one device's\n", wrong);
    return 1;
  }
  return 0;
}

void start_mpi(int* argc, char*** argv) {
#if SWATH_DISTRIBUTED_MPI
  if (!mpi_running()) MPI_Init(argc, argv);
#else
  (void)argc;
  (void)argv;
#endif
}

void finish_mpi() {
#if SWATH_DISTRIBUTED_MPI
  if (mpi_running()) MPI_Finalize();
#endif
}

void abort_mpi(int code) {
#if SWATH_DISTRIBUTED_MPI
  int ranks = 1;
  if (mpi_running()) MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (mpi_running() && ranks > 1) MPI_Abort(MPI_COMM_WORLD, code);
  finish_mpi();
#endif
  std::exit(code);
}

int mpi_rank() {
#if SWATH_DISTRIBUTED_MPI
  int rank = 0;
  if (mpi_running()) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
#else
  return 0;
#endif
}

}  // namespace swath::cli
