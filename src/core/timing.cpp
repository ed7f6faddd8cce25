#include "swath/core/timing.hpp"

#include <algorithm>

#include "swath/core/error.hpp"

namespace swath {

timing_stats summarize(std::vector<double> seconds) {
  SWATH_EXPECTS(!seconds.empty(), "no timings to summarize");
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  timing_stats stats;
  stats.median_s = n % 2 == 1 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  stats.min_s = seconds.front();
  stats.max_s = seconds.back();
  stats.repetitions = static_cast<int>(n);
  return stats;
}

std::vector<double> time_on_host(const std::function<void(int)>& body, int warmup, int repetitions) {
  SWATH_EXPECTS(repetitions >= 1, "at least one timed repetition");
  for (int rep = 0; rep < warmup; ++rep) body(rep);
  std::vector<double> seconds;
  seconds.reserve(static_cast<std::size_t>(repetitions));
  for (int rep = 0; rep < repetitions; ++rep) {
    const stopwatch clock;
    body(rep);
    seconds.push_back(clock.seconds());
  }
  return seconds;
}

}  // namespace swath
