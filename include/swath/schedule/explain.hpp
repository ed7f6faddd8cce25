#pragma once
// `swath schedule explain`: the cache model applied to one stencil problem, every width it can choose
// and every traversal's predicted cache-line fetches, with the reasoning, as text or JSON.
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "swath/schedule/extent.hpp"

namespace swath::schedule {

struct stencil_question {
  extent2d grid;
  int radius = 1;
  bool box = false;         // star otherwise (the footprint is the same (2r + 1)² extent either way)
  std::int64_t element_bytes = 4;
  double cache_bytes = 0;
  std::string cache_name;   // "L2", "256 KiB"...
  std::int64_t ways = 0;
  std::int64_t threads = 1;
  std::int64_t line_bytes = 64;
};

nlohmann::json explain_stencil(const stencil_question& question);
std::string format_explanation(const nlohmann::json& answer);

}  // namespace swath::schedule
