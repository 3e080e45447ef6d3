// Several axis names at once (mesh_groups) and pgather on the MPI backend at any world size:
// an n x 1 mesh everywhere, the 2 x 2 mesh's groups per axis at 4 ranks, and pgather's
// row choice with clamped indices, against closed forms.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/comm/collectives.h"
#include "engine/comm/mpi_communicator.h"
#include "engine/comm/mpi_test_world.h"
#include "engine/core/error.h"

namespace tandem::comm {
namespace {

using namespace mpi_test;
double sum_of(const Groups& g) {  // psum of each rank's own index, for this rank's group
  for (const auto& grp : g)
    if (std::count(grp.begin(), grp.end(), me())) {
      double s = 0;
      for (int r : grp) s += r;
      return s;
    }
  return -1;
}

TEST(Mesh, GroupsOfATwoByTwoMesh) {
  const Mesh m{{{"x", 2}, {"y", 2}}};  // rank = 2x + y
  EXPECT_EQ(mesh_groups(m, {"x"}, 4), (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(mesh_groups(m, {"y"}, 4), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(mesh_groups(m, {"x", "y"}, 4), (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(mesh_groups(m, {"y", "x"}, 4), (Groups{{0, 2, 1, 3}}));  // combined index 2y + x
  EXPECT_EQ(mesh_groups(m, {"x", "y"}, 4, {{0, 3}, {2, 1}}), (Groups{{0, 3}, {2, 1}}));
  const Mesh m3{{{"x", 2}, {"y", 3}}};  // rank = 3x + y; groups per x-row over y
  EXPECT_EQ(mesh_groups(m3, {"y"}, 6, {{0, 2}, {1}}), (Groups{{0, 2}, {1}, {3, 5}, {4}}));
  for (auto bad : {std::vector<std::string>{"z"}, {"x", "x"}, {}}) EXPECT_THROW(mesh_groups(m, bad, 4), Error);
  EXPECT_THROW(mesh_groups(m, {"x"}, 3), Error);
  EXPECT_THROW(mesh_groups(m, {"x", "y"}, 4, {{0, 1}, {1, 2}}), Error);
}

TEST(Mesh, PsumOverOneAxisOrBoth) {
  const Tensor x = Tensor::from_f64({double(me())}, {1}, DType::i32);
  const Mesh line{{{"x", n()}, {"y", 1}}};
  EXPECT_EQ(psum(ctx(), x, mesh_groups(line, {"x", "y"}, n())).to_f64()[0], n() * (n() - 1) / 2.0);
  EXPECT_EQ(psum(ctx(), x, mesh_groups(line, {"y"}, n())).to_f64()[0], double(me()));
  if (n() != 4) GTEST_SKIP() << needs_ranks("4", n()) << " (the 2 x 2 mesh; ctest runs 1-4)";
  const Mesh m{{{"x", 2}, {"y", 2}}};
  for (auto names : {std::vector<std::string>{"x"}, {"y"}, {"x", "y"}}) {
    const Groups g = mesh_groups(m, names, 4);
    EXPECT_EQ(psum(ctx(), x, g).to_f64()[0], sum_of(g)) << names.size();
  }
  const Groups per_axis = mesh_groups(m, {"y", "x"}, 4, {{0, 1}, {2, 3}});  // [[0,2],[1,3]]
  EXPECT_EQ(psum(ctx(), x, per_axis).to_f64()[0], sum_of(per_axis));
  EXPECT_EQ(axis_index(ctx(), mesh_groups(m, {"y", "x"}, 4)).to_f64()[0], double(2 * (me() % 2) + me() / 2));
}

TEST(Pgather, PicksMembersByIndexClamped) {
  const Tensor x = Tensor::from_f64({10.0 * me(), 10.0 * me() + 1}, {2}, DType::f32);
  const Tensor idx = Tensor::from_f64({double(n() - 1), 0, 7, -3}, {2, 2}, DType::i32);
  const Tensor y = pgather(ctx(), x, idx);
  ASSERT_EQ(y.shape(), (Shape{2, 2, 2}));
  const double last = 10.0 * (n() - 1);
  EXPECT_EQ(y.to_f64(), (std::vector<double>{last, last + 1, 0, 1, last, last + 1, 0, 1}));
  if (n() % 2) return;
  Groups pairs;
  for (int r = 0; r < n(); r += 2) pairs.push_back({r + 1, r});  // listed backwards
  const Tensor z = pgather(ctx(), x, Tensor::from_f64({0}, {1}, DType::i32), pairs);
  EXPECT_EQ(z.to_f64()[0], 10.0 * (me() - me() % 2 + 1));
  EXPECT_THROW(pgather(ctx(), x, Tensor::from_f64({0}, {1}, DType::f32)), Error);
}

}  // namespace
}  // namespace tandem::comm
