// The elementwise problem's functions the library and the lab share: names, work, support.
#include <string_view>
#include "steps.hpp"

namespace swath::elementwise {

std::string_view to_string(operation op) {
  switch (op) {
    case operation::vector_add: return "vector_add";
    case operation::matrix_add: return "matrix_add";
    case operation::copy_to_device: return "copy_to_device";
    case operation::copy_to_host: return "copy_to_host";
  }
  return "?";
}

work_amount add_work(const problem& p) {
  const auto n = static_cast<double>(p.count());
  return {12.0 * n, n};
}

work_amount copy_work(const problem& p) { return {4.0 * static_cast<double>(p.count()), 0.0}; }

support any_size(const problem&) { return support::yes(); }

}  // namespace swath::elementwise
