// TANDEM_VECTOR_CLONES: marks a hot loop function to be compiled three times, for baseline
// x86-64, x86-64-v3 (AVX2 + FMA) and x86-64-v4 (AVX-512), with the clone chosen once at load
// time from the CPU's features. The engine stays a portable binary and still gets 8- or
// 16-wide f32 loops where the machine has them. GCC's v4 clone would keep to 256-bit vectors
// (its default tuning); engine/CMakeLists.txt asks for 512 (-mprefer-vector-width=512). With
// the bias moved into the LSTM's gate loop it made the LSTM forward 1.06–1.16× faster
// (lab/pages/lstm.md, "The gate loop at full vector width"). The lanes are independent,
// so the clones compute the same bits (checked there for the LSTM's cell loops).
#pragma once

// GCC only: clang 14 (ci/sanitize.sh's compiler) rejects target_clones on function templates,
// and a sanitizer build needs no wide clone.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TANDEM_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TANDEM_VECTOR_CLONES
#endif
