#pragma once
// The lab's view of the gemm family: the registry the CLI, the tests and the benchmarks read (the
// library's steps, then the vendor baselines and the entry points' "auto" rows), and the trials that
// set up, run and check one row at one size. Not installed: the library (swath/gemm.hpp) does not
// need it.
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "swath/bench/family.hpp"
#include "swath/gemm.hpp"

namespace swath::gemm {

// Every row (src/gemm/lab_registry.cpp): steps(), then the vendor rows and the auto rows of this build.
std::span<const variant> variants();
// The row with this name; throws usage_error naming the family when none has it.
const variant& find_variant(std::string_view name);
problem make_problem(const variant& v, const bench::problem_spec& spec);
std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options);
const bench::family& family();

}  // namespace swath::gemm
