// host_domain: host memory, one rank per MPI process, halos by MPI_Sendrecv, the library's CPU steps.
#include <climits>
#include <exception>
#include <string>

#include "../api/placement.hpp"
#include "agreement.hpp"
#include "periods.hpp"

namespace swath::distributed {
namespace {

#define SWATH_MPI_CHECK(call)                                                                           \
  do {                                                                                                  \
    const int swath_mpi_status_ = (call);                                                               \
    if (swath_mpi_status_ != MPI_SUCCESS) mpi_failed(swath_mpi_status_, #call, __FILE__, __LINE__);     \
  } while (0)

[[noreturn]] void mpi_failed(int status, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw error(std::string(call) + " failed: " + text + " (" + file + ":" + std::to_string(line) + ")");
}

void agree(MPI_Comm comm, const std::exception_ptr& failure) {
  int rank = 0, ranks = 1;
  SWATH_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  SWATH_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  const int mine = failure ? rank : INT_MAX;
  int first = INT_MAX;
  SWATH_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == INT_MAX) return;
  detail::failure_record record = rank == first ? detail::record_of(failure) : detail::failure_record{};
  SWATH_MPI_CHECK(MPI_Bcast(&record, sizeof(record), MPI_BYTE, first, comm));
  detail::throw_agreed(first, ranks, record);
}

template <class T>
MPI_Datatype mpi_type() {
  return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

int neighbour(int rank) { return rank >= 0 ? rank : MPI_PROC_NULL; }

}  // namespace

template <class T>
host_domain<T>::host_domain(MPI_Comm comm, slab_grid grid, stencil::operator_spec op)
    : comm_(comm), grid_(std::move(grid)), op_(std::move(op)) {
  std::exception_ptr failure;
  try {
    int rank = 0, ranks = 1;
    SWATH_MPI_CHECK(MPI_Comm_rank(comm_, &rank));
    SWATH_MPI_CHECK(MPI_Comm_size(comm_, &ranks));
    api::require(static_cast<int>(grid_.slabs.size()) == ranks, "swath::distributed::host_domain",
                 "slabs has " + std::to_string(grid_.slabs.size()) + " entries for a communicator of " + std::to_string(ranks) + " ranks");
    slab_ = slab_of(grid_, op_, rank);
  } catch (...) {
    failure = std::current_exception();
  }
  agree(comm_, failure);
}

template <class T>
void host_domain<T>::exchange(T* buffer, int depth) {
  constexpr const char* f = "swath::distributed::host_domain::exchange";
  api::require(buffer != nullptr, f, "buffer is null");
  api::require(depth >= 0 && depth <= slab_.halo, f, "depth = " + std::to_string(depth) + " must be 0 to the halo, " + std::to_string(slab_.halo));
  const std::int64_t elements = depth * slab_.plane_elements;
  if (elements == 0 || slab_.ranks == 1) return;  // nothing to send: MPI's message limit does not apply
  api::require(elements <= INT_MAX, f, "a halo of " + std::to_string(elements) + " elements is more than one MPI message carries");
  const std::int64_t h = slab_.halo, n = slab_.planes, p = slab_.plane_elements;
  const int count = static_cast<int>(elements);
  // Upward: the top planes to the upper neighbour's lower halo; then downward. Two tags keep the pairs
  // apart when both neighbours are one rank (two ranks, periodic).
  SWATH_MPI_CHECK(MPI_Sendrecv(buffer + (h + n - depth) * p, count, mpi_type<T>(), neighbour(slab_.upper), 1,
                               buffer + (h - depth) * p, count, mpi_type<T>(), neighbour(slab_.lower), 1, comm_, MPI_STATUS_IGNORE));
  SWATH_MPI_CHECK(MPI_Sendrecv(buffer + h * p, count, mpi_type<T>(), neighbour(slab_.lower), 2,
                               buffer + (h + n) * p, count, mpi_type<T>(), neighbour(slab_.upper), 2, comm_, MPI_STATUS_IGNORE));
}

template <class T>
T* host_domain<T>::iterate(T* a, T* b, int sweeps) {
  constexpr const char* f = "swath::distributed::host_domain::iterate";
  api::require(a != nullptr && b != nullptr, f, "a buffer is null");
  const std::vector<int> periods = exchange_periods(sweeps, slab_.sweeps_per_exchange);
  const std::int64_t p = slab_.plane_elements;
  // One rank has no neighbours: its periods run on the interior alone (a periodic grid wraps there) and
  // its exchanges return at once.
  T* current = a;
  T* other = b;
  if (!periods.empty()) exchange(current, periods.front() * op_.radius);
  for (std::size_t k = 0; k < periods.size(); ++k) {
    const int next = k + 1 < periods.size() ? periods[k + 1] : 0;
    const detail::period g = detail::geometry(slab_, op_.radius, periods[k], next);
    T* result = stencil::iterate(current + g.grid.first * p, other + g.grid.first * p,
                                 detail::layout_of(grid_.global, g.grid.count()), op_, periods[k]);
    if (result != current + g.grid.first * p) std::swap(current, other);
    if (next > 0) exchange(current, next * op_.radius);
  }
  return current;
}

template class host_domain<float>;
template class host_domain<double>;

}  // namespace swath::distributed
