// The generator table assembled from its family files, and the weighted draw of a row.
#include "suites/program_fuzz/gen_rows.h"

#include <vector>

namespace tandem::fuzz {

const GenTable& gen_table() {
  static const GenTable table = [] {
    GenTable t;
    add_elementwise_rows(t);
    add_structure_rows(t);
    add_control_rows(t);
    add_conv_rows(t);
    add_indexing_rows(t);
    add_logical_rows(t);
    add_window_rows(t);
    return t;
  }();
  return table;
}

bool emit_random_row(GenState& s) {
  const GenTable& t = gen_table();
  std::vector<const GenRow*> rows;
  double total = 0;
  for (const auto& [name, row] : t.rows) {
    rows.push_back(&row);
    total += row.weight;
  }
  for (int attempt = 0; attempt < 8; ++attempt) {
    double x = s.rng.uniform(0, total);
    const GenRow* chosen = rows.back();
    for (const GenRow* r : rows) {
      if (x < r->weight) { chosen = r; break; }
      x -= r->weight;
    }
    if (chosen->emit(s)) return true;
  }
  return false;
}

}  // namespace tandem::fuzz
