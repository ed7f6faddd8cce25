// The stencil problem's functions the library and the lab share: names, default taps, work, support, weights.
#include <cmath>
#include <string>
#include <vector>
#include "steps.hpp"
#include "swath/core/error.hpp"
#include "swath/core/random.hpp"

namespace swath::stencil {

std::string_view to_string(shape form) { return form == shape::star ? "star" : "box"; }
std::string_view to_string(boundary edge) {
  switch (edge) {
    case boundary::copy: return "copy";
    case boundary::clamp: return "clamp";
    case boundary::constant: return "constant";
    case boundary::periodic: return "periodic";
  }
  return "?";
}
std::string_view to_string(traversal order) {
  switch (order) {
    case traversal::row_major: return "row_major";
    case traversal::tiled: return "tiled";
    case traversal::column: return "column";
    case traversal::zigzag: return "zigzag";
  }
  return "?";
}

std::vector<tap> default_taps(shape form, int radius, int dims) {
  std::vector<tap> taps;
  const int z_radius = dims == 3 ? radius : 0;
  for (int dz = -z_radius; dz <= z_radius; ++dz) {
    for (int dy = -radius; dy <= radius; ++dy) {
      for (int dx = -radius; dx <= radius; ++dx) {
        const int off_axis = (dx != 0) + (dy != 0) + (dz != 0);
        if (form == shape::star && off_axis > 1) continue;
        taps.push_back({dx, dy, dz, 0});
      }
    }
  }
  // A fixed pattern of weights in [0.5, 2), scaled by 1 / taps so outputs stay near the inputs' size.
  for (std::size_t k = 0; k < taps.size(); ++k) {
    taps[k].weight = std::fabs(random_double(0x57e9c11, k)) / static_cast<double>(taps.size());
  }
  return taps;
}

grid_layout layout_of(const problem& p) { return {p.grid.width, p.grid.height, p.depth, p.row_pitch, p.dims}; }

operator_spec operator_of(const problem& p) {
  operator_spec spec{p.form, p.radius, p.edge, p.edge_value, {}};
  for (const tap& t : p.taps) spec.weights.push_back(t.weight);
  return spec;
}

work_amount stencil_work(const problem& p) {
  const auto points = static_cast<double>(p.points());
  return {2.0 * static_cast<double>(p.element_bytes()) * points, 2.0 * static_cast<double>(p.taps.size()) * points,
          points};
}

support any_stencil(const problem& p) {
  if (p.radius < 1 || p.radius > 4) return support::no("radius must be 1 to 4");
  return support::yes();
}

support any_dense_stencil(const problem& p) {
  if (p.pitch() != p.grid.width) {
    return support::no("rows back to back only (pitch=dense); pitched grids run on the CUDA steps");
  }
  return any_stencil(p);
}

support any_star(const problem& p) {
  if (p.form != shape::star) return support::no("star stencils only (shape=star); boxes run on stencil/cuda/10_box_planes");
  return any_stencil(p);
}

support any_box(const problem& p) {
  if (p.form != shape::box) return support::no("box stencils only (shape=box); stars run on stencil/cuda/07_vector_planes");
  return any_stencil(p);
}

support aligned_star_3d(const problem& p) {
  if (p.dims != 3) return support::no("3D grids only (WxHxD); 2D stars run on stencil/cuda/07_vector_planes");
  if (p.edge == boundary::periodic) {
    return support::no("boundary clamp, copy or constant (the wrapped rows are not in the copied box); periodic runs on stencil/cuda/07_vector_planes");
  }
  if (p.pitch() * p.element_bytes() % 16 != 0) {
    return support::no("rows must start a whole number of 16 bytes apart (the copy engine's row pitch): a width "
                       "that is a multiple of 4 floats or 2 doubles, or pitch=lines");
  }
  return any_star(p);
}

support aligned_wide_star_3d(const problem& p) {
  if (p.radius < 3) {
    return support::no("radius 3 or 4 (below that shared memory does not limit; stencil/cuda/08_tma_planes runs radius 1-2)");
  }
  return aligned_star_3d(p);
}

support seven_point_3d(const problem& p) {
  if (p.dims != 3 || p.form != shape::star || p.radius != 1) {
    return support::no("the 3D 7-point stencil only (WxHxD, shape=star, radius=1); stencil/cuda/05_streaming is generic");
  }
  return support::yes();
}

support any_2d_stencil(const problem& p) {
  if (p.dims != 2) return support::no("the schedule steps walk 2D grids (size WxH); 3D runs on stencil/cpu/09_openmp_3d");
  return any_dense_stencil(p);
}


void set_weights(std::vector<tap>& taps, const std::string& text) {
  if (text == "default") return;
  std::vector<double> weights;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(':', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    std::size_t used = 0;
    double weight = 0;
    try {
      weight = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || !std::isfinite(weight)) {
      throw usage_error("weights: '" + item + "' is not a number (weights=w0:w1:... gives one per tap)");
    }
    weights.push_back(weight);
    begin = end + 1;
  }
  if (weights.size() != taps.size()) {
    throw usage_error("weights: " + std::to_string(weights.size()) + " given, but this stencil has " +
                      std::to_string(taps.size()) + " taps (z-major, then y, then x, each from -r to r)");
  }
  for (std::size_t k = 0; k < taps.size(); ++k) taps[k].weight = weights[k];
}

}  // namespace swath::stencil
