// swath::distributed: the decomposition's arithmetic, then the backends against the whole grid on one
// rank. Run under mpirun with 1, 2 and 3 ranks (ctest distributed.np1/np2/np3); every rank draws the
// same grid, runs the library's stencil::iterate on all of it in the same periods of t sweeps, and
// checks its own slab of the distributed result against that bit for bit. Mismatches are summed over
// the ranks before any assertion, so that every rank passes or fails together (a rank that returned
// early would leave the others waiting in the next collective).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../../src/distributed/periods.hpp"
#include "swath/distributed.hpp"

#if SWATH_DISTRIBUTED_NCCL
#include <cuda_runtime_api.h>
#endif

namespace {

using namespace swath;
using namespace swath::distributed;
using stencil::boundary;
using stencil::shape;

int world_rank() {
#if SWATH_DISTRIBUTED_MPI
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
#else
  return 0;
#endif
}
int world_size() {
#if SWATH_DISTRIBUTED_MPI
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
#else
  return 1;
#endif
}
// The sum over the ranks (every rank gets it).
long long sum_over_ranks(long long value) {
#if SWATH_DISTRIBUTED_MPI
  long long total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
#else
  return value;
#endif
}

// ---- the decomposition's arithmetic (no communication) ------------------------------------------------

TEST(DistributedPlan, EvenSlabsGiveTheRemainderToTheFirstRanks) {
  EXPECT_EQ(even_slabs(10, 3), (std::vector<std::int64_t>{4, 3, 3}));
  EXPECT_EQ(even_slabs(1024, 2), (std::vector<std::int64_t>{512, 512}));
  EXPECT_EQ(even_slabs(5, 5), (std::vector<std::int64_t>{1, 1, 1, 1, 1}));
  EXPECT_THROW(even_slabs(2, 3), usage_error);
  EXPECT_THROW(even_slabs(8, 0), usage_error);
}

TEST(DistributedPlan, SlabOfNamesEveryBadArgument) {
  const stencil::operator_spec op{shape::star, 2, boundary::clamp, 0, {}};
  slab_grid g{{16, 8, 20, 0, 3}, {7, 7, 6}, 0};
  const slab s = slab_of(g, op, 1);
  EXPECT_EQ(s.first, 7);
  EXPECT_EQ(s.planes, 7);
  EXPECT_EQ(s.halo, 2);  // 0: the radius
  EXPECT_EQ(s.sweeps_per_exchange, 1);
  EXPECT_EQ(s.plane_elements, 16 * 8);
  EXPECT_EQ(s.lower, 0);
  EXPECT_EQ(s.upper, 2);
  EXPECT_EQ(s.buffer_elements(), (7 + 4) * 16 * 8);
  EXPECT_EQ(slab_of(g, op, 0).lower, -1);
  EXPECT_EQ(slab_of(g, op, 2).upper, -1);
  const auto message = [&](slab_grid bad, int rank = 0) {
    try {
      (void)slab_of(bad, op, rank);
    } catch (const usage_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  slab_grid sum = g;
  sum.slabs = {7, 7, 7};
  EXPECT_NE(message(sum).find("the slabs hold 21 planes; the grid's depth is 20"), std::string::npos) << message(sum);
  slab_grid thin = g;
  thin.slabs = {9, 10, 1};
  EXPECT_NE(message(thin).find("slabs[2] = 1 planes is thinner than the halo of 2"), std::string::npos) << message(thin);
  slab_grid odd = g;
  odd.halo = 3;
  EXPECT_NE(message(odd).find("positive multiple of the radius 2"), std::string::npos) << message(odd);
  slab_grid zero = g;
  zero.slabs = {10, 10, 0};
  EXPECT_NE(message(zero).find("slabs[2] = 0"), std::string::npos) << message(zero);
  EXPECT_NE(message(g, 3).find("rank 3 is not one of the 3 slabs"), std::string::npos);
  // One rank: no neighbour, so a slab thinner than the halo is fine.
  slab_grid alone{{16, 8, 1, 0, 3}, {1}, 4};
  EXPECT_NO_THROW((void)slab_of(alone, op, 0));
  // Periodic grids wrap: the first rank's lower neighbour is the last.
  const stencil::operator_spec wrap{shape::star, 1, boundary::periodic, 0, {}};
  EXPECT_EQ(slab_of(g, wrap, 0).lower, 2);
  EXPECT_EQ(slab_of(g, wrap, 2).upper, 0);
  // 2D grids are cut in rows.
  slab_grid rows{{100, 9, 1, 128, 2}, {5, 4}, 0};
  EXPECT_EQ(slab_of(rows, op, 1).plane_elements, 128);
  EXPECT_EQ(slab_of(rows, op, 1).first, 5);
}

TEST(DistributedPlan, PeriodsPutTheShortOneLast) {
  EXPECT_EQ(exchange_periods(7, 2), (std::vector<int>{2, 2, 2, 1}));
  EXPECT_EQ(exchange_periods(6, 3), (std::vector<int>{3, 3}));
  EXPECT_EQ(exchange_periods(0, 4), (std::vector<int>{}));
  EXPECT_EQ(exchange_periods(3, 8), (std::vector<int>{3}));
  EXPECT_THROW(exchange_periods(-1, 1), usage_error);
}

TEST(DistributedPlan, PeriodGeometryReachesTSweepsOfRadiusIntoTheHalo) {
  const stencil::operator_spec op{shape::star, 1, boundary::clamp, 0, {}};
  const slab_grid g{{8, 8, 40, 0, 3}, {20, 20}, 3};
  const slab first = slab_of(g, op, 0), second = slab_of(g, op, 1);
  // Rank 0: its grid starts at the face (no lower halo), ends 3 planes into the upper halo.
  const distributed::detail::period p0 = distributed::detail::geometry(first, 1, 3, 2);
  EXPECT_EQ(p0.grid.first, 3);
  EXPECT_EQ(p0.grid.last, 3 + 20 + 3);
  EXPECT_FALSE(p0.lower.present);
  ASSERT_TRUE(p0.upper.present);
  EXPECT_EQ(p0.upper.sent.first, 3 + 20 - 2);  // the next period's 2 sweeps need 2 planes
  EXPECT_EQ(p0.upper.sent.last, 3 + 20);
  EXPECT_EQ(p0.upper.inputs.first, 3 + 20 - 2 - 3);  // 3 sweeps reach 3 planes further
  EXPECT_EQ(p0.upper.inputs.last, 3 + 20 + 3);
  EXPECT_EQ(p0.upper.halo.first, 23);
  EXPECT_EQ(p0.upper.halo.last, 25);
  // Rank 1: the mirror image; its lower face's inputs start at its grid's first plane.
  const distributed::detail::period p1 = distributed::detail::geometry(second, 1, 3, 3);
  EXPECT_EQ(p1.grid.first, 0);
  EXPECT_EQ(p1.lower.sent.first, 3);
  EXPECT_EQ(p1.lower.sent.last, 6);
  EXPECT_EQ(p1.lower.inputs.first, 0);
  EXPECT_EQ(p1.lower.inputs.last, 9);
  EXPECT_EQ(p1.lower.halo.first, 0);
  // The last period sends nothing.
  EXPECT_EQ(distributed::detail::geometry(second, 1, 1, 0).lower.sent.count(), 0);
}

// ---- the backends against the whole grid ---------------------------------------------------------------

struct grid_case {
  int dims;
  std::int64_t width, height, depth;
  shape form;
  int radius;
  boundary edge;
  int sweeps;
  int halo_sweeps;  // t: the halo is t·r
  bool uneven;      // the last rank takes exactly one halo, the rest share the remainder
  std::int64_t row_pitch = 0;
};

std::string name_of(const grid_case& c) {
  char text[200];
  std::snprintf(text, sizeof(text), "%lldx%lldx%lld %s r%d %s T=%d t=%d%s pitch=%lld", static_cast<long long>(c.width),
                static_cast<long long>(c.height), static_cast<long long>(c.depth), c.form == shape::star ? "star" : "box", c.radius,
                std::string(stencil::to_string(c.edge)).c_str(), c.sweeps, c.halo_sweeps, c.uneven ? " uneven" : "",
                static_cast<long long>(c.row_pitch));
  return text;
}

// The slabs of a case for `ranks`, or empty where the grid cannot be cut so.
std::vector<std::int64_t> slabs_of(const grid_case& c, int ranks) {
  const std::int64_t extent = c.dims == 3 ? c.depth : c.height, halo = std::int64_t{c.halo_sweeps} * c.radius;
  if (ranks == 1) return {extent};
  if (extent < ranks * halo) return {};
  if (!c.uneven) {
    std::vector<std::int64_t> s = even_slabs(extent, ranks);
    return *std::min_element(s.begin(), s.end()) >= halo ? s : std::vector<std::int64_t>{};
  }
  std::vector<std::int64_t> s = even_slabs(extent - halo, ranks - 1);
  if (*std::min_element(s.begin(), s.end()) < halo) return {};
  s.push_back(halo);
  return s;
}

slab_grid slab_grid_of(const grid_case& c, int ranks) {
  return {{c.width, c.height, c.dims == 3 ? c.depth : 1, c.row_pitch, c.dims}, slabs_of(c, ranks), c.halo_sweeps * c.radius};
}
stencil::operator_spec operator_of(const grid_case& c) { return {c.form, c.radius, c.edge, 0.75, {}}; }

std::uint64_t seed_of(const grid_case& c) { return 0x5eedULL ^ (std::hash<std::string>{}(name_of(c)) & 0xffffffULL); }

// Random values in [0.5, 1.5) at every point of the stored grid; pads NaN (a step must not read them).
template <class T>
std::vector<T> draw(const grid_case& c, std::uint64_t seed) {
  const std::int64_t pitch = c.row_pitch > 0 ? c.row_pitch : c.width, planes = c.dims == 3 ? c.depth : 1;
  std::vector<T> grid(static_cast<std::size_t>(pitch * c.height * planes), std::numeric_limits<T>::quiet_NaN());
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> value(0.5, 1.5);
  for (std::int64_t row = 0; row < c.height * planes; ++row) {
    for (std::int64_t x = 0; x < c.width; ++x) grid[static_cast<std::size_t>(row * pitch + x)] = static_cast<T>(value(random));
  }
  return grid;
}

// Elements of the slab's interior whose bits differ from the whole grid's (pads skipped), plus
// non-finite values.
template <class T>
long long mismatches(const grid_case& c, const slab& s, const T* interior, const T* whole) {
  const std::int64_t pitch = c.row_pitch > 0 ? c.row_pitch : c.width;
  const T* expected = whole + s.first * s.plane_elements;
  long long wrong = 0;
  for (std::int64_t i = 0; i < s.interior_elements(); ++i) {
    if (i % pitch >= c.width) continue;
    const bool same = std::memcmp(&interior[i], &expected[i], sizeof(T)) == 0;
    wrong += (!same || !std::isfinite(interior[i])) ? 1 : 0;
  }
  return wrong;
}

std::vector<grid_case> host_cases() {
  std::vector<grid_case> cases;
  for (boundary edge : {boundary::clamp, boundary::constant, boundary::copy, boundary::periodic}) {
    cases.push_back({3, 17, 13, 23, shape::star, 1, edge, 7, 1, false});
    cases.push_back({3, 17, 13, 23, shape::star, 1, edge, 7, 2, true});
    cases.push_back({2, 37, 29, 1, shape::star, 1, edge, 9, 4, false});
  }
  cases.push_back({3, 11, 9, 25, shape::star, 2, boundary::clamp, 5, 2, false});
  cases.push_back({3, 11, 9, 25, shape::box, 1, boundary::constant, 4, 3, true});
  cases.push_back({3, 9, 7, 13, shape::star, 1, boundary::clamp, 0, 1, false});   // T = 0
  cases.push_back({3, 9, 7, 13, shape::star, 1, boundary::copy, 1, 1, true});      // one-plane slab
  cases.push_back({2, 40, 31, 1, shape::box, 2, boundary::clamp, 6, 1, true});
  return cases;
}

#if SWATH_DISTRIBUTED_MPI
template <class T>
void check_host(const grid_case& c) {
  const int ranks = world_size();
  const slab_grid g = slab_grid_of(c, ranks);
  if (g.slabs.empty()) return;  // cannot be cut into this many slabs of one halo
  const stencil::operator_spec op = operator_of(c);
  const std::uint64_t seed = seed_of(c);
  SCOPED_TRACE(name_of(c) + " seed " + std::to_string(seed) + " ranks " + std::to_string(ranks));
  // The whole grid on this rank, in the same periods.
  std::vector<T> whole = draw<T>(c, seed), scratch(whole.size());
  T* a = whole.data();
  T* b = scratch.data();
  for (int t : exchange_periods(c.sweeps, c.halo_sweeps)) {
    if (stencil::iterate(a, b, g.global, op, t) == b) std::swap(a, b);
  }
  // This rank's slab.
  host_domain<T> domain(MPI_COMM_WORLD, g, op);
  const slab& s = domain.local();
  const std::vector<T> input = draw<T>(c, seed);
  std::vector<T> first(static_cast<std::size_t>(s.buffer_elements()), std::numeric_limits<T>::quiet_NaN());
  std::vector<T> second(first.size(), std::numeric_limits<T>::quiet_NaN());
  std::copy_n(input.data() + s.first * s.plane_elements, s.interior_elements(), first.data() + s.interior_offset());
  const T* result = domain.iterate(first.data(), second.data(), c.sweeps);
  const long long wrong = sum_over_ranks(mismatches(c, s, result + s.interior_offset(), a));
  EXPECT_EQ(wrong, 0) << "elements differing from the whole grid's, over all ranks";
  // Every rank agrees on which buffer holds the result.
  EXPECT_EQ(sum_over_ranks(result == first.data() ? 1 : 0), a == whole.data() ? ranks : 0);
}

TEST(DistributedHost, EveryRankMatchesTheWholeGridBitForBit) {
  for (const grid_case& c : host_cases()) {
    check_host<float>(c);
    check_host<double>(c);
  }
}

TEST(DistributedHost, OneRanksBadArgumentFailsEveryRank) {
  const int ranks = world_size(), rank = world_rank();
  const grid_case c{3, 9, 7, 13, shape::star, 1, boundary::clamp, 1, 1, false};
  slab_grid g = slab_grid_of(c, ranks);
  const int culprit = ranks - 1;
  if (rank == culprit) g.slabs.back() += 1;  // this rank alone thinks the grid is one plane deeper
  try {
    host_domain<float> domain(MPI_COMM_WORLD, g, operator_of(c));
    ADD_FAILURE() << "rank " << rank << ": no error";
  } catch (const usage_error& e) {
    const std::string expected = "rank " + std::to_string(culprit) + " of " + std::to_string(ranks) + ": ";
    EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("the slabs hold"), std::string::npos) << e.what();
  }
}
#endif

#if SWATH_DISTRIBUTED_NCCL
int gpu_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
  return n;
}

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

std::vector<grid_case> device_cases() {
  std::vector<grid_case> cases;
  for (boundary edge : {boundary::clamp, boundary::constant, boundary::copy, boundary::periodic}) {
    cases.push_back({3, 70, 45, 131, shape::star, 1, edge, 9, 1, false});
    cases.push_back({3, 33, 31, 41, shape::star, 1, edge, 9, 4, true});
    cases.push_back({2, 1100, 67, 1, shape::star, 2, edge, 10, 3, false});
  }
  cases.push_back({3, 64, 32, 50, shape::star, 1, boundary::clamp, 8, 4, false});  // rows of whole 16 bytes: the copy engine's step
  cases.push_back({3, 33, 17, 29, shape::star, 2, boundary::clamp, 6, 2, true, 40});  // pitched rows
  cases.push_back({3, 33, 17, 29, shape::box, 1, boundary::constant, 5, 2, false});
  cases.push_back({3, 33, 17, 29, shape::star, 4, boundary::clamp, 3, 1, false});
  cases.push_back({3, 9, 7, 13, shape::star, 1, boundary::clamp, 0, 1, false});  // T = 0
  cases.push_back({3, 20, 9, 13, shape::star, 1, boundary::copy, 3, 1, true});   // one-plane slab
  return cases;
}

// The whole grid in periods of t on this process's first device; returns it on the host.
template <class T>
std::vector<T> whole_on_device(const grid_case& c, const slab_grid& g, const stencil::operator_spec& op, std::uint64_t seed, int device) {
  std::vector<T> host = draw<T>(c, seed);
  cudaSetDevice(device);
  T *a = nullptr, *b = nullptr;
  const std::size_t bytes = host.size() * sizeof(T);
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return {};
  cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice);
  for (int t : exchange_periods(c.sweeps, c.halo_sweeps)) {
    if (stencil::iterate(a, b, g.global, op, t) == b) std::swap(a, b);
  }
  cudaMemcpy(host.data(), a, bytes, cudaMemcpyDeviceToHost);
  cudaFree(a);
  cudaFree(b);
  return host;
}

template <class T>
T* device_buffer(const slab& s, const std::vector<T>* input) {
  T* p = nullptr;
  if (cudaMalloc(&p, s.buffer_elements() * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemset(p, 0xff, s.buffer_elements() * sizeof(T));  // NaN poison
  if (input != nullptr) {
    cudaMemcpy(p + s.interior_offset(), input->data() + s.first * s.plane_elements, s.interior_elements() * sizeof(T), cudaMemcpyHostToDevice);
  }
  // The memset and the copy ran on the legacy default stream, which the non-blocking streams the swept
  // calls run on do not wait for (a pageable copy may still be in flight when cudaMemcpy returns): an
  // H100 under ctest -j 8 ran the sweeps over a half-written grid (10924 elements differing).
  cudaDeviceSynchronize();
  return p;
}

// One process over `devices` GPUs (device_group).
template <class T>
void check_group(const grid_case& c, int devices, bool overlap) {
  const slab_grid g = slab_grid_of(c, devices);
  if (g.slabs.empty()) return;
  const stencil::operator_spec op = operator_of(c);
  const std::uint64_t seed = seed_of(c);
  SCOPED_TRACE(name_of(c) + " seed " + std::to_string(seed) + " devices " + std::to_string(devices) + (overlap ? " overlapped" : ""));
  const std::vector<T> whole = whole_on_device<T>(c, g, op, seed, 0);
  ASSERT_FALSE(whole.empty());
  std::vector<int> ids(static_cast<std::size_t>(devices));
  for (int i = 0; i < devices; ++i) ids[static_cast<std::size_t>(i)] = i;
  device_group<T> group(ids, g, op, overlap);
  const std::vector<T> input = draw<T>(c, seed);
  std::vector<T*> a(ids.size()), b(ids.size());
  std::vector<stream_t> streams(ids.size());
  for (int i = 0; i < devices; ++i) {
    CUDA_OK(cudaSetDevice(i));
    a[i] = device_buffer<T>(group.domain(i).local(), &input);
    b[i] = device_buffer<T>(group.domain(i).local(), nullptr);
    ASSERT_NE(a[i], nullptr);
    ASSERT_NE(b[i], nullptr);
    cudaStream_t s = nullptr;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    streams[i] = s;
  }
  const bool in_b = group.iterate(a, b, c.sweeps, streams);
  long long wrong = 0;
  for (int i = 0; i < devices; ++i) {
    const slab& s = group.domain(i).local();
    CUDA_OK(cudaSetDevice(i));
    CUDA_OK(cudaStreamSynchronize(streams[i]));
    std::vector<T> interior(static_cast<std::size_t>(s.interior_elements()));
    CUDA_OK(cudaMemcpy(interior.data(), (in_b ? b[i] : a[i]) + s.interior_offset(), interior.size() * sizeof(T), cudaMemcpyDeviceToHost));
    wrong += mismatches(c, s, interior.data(), whole.data());
    cudaFree(a[i]);
    cudaFree(b[i]);
    cudaStreamDestroy(streams[i]);
  }
  EXPECT_EQ(wrong, 0) << "elements differing from the one-GPU grid's";
}

TEST(DistributedGpu, OneProcessOverEveryVisibleGpuMatchesOneGpuBitForBit) {
  if (world_rank() != 0) GTEST_SKIP() << "one process: rank 0 runs it";
  const int devices = gpu_count();
  if (devices == 0) GTEST_SKIP() << "no CUDA device";
  for (const grid_case& c : device_cases()) {
    // Both exchanges: during the slab's sweeps (faces first) and after them.
    check_group<float>(c, devices, true);
    check_group<double>(c, devices, false);
    if (devices > 1) check_group<float>(c, 1, false);
  }
}

#if SWATH_DISTRIBUTED_MPI
// One rank a GPU (device_domain over nccl_communicator), where there are as many GPUs as ranks.
template <class T>
void check_ranks(const grid_case& c, ncclComm_t comm, bool overlap) {
  const int ranks = world_size(), rank = world_rank();
  const slab_grid g = slab_grid_of(c, ranks);
  if (g.slabs.empty()) return;
  const stencil::operator_spec op = operator_of(c);
  const std::uint64_t seed = seed_of(c);
  SCOPED_TRACE(name_of(c) + " seed " + std::to_string(seed) + " ranks " + std::to_string(ranks) + (overlap ? " overlapped" : ""));
  const std::vector<T> whole = whole_on_device<T>(c, g, op, seed, rank);
  device_domain<T> domain(comm, g, op, overlap);
  const slab& s = domain.local();
  const std::vector<T> input = draw<T>(c, seed);
  T* a = device_buffer<T>(s, &input);
  T* b = device_buffer<T>(s, nullptr);
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  const T* result = domain.iterate(a, b, c.sweeps, stream);
  cudaStreamSynchronize(stream);
  std::vector<T> interior(static_cast<std::size_t>(s.interior_elements()));
  cudaMemcpy(interior.data(), result + s.interior_offset(), interior.size() * sizeof(T), cudaMemcpyDeviceToHost);
  const long long wrong = sum_over_ranks(whole.empty() ? 1 : mismatches(c, s, interior.data(), whole.data()));
  EXPECT_EQ(wrong, 0) << "elements differing from the one-GPU grid's, over all ranks";
  cudaFree(a);
  cudaFree(b);
  cudaStreamDestroy(stream);
}

TEST(DistributedGpu, OneRankAGpuMatchesOneGpuBitForBit) {
  const int ranks = world_size(), rank = world_rank();
  if (gpu_count() < ranks) GTEST_SKIP() << gpu_count() << " CUDA devices for " << ranks << " ranks";
  ASSERT_EQ(cudaSetDevice(rank), cudaSuccess);
  const ncclComm_t comm = nccl_communicator(MPI_COMM_WORLD);
  for (const grid_case& c : device_cases()) {
    check_ranks<float>(c, comm, true);
    check_ranks<double>(c, comm, false);
  }
  // A rank whose argument is bad fails every rank, through the communicator.
  const grid_case c{3, 9, 7, 13, shape::star, 1, boundary::clamp, 1, 1, false};
  slab_grid g = slab_grid_of(c, ranks);
  if (rank == ranks - 1) g.slabs.back() += 1;
  try {
    device_domain<float> domain(comm, g, operator_of(c));
    ADD_FAILURE() << "rank " << rank << ": no error";
  } catch (const usage_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("rank " + std::to_string(ranks - 1) + " of " + std::to_string(ranks) + ": ", 0), 0u) << e.what();
  }
  ncclCommDestroy(comm);
}
#endif
#endif

}  // namespace

int main(int argc, char** argv) {
#if SWATH_DISTRIBUTED_MPI
  MPI_Init(&argc, &argv);
#endif
  ::testing::InitGoogleTest(&argc, argv);
  if (world_rank() != 0) {  // one report: rank 0's (a failure on another rank shows in the sums)
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = RUN_ALL_TESTS();
#if SWATH_DISTRIBUTED_MPI
  MPI_Finalize();
#endif
  return failed;
}
