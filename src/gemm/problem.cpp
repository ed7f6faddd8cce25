// The gemm problem's functions the library and the lab share: work, support, tolerance, policy names.
#include <string>
#include "steps.hpp"

namespace swath::gemm {

work_amount gemm_work(const problem& p) {
  const auto m = static_cast<double>(p.m), n = static_cast<double>(p.n), k = static_cast<double>(p.k);
  const auto batch = static_cast<double>(p.batch);
  return {batch * 4.0 * (m * k + k * n + (p.beta != 0 ? 2.0 : 1.0) * m * n), batch * 2.0 * m * n * k};
}

support any_gemm(const problem& p) {
  return p.batch == 1 ? support::yes() : support::no("one product only (batch=1): strided batches are step 17's");
}
support any_batched_gemm(const problem&) { return support::yes(); }

std::string policy_name(const tile_policy& policy) {
  return std::to_string(policy.block_m) + "x" + std::to_string(policy.block_n) + "x" + std::to_string(policy.block_k);
}

std::optional<tile_policy> find_policy(std::string_view name) {
  for (const tile_policy& candidate : tile_policies) {
    if (policy_name(candidate) == name) return candidate;
  }
  return std::nullopt;
}

std::string policy_names(std::string_view separator) {
  std::string names;
  for (const tile_policy& policy : tile_policies) names += (names.empty() ? "" : std::string(separator)) + policy_name(policy);
  return names;
}

support plain_gemm(const problem& p) {
  if (!plain(p)) return support::no("C = A B only (op=nn alpha=1 beta=0 ld=packed)");
  return support::yes();
}

double tolerance(const problem& p) { return 2 * 0x1p-24 * static_cast<double>(p.k + 2); }

}  // namespace swath::gemm
