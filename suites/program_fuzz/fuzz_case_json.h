// A fuzz case as a replayable JSON file: the program (engine/ir/program_json.h's format), the
// chain, every argument's dtype, shape and values (non-finite values as "nan", "inf",
// "-inf"), and what disagreed. `tandem fuzz --replay FILE` runs it again.
//
//   {"format": "tandem-fuzz-case", "version": 1, "seed": 123, "chain": {"kind": "vmap",
//    "in_axes": [0, null], "out_axes": [-1], "axis_size": 3, "accumulate_in_carry": false,
//    "top_policy": "everything_saveable"}, "program": {...}, "args": [{"dtype": "f32",
//    "shape": [2], "data": [1.5, "nan"]}], "cotangents": [], "disagreement": "result 0: ..."}
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "suites/program_fuzz/fuzz_case.h"

namespace tandem::fuzz {

nlohmann::json case_to_json(const FuzzCase& c, const std::string& disagreement);
nlohmann::json tensor_to_json(const Tensor& t);

// The case a file holds (the program read back by engine/ir/program_json_read.h); malformed
// input is a bad-input error naming the field.
FuzzCase case_from_json(const nlohmann::json& j);
FuzzCase read_case(const std::string& path);
Tensor tensor_from_json(const nlohmann::json& j, const std::string& what);

}  // namespace tandem::fuzz
