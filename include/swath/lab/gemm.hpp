#pragma once
// The lab's view of the gemm family: the registry the CLI, the tests and the benchmarks read (the
// library's steps, then the vendor baselines and the entry points' "auto" rows), and the trials that
// set up, run and check one row at one size. Not installed: the library (swath/gemm.hpp) does not
// need it.
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "swath/bench/family.hpp"
#include "swath/gemm.hpp"

namespace swath::gemm {

// Every row (src/gemm/lab_registry.cpp): steps(), then the vendor rows and the auto rows of this build.
std::span<const variant> variants();
// The row with this name; throws usage_error naming the family when none has it.
const variant& find_variant(std::string_view name);
problem make_problem(const variant& v, const bench::problem_spec& spec);
// The shape suite the auto and vendor rows run (and `swath tune gemm --dispatch` tunes): squares 256 to
// 16384 and each −1 in every op; 8192² × 64 and × 256, 256² × 65536, 16384 × 64 × 16384 and its
// transpose, M = 1, 4, 16 over 8192², 1000 × 3000 × 700, 8191 × 257 × 4099 in op=nn; three batches.
std::vector<bench::problem_spec> shape_suite();
std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options);
const bench::family& family();

}  // namespace swath::gemm
