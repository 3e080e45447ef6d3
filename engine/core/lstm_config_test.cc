// The LSTM parameter count: the closed form agrees with the slot-by-slot layout, and sizes whose
// count would overflow int64 are bad input with the sizes named (a signed overflow used to give
// a negative count), without building a slot per layer first.
#include <gtest/gtest.h>

#include <limits>

#include "engine/core/error.h"
#include "engine/core/lstm_config.h"

namespace tandem {
namespace {

TEST(LstmConfig, ParamCountMatchesLayout) {
  for (int64_t in : {1, 3, 17})
    for (int64_t h : {1, 2, 5})
      for (int64_t l : {1, 2, 3})
        for (bool bidi : {false, true}) {
          LstmWeightLayout lay = lstm_weight_layout(in, h, l, bidi);
          EXPECT_EQ(get_num_params_in_lstm(in, h, l, bidi), lay.total) << in << " " << h << " " << l << " " << bidi;
          const LstmWeightSlot& last = lay.b_hh.back();
          EXPECT_EQ(last.offset + last.rows, lay.total);
        }
  EXPECT_EQ(get_num_params_in_lstm(2, 3, 2, true), 2 * (12 * (2 + 3 + 2)) + 2 * (12 * (6 + 3 + 2)));
}

void expect_bad_input(int64_t in, int64_t h, int64_t l, bool bidi, const char* phrase) {
  try {
    get_num_params_in_lstm(in, h, l, bidi);
    ADD_FAILURE() << "no error for input " << in << " hidden " << h << " layers " << l;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(e.message().find(phrase), std::string::npos) << e.message();
    EXPECT_FALSE(e.hint().empty());
  }
}

TEST(LstmConfig, HugeSizesAreBadInputNotOverflow) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  expect_bad_input(4, int64_t(1) << 31, 1, false, "hidden 2147483648, 1 layer(s) needs more than 2^63");
  expect_bad_input(4, max, 1, true, "needs more than 2^63");
  expect_bad_input(max - 1, 4, 1, false, "needs more than 2^63");
  expect_bad_input(4, 4, max, true, "needs more than 2^63");
  expect_bad_input(4, 4, int64_t(1) << 60, false, "needs more than 2^63");
  EXPECT_THROW(lstm_weight_layout(4, int64_t(1) << 40, 1, false), Error);
  // 2e9 layers of a tiny LSTM fits int64: counted without building 2e9 slots.
  EXPECT_EQ(get_num_params_in_lstm(1, 1, 2000000000, false), 4 * (1 + 1 + 2) + 1999999999LL * 4 * (2 + 2));
  expect_bad_input(1, 1, 0, false, "must be >= 1");
}

// The reserve's pieces tile it with no gap or overlap, in the documented order.
TEST(LstmConfig, ReserveLayoutTilesTheReserve) {
  for (int64_t l : {1, 3})
    for (bool bidi : {false, true}) {
      LstmConfig c{5, 7, 3, 4, l, bidi};
      LstmReserveLayout r = lstm_reserve_layout(c);
      const int64_t B = 5, T = 7, H = 4, D = c.dirs(), step = (T + 1) * B * H;
      EXPECT_EQ(r.total, (l - 1) * B * T * D * H + l * D * (T * B * 4 * H + 2 * step));
      int64_t at = 0;
      for (int64_t k = 1; k < l; ++k, at += B * T * D * H) EXPECT_EQ(r.layer_in[size_t(k)], at);
      for (int64_t p = 0; p < c.pseudo_layers(); ++p) {
        EXPECT_EQ(r.gates[size_t(p)], at);
        EXPECT_EQ(r.h[size_t(p)], at + T * B * 4 * H);
        EXPECT_EQ(r.c[size_t(p)], at + T * B * 4 * H + step);
        at += T * B * 4 * H + 2 * step;
      }
      EXPECT_EQ(at, r.total);
    }
}

}  // namespace
}  // namespace tandem
