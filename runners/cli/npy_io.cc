// .npy reading and writing (see npy_io.h). The header dictionary is parsed by xtensor's
// xnpy parser and arrays are written by xt::dump_npy. The preamble and the data are read
// here rather than by xt::load_npy because xnpy 0.24 (Debian 12) reads the header length
// through a signed char (a header of 128 bytes or more, e.g. a 4-D shape, is misread) and
// never checks that the data it read was all there (a truncated file loads as garbage).
#include "runners/cli/npy_io.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <regex>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xnpy.hpp>

#include "engine/core/error.h"
#include "harness/atomic_file.h"

namespace tandem {
namespace {

const char* npy_hint(DType d) {
  switch (d) {
    case DType::i32: return "write it with numpy.save(path, numpy.asarray(a, dtype=numpy.int32))";
    case DType::f64: return "write it with numpy.save(path, numpy.asarray(a, dtype=numpy.float64))";
    case DType::f16: return "write it with numpy.save(path, numpy.asarray(a, dtype=numpy.float16))";
    default: return "write it with numpy.save(path, numpy.asarray(a, dtype=numpy.float32))";
  }
}

// NumPy's descr for our dtypes on a little-endian host ('<f4', '<f8', '<i4', '<f2'; xtensor
// has no half type, so f16's is spelled out).
std::string descr_of(DType d) {
  switch (d) {
    case DType::f16: return "<f2";
    case DType::f32: return xt::detail::build_typestring<float>();
    case DType::f64: return xt::detail::build_typestring<double>();
    case DType::i32: return xt::detail::build_typestring<int32_t>();
    default: TANDEM_CHECK(false, "npy: unsupported dtype ", dtype_name(d));
  }
  return {};
}

std::string numpy_name(const std::string& descr) {
  if (descr == "<f4") return "float32";
  if (descr == "<f8") return "float64";
  if (descr == "<f2") return "float16";
  if (descr == "<V2" || descr == "|V2") return "a 2-byte void type (ml_dtypes' bfloat16?)";
  if (descr == "<i4") return "int32";
  if (descr == "<i8") return "int64";
  if (descr == "|b1") return "bool";
  return descr;
}

template <class T>
void to_row_major(std::vector<char>& bytes, const std::vector<size_t>& shape) {
  T* p = reinterpret_cast<T*>(bytes.data());
  size_t n = bytes.size() / sizeof(T);
  auto col = xt::adapt<xt::layout_type::column_major>(p, n, xt::no_ownership(), shape);
  xt::xarray<T, xt::layout_type::row_major> row = col;
  std::memcpy(bytes.data(), row.data(), bytes.size());
}

// The header without the spaces Python ignores: a run of spaces beside punctuation (or the
// final newline). A space between two other characters stays, as it does in a Python literal.
std::string drop_spaces_beside_punctuation(const std::string& h) {
  const auto punct = [](char c) { return std::strchr("{}():,\n", c) != nullptr; };
  std::string r;
  for (size_t i = 0, j; i < h.size(); i = j) {
    for (j = i; j < h.size() && h[j] == ' '; ++j) {}
    if (j == i) { r += h[j++]; continue; }
    if (i > 0 && j < h.size() && !punct(h[i - 1]) && !punct(h[j])) r.append(j - i, ' ');
  }
  return r;
}

std::string shape_text(const std::vector<size_t>& shape) {
  std::string s;
  for (size_t d : shape) s += cat(s.empty() ? "" : ",", d);
  return s;
}

// One .npy file being read: its names for messages, the hint every failure carries, its
// stream and size.
struct NpyFile {
  std::string path, what, hint;
  std::ifstream in{};
  uint64_t bytes = 0;
  [[noreturn]] void malformed(const std::string& why) const {
    throw_bad_input(cat(what, ": ", path, " is not a valid .npy file: ", why), hint);
  }
};

// Opens the file; only a regular file (or a symlink to one) is data: a dangling symlink, a
// FIFO (which would block the read) or a device (/dev/zero never ends) is bad input, not an
// absent file.
void open_regular_file(NpyFile& f) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(f.path, ec);
  if (!std::filesystem::exists(std::filesystem::symlink_status(f.path, ec)))
    throw_bad_input(cat(f.what, ": no such file ", f.path), cat("the input directory must hold ", f.what, "; ", f.hint));
  if (!std::filesystem::is_regular_file(st))
    throw_bad_input(cat(f.what, ": ", f.path, " is not a regular file (",
                        std::filesystem::exists(st) ? "a directory, FIFO or device" : "a dangling symlink", ")"),
                    cat("replace it with the .npy file itself; ", f.hint));
  f.bytes = std::filesystem::file_size(f.path, ec);
  if (ec) throw_bad_input(cat(f.what, ": cannot read the size of ", f.path, ": ", ec.message()), "check the file's permissions");
  f.in.open(f.path, std::ios::binary);
  if (!f.in) throw_bad_input(cat(f.what, ": cannot open ", f.path), "check the file's permissions");
}

// The preamble — "\x93NUMPY", major, minor, header length (u16 LE in v1, u32 LE in v2/v3) —
// and the header it announces; *data_offset: where the data starts.
std::string read_header(NpyFile& f, uint64_t* data_offset) {
  unsigned char pre[8] = {};
  f.in.read(reinterpret_cast<char*>(pre), 8);
  if (!f.in || std::memcmp(pre, "\x93NUMPY", 6) != 0) f.malformed("missing the \\x93NUMPY magic");
  const int major = pre[6];
  if (major < 1 || major > 3 || pre[7] != 0)  // numpy.lib.format knows these three versions only
    f.malformed(cat("unsupported format version ", major, ".", int(pre[7]), " (NumPy writes 1.0, 2.0 and 3.0)"));
  const int len_bytes = major == 1 ? 2 : 4;
  unsigned char len_le[4] = {};
  f.in.read(reinterpret_cast<char*>(len_le), len_bytes);
  if (!f.in) f.malformed("truncated header");
  uint64_t header_len = 0;
  for (int i = len_bytes - 1; i >= 0; --i) header_len = (header_len << 8) | len_le[i];
  // NumPy itself refuses headers over 10,000 bytes (numpy.load's max_header_size).
  if (header_len > 10000) f.malformed(cat("a header of ", header_len, " bytes (NumPy writes at most 10000)"));
  *data_offset = 8 + uint64_t(len_bytes) + header_len;
  if (*data_offset > f.bytes) f.malformed("truncated header");
  std::string header(size_t(header_len), '\0');
  f.in.read(header.data(), std::streamsize(header_len));
  if (!f.in) f.malformed("truncated header");
  return header;
}

// The header's dictionary, checked as strictly as numpy.load reads it, then parsed.
void parse_header(const NpyFile& f, const std::string& header, std::string& descr, bool& fortran,
                  std::vector<size_t>& shape) {
  // xnpy reads each shape entry with `stream >> size_t` and keeps whatever it gets, so a
  // non-numeric entry would become an unset value: only digits, commas and spaces may appear.
  const size_t shape_at = header.find("'shape'"), open_at = header.find('(', shape_at);
  const size_t close_at = header.find(')', open_at);
  if (shape_at == std::string::npos || open_at == std::string::npos || close_at == std::string::npos ||
      header.find_first_not_of("0123456789, ", open_at + 1) != close_at)
    f.malformed(cat("bad shape in header: ", header));
  // xnpy's parser takes back() of pieces it cuts from the header, undefined behaviour on an
  // empty piece (UBSan, found by runners/fuzz/npy_fuzz): only the dictionary NumPy writes —
  // descr, fortran_order, shape (a Python tuple) in that order — reaches it. It deletes every
  // space, which read '< f4' as '<f4' and (2 3) as (23), where Python (numpy.load) refuses
  // both: spaces go here only where Python allows them, next to punctuation.
  static const std::string kInt = "(0|[1-9][0-9]*)";  // a Python int literal: no leading zero
  static const std::regex kNumpyHeader(R"(\{'descr':'[^' ]+','fortran_order':(True|False),'shape':\((|)" + kInt + ",|" +
                                       kInt + "(," + kInt + R"()+,?)\),?\}\n)");
  const std::string compact = drop_spaces_beside_punctuation(header);
  if (!std::regex_match(compact, kNumpyHeader))
    f.malformed(cat("bad header (not {'descr': ..., 'fortran_order': ..., 'shape': (...)} as NumPy writes it): ", header));
  try {
    xt::detail::parse_header(compact, descr, &fortran, shape);
  } catch (const std::exception& e) {
    f.malformed(cat("bad header (", e.what(), "): ", header));
  }
}

// The accepted dtype the header's descr names.
DType accepted_dtype(const NpyFile& f, const std::string& descr, const std::vector<DType>& accepted) {
  std::string expected;
  std::optional<DType> found;
  for (DType d : accepted) {
    expected += cat(expected.empty() ? "" : " or ", numpy_name(descr_of(d)));
    if (descr == descr_of(d)) found = d;
  }
  if (found) return *found;
  throw_bad_input(cat(f.what, " is ", numpy_name(descr), ", expected ", expected, " (", f.path, ")"), f.hint);
}

// The data bytes the shape needs, which must be exactly what the file holds after the header:
// fewer is a truncated file, more is not .npy. Every product is overflow-checked: a wrapped
// count could match a small file and make a huge tensor read a few bytes (a heap overrun), and
// a shape entry must fit in int64.
uint64_t data_bytes(const NpyFile& f, const std::vector<size_t>& shape, DType dtype, uint64_t data_offset) {
  uint64_t count = 1, want = 0;
  for (size_t d : shape) {
    if (d > uint64_t(std::numeric_limits<int64_t>::max()))
      f.malformed(cat("shape entry ", d, " is larger than 2^63-1"));
    if (__builtin_mul_overflow(count, uint64_t(d), &count))
      f.malformed(cat("the header's shape (", shape_text(shape), ") has more than 2^64 elements"));
  }
  if (__builtin_mul_overflow(count, uint64_t(dtype_size(dtype)), &want) ||
      want > uint64_t(std::numeric_limits<int64_t>::max()))
    f.malformed(cat("the header's shape (", shape_text(shape), ") needs more than 2^63 data bytes"));
  const uint64_t have = f.bytes - data_offset;
  if (have != want)
    f.malformed(cat("the header's shape (", shape_text(shape), ") needs ", want, " data bytes but the file holds ",
                    have, have < want ? " (truncated?)" : " (trailing bytes)"));
  return want;
}

}  // namespace

Tensor load_npy_tensor(const std::string& path, DType dtype, const std::string& what) {
  return load_npy_tensor_of(path, {dtype}, what);
}

Tensor load_npy_tensor_of(const std::string& path, const std::vector<DType>& accepted, const std::string& what) {
  TANDEM_CHECK(!accepted.empty(), "load_npy_tensor_of: no accepted dtype");
  NpyFile f{path, what, npy_hint(accepted.front())};
  open_regular_file(f);
  uint64_t data_offset = 0;
  const std::string header = read_header(f, &data_offset);
  std::string descr;
  bool fortran = false;
  std::vector<size_t> shape;
  parse_header(f, header, descr, fortran, shape);
  const DType dtype = accepted_dtype(f, descr, accepted);
  const uint64_t want = data_bytes(f, shape, dtype, data_offset);
  std::vector<char> bytes(static_cast<size_t>(want));
  f.in.read(bytes.data(), std::streamsize(want));
  if (!f.in) f.malformed("could not read the data");
  if (fortran && shape.size() > 1) {
    if (dtype == DType::f32) to_row_major<float>(bytes, shape);
    else if (dtype == DType::f64) to_row_major<double>(bytes, shape);
    else if (dtype == DType::f16) to_row_major<uint16_t>(bytes, shape);
    else to_row_major<int32_t>(bytes, shape);
  }
  Shape s(shape.begin(), shape.end());
  Tensor t = Tensor::empty(s, dtype);
  if (want) std::memcpy(t.raw(), bytes.data(), bytes.size());
  return t;
}

void save_npy_tensor(const std::string& path, const Tensor& host) {
  TANDEM_CHECK(host.device().kind == DeviceKind::cpu, "save_npy_tensor takes a host tensor");
  std::vector<size_t> shape(host.shape().begin(), host.shape().end());
  const size_t n = size_t(host.numel());
  std::string bytes;
  switch (host.dtype()) {
    case DType::f32: bytes = xt::dump_npy(xt::adapt(host.data<float>(), n, xt::no_ownership(), shape)); break;
    case DType::f64: bytes = xt::dump_npy(xt::adapt(host.data<double>(), n, xt::no_ownership(), shape)); break;
    case DType::i32: bytes = xt::dump_npy(xt::adapt(host.data<int32_t>(), n, xt::no_ownership(), shape)); break;
    case DType::f16: {
      // The same bits as uint16 ('<u2'), relabelled '<f2' in the header (same length).
      bytes = xt::dump_npy(xt::adapt(reinterpret_cast<const uint16_t*>(host.raw()), n, xt::no_ownership(), shape));
      const size_t at = bytes.find("'<u2'");
      TANDEM_CHECK(at != std::string::npos, "npy: no '<u2' descr in xtensor's header");
      bytes.replace(at, 5, "'<f2'");
      break;
    }
    default: TANDEM_CHECK(false, "npy: cannot write ", dtype_name(host.dtype()));
  }
  write_file_atomically(path, bytes);  // readers never see a partial write
}

}  // namespace tandem
