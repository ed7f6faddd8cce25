#pragma once
// Timing statistics and the two clocks: a steady host clock for CPU work, CUDA events for GPU work.
#include <chrono>
#include <functional>
#include <vector>

namespace swath {

struct timing_stats {
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  int repetitions = 0;
};

timing_stats summarize(std::vector<double> seconds);

class stopwatch {
 public:
  stopwatch() : start_(std::chrono::steady_clock::now()) {}
  [[nodiscard]] double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Runs body(rep) `warmup` times untimed, then `repetitions` times, each timed on its own.
// Host clock: body must finish its work before returning.
std::vector<double> time_on_host(const std::function<void(int)>& body, int warmup, int repetitions);
// CUDA events recorded on `stream` around each call; body enqueues work on that stream.
std::vector<double> time_on_device(const std::function<void(int)>& body, int warmup, int repetitions,
                                   void* stream = nullptr);

}  // namespace swath
