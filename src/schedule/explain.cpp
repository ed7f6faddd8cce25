#include "swath/schedule/explain.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "swath/core/error.hpp"
#include "swath/schedule/cache_model.hpp"

namespace swath::schedule {

nlohmann::json explain_stencil(const stencil_question& q) {
  SWATH_EXPECTS(q.grid.width > 0 && q.grid.height > 0, "the grid needs a width and a height");
  SWATH_EXPECTS(q.radius >= 1, "radius ≥ 1");
  SWATH_EXPECTS(q.cache_bytes > 0, "a cache size");
  const std::int64_t extent = 2 * q.radius + 1;
  const std::int64_t halo = extent - 1;
  const std::int64_t line = std::max<std::int64_t>(1, q.line_bytes / q.element_bytes);
  const std::int64_t threads = std::max<std::int64_t>(1, q.threads);
  const stencil_footprint thesis{q.cache_bytes, q.element_bytes, extent, extent, threads, 0, 0};
  stencil_footprint with_output = thesis;
  with_output.output_rows = 1;
  stencil_footprint chosen_model = with_output;
  chosen_model.ways = q.ways;
  const std::int64_t chosen = std::clamp<std::int64_t>(stencil_column_width(chosen_model), 1, q.grid.width);
  // Tiles: square, (t + S)² u ≤ M.
  const auto tile = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::sqrt(q.cache_bytes / static_cast<double>(q.element_bytes))) - halo);
  const double row_bytes = stencil_column_bytes(with_output, q.grid.width);
  const bool layer_condition = row_bytes <= q.cache_bytes;

  nlohmann::json out;
  out["problem"] = {{"family", "stencil2d"},   {"width", q.grid.width},     {"height", q.grid.height},
                    {"radius", q.radius},       {"shape", q.box ? "box" : "star"},
                    {"element_bytes", q.element_bytes}, {"threads", threads}};
  out["cache"] = {{"name", q.cache_name}, {"bytes", q.cache_bytes}, {"ways", q.ways}, {"line_bytes", q.line_bytes},
                  {"line_elements", line}};
  out["widths"] = {{"thesis_exact", stencil_column_width(thesis)},
                   {"thesis_asymptote", stencil_column_width_asymptote(thesis)},
                   {"with_output_row", stencil_column_width(with_output)},
                   {"within_one_way", q.ways > 0 ? nlohmann::json(q.cache_bytes / static_cast<double>(q.ways * q.element_bytes))
                                                 : nlohmann::json(nullptr)},
                   {"chosen", chosen},
                   {"tile", tile}};
  const stencil_footprint rows_model{q.cache_bytes, q.element_bytes, extent, extent, threads, 1, 0};
  out["layer_condition"] = {{"bytes_for_full_rows", row_bytes}, {"holds", layer_condition}};
  out["fetches"] = {
      {"row_major", row_major_fetches(q.grid, rows_model, line)},
      {"tiled", tiled_fetches(q.grid, tile, tile, halo, halo, line)},
      {"column_bound", column_fetches(q.grid, chosen, halo, halo, line)},
      {"column_tight", column_fetches_tight(q.grid, chosen, halo, line)},
      {"zigzag_bound", column_fetches(q.grid, chosen, halo, halo, line)},
      {"compulsory", ceil_div(q.grid.width, line) * q.grid.height},
  };
  return out;
}

std::string format_explanation(const nlohmann::json& a) {
  const auto& p = a["problem"];
  const auto& c = a["cache"];
  const auto& w = a["widths"];
  const auto& f = a["fetches"];
  const std::int64_t r = p["radius"];
  const std::int64_t s = 2 * r + 1;
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line,
                "stencil2d %lld x %lld, %s radius %lld (s_w = s_h = %lld), %lld-byte elements, %lld thread(s)\n"
                "cache %s: %s, %lld-way (0 = not modelled), %lld-byte lines (L = %lld elements)\n\n",
                p["width"].get<long long>(), p["height"].get<long long>(), p["shape"].get<std::string>().c_str(),
                static_cast<long long>(r), static_cast<long long>(s), p["element_bytes"].get<long long>(),
                p["threads"].get<long long>(), c["name"].get<std::string>().c_str(),
                format_bytes(c["bytes"].get<double>()).c_str(), c["ways"].get<long long>(),
                c["line_bytes"].get<long long>(), c["line_elements"].get<long long>());
  out << line;
  out << "column width c\n";
  std::snprintf(line, sizeof line, "  thesis, exact       %10lld   widest c with u (c + s_w)(s_h + ceil(t/c)) <= M\n",
                w["thesis_exact"].get<long long>());
  out << line;
  std::snprintf(line, sizeof line, "  thesis, asymptote   %10.1f   (M - u (s_h s_w + t)) / (s_h u): drops the working row\n",
                w["thesis_asymptote"].get<double>());
  out << line;
  std::snprintf(line, sizeof line, "  + the output row    %10lld   + u c: a write-allocate cache holds the row being written\n",
                w["with_output_row"].get<long long>());
  out << line;
  if (!w["within_one_way"].is_null()) {
    std::snprintf(line, sizeof line, "  within one way      %10.0f   M / (A u): rows that alias in the sets cannot conflict\n",
                  w["within_one_way"].get<double>());
    out << line;
  }
  std::snprintf(line, sizeof line, "  chosen              %10lld   (at most the grid width)\n\n", w["chosen"].get<long long>());
  out << line;
  out << "predicted input cache-line fetches (compulsory: every line once = "
      << f["compulsory"].get<long long>() << ")\n";
  const bool holds = a["layer_condition"]["holds"];
  std::snprintf(line, sizeof line,
                "  row-major           %10lld   layer condition %s: %lld input rows + the working and output rows at the\n"
                "                                   grid's width need %s\n",
                f["row_major"].get<long long>(), holds ? "holds" : "broken", static_cast<long long>(s),
                format_bytes(a["layer_condition"]["bytes_for_full_rows"].get<double>()).c_str());
  out << line;
  if (!holds) out << "                                   so each output row fetches its " << s << " input rows again\n";
  const std::string tile = std::to_string(w["tile"].get<long long>()) + "x" + std::to_string(w["tile"].get<long long>());
  std::snprintf(line, sizeof line, "  tiled %-13s %10lld   each tile fetches its halo-extended block\n", tile.c_str(),
                f["tiled"].get<long long>());
  out << line;
  std::snprintf(line, sizeof line, "  column c = %-8lld %10lld   bound ceil(I_w/c) ceil((c + S_w)/L) (I_h + S_h); tight count %lld\n",
                w["chosen"].get<long long>(), f["column_bound"].get<long long>(), f["column_tight"].get<long long>());
  out << line;
  std::snprintf(line, sizeof line, "  zigzag c = %-8lld %10lld   the same lines as the column, in an order kinder to L1\n",
                w["chosen"].get<long long>(), f["zigzag_bound"].get<long long>());
  out << line;
  return out.str();
}

}  // namespace swath::schedule
