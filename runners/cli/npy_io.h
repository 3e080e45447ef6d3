// .npy files in and out of tandem Tensors, for the bring-your-own-data commands (`tandem lstm`). Reading and writing
// the format is xtensor's (xtensor/xnpy.hpp); this layer adds what a harness boundary needs on top: a dtype check
// against what the caller expects, a size check so a truncated or padded file is an error rather than garbage,
// Fortran-order arrays made row-major, and atomic writes (temporary file + rename) so a crashed or interrupted run
// never leaves a half-written output that looks valid.
#pragma once
#include <string>
#include <vector>

#include "engine/core/tensor.h"

namespace tandem {

// Reads `path` as a host Tensor of `dtype` (f32, f64, f16 or i32). Any problem — missing file,
// not .npy, truncated, trailing bytes, wrong dtype — is a bad-input Error naming `what`
// (e.g. "seq_lengths.npy") with a hint on how to write the file from NumPy.
Tensor load_npy_tensor(const std::string& path, DType dtype, const std::string& what);

// As load_npy_tensor, accepting any of `accepted` (the file's own dtype is kept); the hint names the first.
Tensor load_npy_tensor_of(const std::string& path, const std::vector<DType>& accepted, const std::string& what);

// Writes a host Tensor (f32, f64, f16 or i32) to `path` atomically (write_file_atomically: a mkstemp temporary in the
// same directory, then rename). Failures are infrastructure Errors (ErrorKind::internal) naming the path.
void save_npy_tensor(const std::string& path, const Tensor& t);

}  // namespace tandem
