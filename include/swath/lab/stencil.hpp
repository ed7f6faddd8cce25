#pragma once
// The lab's view of the stencil family: the registry the CLI, the tests and the benchmarks read (the
// library's steps, then the vendor baselines and the entry points' "auto" rows), and the trials that
// set up, run and check one row at one size. Not installed: the library (swath/stencil.hpp) does not
// need it.
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "swath/bench/family.hpp"
#include "swath/stencil.hpp"

namespace swath::stencil {

// Every row (src/stencil/lab_registry.cpp): steps(), then the vendor rows and the auto rows of this build.
std::span<const variant> variants();
// The row with this name; throws usage_error naming the family when none has it.
const variant& find_variant(std::string_view name);
// The problem at a size and configuration ("radius=2 shape=box boundary=periodic type=double
// column_width=model cache=L2 pitch=lines"); schedule parameters from the cache model unless given.
// pitch=dense (rows back to back), lines (each row padded to whole 128-byte lines) or a number of
// elements no smaller than the width.
problem make_problem(const variant& v, const bench::problem_spec& spec);
std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options);
const bench::family& family();

}  // namespace swath::stencil
