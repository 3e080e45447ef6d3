// tandem::ref, the oracle: a clean, minimal, independent implementation of every op that
// tandem checks the engine against. Plain loops, f64 (or wider) accumulation, no BLAS, no
// SIMD; threads only where they cannot change a bit (dot_general splits output rows across
// std::threads, each element's sum in the plain loop's order: dot.cc). It never includes
// engine/ and shares only common/dtype.h with it; the two meet only in bridge/.
#pragma once
#include "reference/array.h"
#include "reference/dot.h"
#include "reference/elementwise.h"
#include "reference/f8.h"
#include "reference/finite_difference.h"
#include "reference/pad_rev_cumsum.h"
#include "reference/reduce.h"
#include "reference/rounding.h"
#include "reference/scan.h"
#include "reference/structure.h"
