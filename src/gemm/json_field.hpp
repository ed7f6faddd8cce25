#pragma once
// A required field of a JSON object, read for the gemm family's files (the tuner's policy file and the
// dispatch tables): usage_error naming the file (`where`) and the field when it is missing or of the
// wrong type. nlohmann-json is header-only and private to the library and the lab.
#include <string>

#include <nlohmann/json.hpp>

#include "swath/core/error.hpp"

namespace swath::gemm {

template <class T>
T json_field(const nlohmann::json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) throw usage_error(where + ": missing \"" + key + "\"");
  try {
    return object.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw usage_error(where + ": \"" + key + "\" has the wrong type");
  }
}

}  // namespace swath::gemm
