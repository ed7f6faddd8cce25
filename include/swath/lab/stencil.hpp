#pragma once
// The lab's view of the stencil family: the registry the CLI, the tests and the benchmarks read (the
// library's steps, then the vendor baselines and the entry points' "auto" rows), and the trials that
// set up, run and check one row at one size. Not installed: the library (swath/stencil.hpp) does not
// need it.
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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
problem make_problem(const bench::problem_spec& spec);  // the same: no row changes the problem
// The iterate family (src/stencil/iterate_family.cpp): T sweeps, the library's iterated steps and the
// library call's rows. Its parameters are the stencil's and sweeps=T; the default weights are the
// stencil's scaled to sum 1 (an averaging operator: values stay O(1) over any T).
std::span<const iterated_variant> iterated_variants();
const iterated_variant& find_iterated_variant(std::string_view name);
iterated_problem make_iterated_problem(const bench::problem_spec& spec);
std::unique_ptr<bench::trial> make_iterated_trial(const iterated_variant& v, const iterated_problem& p,
                                                  const bench::trial_options& options);
const bench::family& iterated_family();
// T sweeps of the float64 reference from `input` (the grid's points, dense), on the host; and on the
// GPU where the build has CUDA (the lab's, src/cuda/iterate/reference.cu: one thread a point, in double).
std::vector<double> reference_sweeps(const problem& p, std::vector<double> input, int sweeps);
std::vector<double> reference_sweeps_on_device(const problem& p, const std::vector<double>& input, int sweeps);
std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options);
const bench::family& family();

}  // namespace swath::stencil
