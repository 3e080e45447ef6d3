// TANDEM_VECTOR_CLONES: marks a hot loop function to be compiled twice, for baseline x86-64
// and for x86-64-v3 (AVX2 + FMA), with the clone chosen once at load time from the CPU's
// features. The engine stays a portable binary and still gets 8-wide f32 loops where the
// machine has them.
#pragma once

// GCC only: clang 14 (ci/sanitize.sh's compiler) rejects target_clones on function templates,
// and a sanitizer build needs no wide clone.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TANDEM_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TANDEM_VECTOR_CLONES
#endif
