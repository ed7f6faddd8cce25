// A family's configurations, its help and its defaults, generated from the parameter descriptors (the
// family's parameters() and each row's settings): one implementation for all five families.
#include <algorithm>
#include <string>
#include <vector>

#include "swath/bench/family.hpp"
#include "swath/core/error.hpp"

namespace swath::bench {

namespace {

// The '|'-separated words of a descriptor's values.
std::vector<std::string_view> words_of(std::string_view values) {
  std::vector<std::string_view> words;
  std::size_t start = 0;
  while (start <= values.size()) {
    const std::size_t bar = std::min(values.find('|', start), values.size());
    words.push_back(values.substr(start, bar - start));
    start = bar + 1;
  }
  return words;
}

bool is_form(std::string_view word) { return !word.empty() && word.front() >= 'A' && word.front() <= 'Z'; }

// Whether `value` is one the descriptor allows: a literal word, N or X that parse, or any text where a
// free form (MxNxK, FILE.json) stands, which the problem's maker checks.
void check_value(std::string_view family_name, const parameter& key, const std::string& value) {
  for (const std::string_view word : words_of(key.values)) {
    if (word == value) return;
    if (word == "N") {
      try {
        parse_positive(std::string(key.key), value);
        return;
      } catch (const usage_error&) {
      }
    } else if (word == "X") {
      try {
        parse_finite(std::string(key.key), value);
        return;
      } catch (const usage_error&) {
      }
    } else if (is_form(word)) {
      return;
    }
  }
  throw usage_error(std::string(family_name) + " " + std::string(key.key) + "=" + value + " is not one of " +
                    std::string(key.values) + " (" + std::string(key.help) + ")");
}

const parameter_choice* chosen_for(const std::vector<parameter_choice>& chosen, std::string_view key) {
  const auto found = std::find_if(chosen.begin(), chosen.end(), [&](const parameter_choice& c) { return c.key == key; });
  return found == chosen.end() ? nullptr : &*found;
}

std::string describe(const parameter& key) {
  return std::string(key.key) + "=" + std::string(key.values) + " (default " + std::string(key.default_value) + ") " +
         std::string(key.help);
}

}  // namespace

std::vector<std::string> family::suite_values(const variant_info&, const parameter& key,
                                              const std::vector<parameter_choice>&) const {
  return {std::string(key.default_value)};
}

const parameter* family::find_parameter(std::string_view key) const {
  for (const parameter& p : parameters()) {
    if (p.key == key) return &p;
  }
  for (const parameter& p : settings()) {
    if (p.key == key) return &p;
  }
  // The rows' settings live in static tables: the pointer outlives the vector of infos.
  for (const variant_info& v : variants()) {
    for (const parameter& p : v.settings) {
      if (p.key == key) return &p;
    }
  }
  return nullptr;
}

std::map<std::string, std::string> family::defaults() const {
  std::map<std::string, std::string> values;
  for (const parameter& p : parameters()) values.emplace(p.key, p.default_value);
  for (const parameter& p : settings()) values.emplace(p.key, p.default_value);
  for (const variant_info& v : variants()) {
    for (const parameter& p : v.settings) values.emplace(p.key, p.default_value);
  }
  return values;
}

std::vector<std::string> family::configurations(const variant_info& variant,
                                                const std::vector<parameter_choice>& chosen) const {
  for (const parameter_choice& choice : chosen) {
    const parameter* key = find_parameter(choice.key);
    if (key == nullptr) {
      const std::string help = parameter_help();
      throw usage_error("unknown " + std::string(name()) + " parameter '" + choice.key + "'" +
                        (help.empty() ? std::string(" (this family takes none)") : " (" + help + ")"));
    }
    for (const std::string& value : choice.values) check_value(name(), *key, value);
  }
  // The row's keys: the family's parameters, then the step's settings; a key chosen for another step
  // does not name this one's rows.
  std::vector<const parameter*> keys;
  for (const parameter& p : parameters()) keys.push_back(&p);
  for (const parameter& p : variant.settings) keys.push_back(&p);
  std::vector<std::string> configs = {""};
  for (const parameter* key : keys) {
    const parameter_choice* given = chosen_for(chosen, key->key);
    const std::vector<std::string> values = given ? given->values : suite_values(variant, *key, chosen);
    std::vector<std::string> product;
    for (const std::string& config : configs) {
      for (const std::string& value : values) {
        const bool named = key->named == parameter::naming::always ||
                           (key->named == parameter::naming::when_chosen && given != nullptr) ||
                           (key->named == parameter::naming::unless_default && value != key->default_value);
        product.push_back(named ? config + (config.empty() ? "" : " ") + std::string(key->key) + "=" + value : config);
      }
    }
    configs = std::move(product);
  }
  return configs;
}

std::vector<std::string> family::parameter_lines() const {
  std::vector<std::string> lines;
  for (const parameter& p : parameters()) lines.push_back(describe(p));
  // Each setting once, with the steps that take it.
  std::vector<std::pair<const parameter*, std::string>> taken;
  for (const variant_info& v : variants()) {
    for (const parameter& p : v.settings) {
      const auto same = std::find_if(taken.begin(), taken.end(), [&](const auto& s) { return s.first->key == p.key; });
      // "cuda/08" of "gemm/cuda/08_double_buffered"
      const std::string_view tail = v.name.substr(v.name.find('/') + 1);
      const std::string step(tail.substr(0, tail.find('/') + 3));
      if (same == taken.end()) {
        taken.emplace_back(&p, step);
      } else {
        same->second += "," + step;
      }
    }
  }
  for (const auto& [p, steps] : taken) lines.push_back(describe(*p) + " [steps " + steps + "]");
  for (const parameter& p : settings()) {
    const bool listed = std::any_of(taken.begin(), taken.end(), [&](const auto& s) { return s.first->key == p.key; });
    if (!listed) lines.push_back(describe(p) + " [steps not in this build]");
  }
  return lines;
}

std::string family::parameter_help() const {
  std::string help;
  for (const std::string& line : parameter_lines()) help += (help.empty() ? "" : "; ") + line;
  return help;
}

}  // namespace swath::bench
