#pragma once
// The part of a family adapter that is the same for every family: its registry table seen as
// variant_infos, and unsupported / work / footprint_bytes / make_trial, each finding the row and making
// the problem once. A family adapter derives from table_family<its variant, its problem> and says only
// what differs: how a problem is made from a size and a configuration, which sizes its steps take,
// what one set of operands weighs, and its trial.
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "swath/bench/family.hpp"
#include "swath/registry.hpp"

namespace swath::bench {

template <class Variant, class Problem>
class table_family : public family {
 public:
  [[nodiscard]] std::vector<variant_info> variants() const final { return variant_infos(table()); }
  [[nodiscard]] std::string unsupported(const variant_info& info, const problem_spec& spec) const override {
    const Variant& v = row(info);
    if (std::string why = size_mismatch(v, spec.size); !why.empty()) return why;
    return std::string(v.supports(problem_of(v, spec)).why);
  }
  [[nodiscard]] work_amount work(const variant_info& info, const problem_spec& spec) const override {
    const Variant& v = row(info);
    return work_of(v, problem_of(v, spec));
  }
  [[nodiscard]] std::int64_t footprint_bytes(const variant_info& info, const problem_spec& spec) const override {
    const Variant& v = row(info);
    return footprint(v, problem_of(v, spec));
  }
  [[nodiscard]] std::unique_ptr<trial> make_trial(const variant_info& info, const problem_spec& spec,
                                                  const trial_options& options) const override {
    const Variant& v = row(info);
    trial_options with = options;
    with.settings = std::make_shared<const chosen_settings>(settings_of(v, spec));
    return trial_of(v, problem_of(v, spec), with);
  }

 protected:
  [[nodiscard]] const Variant& row(const variant_info& info) const { return find_in_table(table(), name(), info.name); }
  [[nodiscard]] virtual std::span<const Variant> table() const = 0;
  // Why a size's rank does not suit the step ("gemm takes a size MxNxK or N"), "" when it does.
  [[nodiscard]] virtual std::string size_mismatch(const Variant& v, const size_spec& size) const = 0;
  [[nodiscard]] virtual Problem problem_of(const Variant& v, const problem_spec& spec) const = 0;
  // The settings the row's configuration chose for its step; a family may resolve one further (gemm's
  // policy=auto from the tuning file).
  [[nodiscard]] virtual chosen_settings settings_of(const Variant& v, const problem_spec& spec) const {
    return settings_chosen_in(v.info, spec.config);
  }
  // The work a row reports: the row's own work function where its record has one.
  [[nodiscard]] virtual work_amount work_of(const Variant& v, const Problem& p) const {
    if constexpr (requires { v.work(p); }) {
      return v.work(p);
    } else {
      throw std::logic_error("a family whose rows have no work function overrides work_of");
    }
  }
  // Bytes one set of operands takes, to refuse sizes that cannot fit before allocating.
  [[nodiscard]] virtual std::int64_t footprint(const Variant& v, const Problem& p) const = 0;
  [[nodiscard]] virtual std::unique_ptr<trial> trial_of(const Variant& v, const Problem& p,
                                                        const trial_options& options) const = 0;
};

}  // namespace swath::bench
