#pragma once
// The lab's view of the elementwise family: the registry the CLI, the tests and the benchmarks read (the
// library's steps, then the vendor baselines and the entry points' "auto" rows), and the trials that
// set up, run and check one row at one size. Not installed: the library (swath/elementwise.hpp) does not
// need it.
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "swath/bench/family.hpp"
#include "swath/elementwise.hpp"

namespace swath::elementwise {

// Every row (src/elementwise/lab_registry.cpp): steps(), then the vendor rows and the auto rows of this build.
std::span<const variant> variants();
// The row with this name; throws usage_error naming the family when none has it.
const variant& find_variant(std::string_view name);
// The problem a variant solves at a size: vectors take "N", matrices "WxH" (leading dimension W rounded
// up to 32 floats, as cudaMallocPitch would).
problem make_problem(const variant& v, const bench::size_spec& size);
// A trial for any record, in the table or not (the tests feed deliberately broken variants through it).
std::unique_ptr<bench::trial> make_trial(const variant& v, const problem& p, const bench::trial_options& options);
const bench::family& family();

}  // namespace swath::elementwise
