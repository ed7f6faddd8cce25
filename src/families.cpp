// The list of families. A new family adds its accessor here (no static self-registration: the linker
// may drop unreferenced objects from a static library).
#include <string>

#include "swath/bench/family.hpp"
#include "swath/core/error.hpp"
#include "swath/lab/elementwise.hpp"
#include "swath/lab/gemm.hpp"
#include "swath/lab/histogram.hpp"
#include "swath/lab/raytracer.hpp"
#include "swath/lab/stencil.hpp"

namespace swath::bench {

std::span<const family* const> families() {
  static const family* const all[] = {&elementwise::family(), &stencil::family(), &stencil::iterated_family(), &gemm::family(), &histogram::family(),
                                              &raytracer::family()};
  return all;
}

const family& find_family(std::string_view name) {
  std::string known;
  for (const family* f : families()) {
    if (f->name() == name) return *f;
    if (!known.empty()) known += ", ";
    known += f->name();
  }
  throw usage_error("unknown family '" + std::string(name) + "' (known: " + known + ", all)");
}

}  // namespace swath::bench
