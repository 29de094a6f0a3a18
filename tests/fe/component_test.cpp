// SPDX-License-Identifier: MIT
// Assembled operators: exact total mass, rigid-body null space, assembled patch test on a
// distorted mesh, affine re-evaluation equal to direct assembly, partition invariants.
#include "FeTestUtil.hpp"

#include "flexuq/io/Generators.hpp"

#include <gtest/gtest.h>

#include <cstdio>

using namespace flexuq;

namespace {

const char* kBox = R"(
model:
  generator: {type: box, size: [0.3, 0.1, 0.05], cells: [6, 2, 2], order: 2}
  material: {E: 2.0e11, nu: 0.3, rho: 7800}
)";

/// Distributed vector from a function of (node, component); fixed DOFs skipped.
template <class F> VecH field(const fe::Component& c, F f) {
  VecH v;
  FLEXUQ_PETSC(MatCreateVecs(c.K(), v.out(), nullptr));
  const auto& d = c.dofs();
  for (int n : d.owned_nodes()) {
    if (d.is_fixed(n)) continue;
    for (int k = 0; k < d.dofs_per_node(); ++k)
      FLEXUQ_PETSC(VecSetValue(v.get(), d.node_dof(n) + k, f(n, k), INSERT_VALUES));
  }
  FLEXUQ_PETSC(VecAssemblyBegin(v.get()));
  FLEXUQ_PETSC(VecAssemblyEnd(v.get()));
  return v;
}

double dot(Mat A, Vec x, Vec y) {
  VecH t;
  FLEXUQ_PETSC(VecDuplicate(x, t.out()));
  FLEXUQ_PETSC(MatMult(A, x, t.get()));
  PetscScalar s = 0;
  FLEXUQ_PETSC(VecDot(t.get(), y, &s));
  return s;
}

} // namespace

TEST(Component, TotalMassAndRigidNullSpace) {
  auto c = test::component_from_yaml(MPI_COMM_WORLD, kBox);
  const auto& X = c->mesh().coords;
  for (int d = 0; d < 3; ++d) {
    auto t = field(*c, [&](int, int k) { return k == d ? 1.0 : 0.0; });
    EXPECT_NEAR(dot(c->M(), t.get(), t.get()), 7800 * 0.3 * 0.1 * 0.05, 1e-12 * 7800 * 0.3 * 0.1 * 0.05);
  }
  PetscReal knorm = 0;
  FLEXUQ_PETSC(MatNorm(c->K(), NORM_FROBENIUS, &knorm));
  for (int r = 0; r < 6; ++r) {
    auto v = field(*c, [&](int n, int k) {
      if (r < 3) return k == r ? 1.0 : 0.0;
      const int a = r - 3; // rotation about axis a: ω × x
      const Eigen::Vector3d w = Eigen::Vector3d::Unit(a);
      const Eigen::Vector3d x(X[n][0], X[n][1], X[n][2]);
      return w.cross(x)[k];
    });
    VecH Kv;
    FLEXUQ_PETSC(VecDuplicate(v.get(), Kv.out()));
    FLEXUQ_PETSC(MatMult(c->K(), v.get(), Kv.get()));
    PetscReal nkv = 0, nv = 0;
    FLEXUQ_PETSC(VecNorm(Kv.get(), NORM_2, &nkv));
    FLEXUQ_PETSC(VecNorm(v.get(), NORM_2, &nv));
    EXPECT_LT(nkv, 1e-12 * knorm * nv) << "rigid mode " << r;
  }
  PetscBool sym = PETSC_FALSE;
  FLEXUQ_PETSC(MatIsSymmetric(c->K(), 1e-12 * knorm, &sym));
  EXPECT_TRUE(sym);
}

TEST(Component, AssembledPatchTestOnDistortedMesh) {
  // Move interior nodes of a hex8 box; a linear displacement field must produce zero nodal forces
  // at every node not on the boundary (constant stress is in equilibrium).
  io::BoxSpec s;
  s.size = {1, 1, 1};
  s.cells = {3, 3, 3};
  s.order = 1;
  auto mesh = io::generate_box(s);
  std::vector<char> boundary(mesh.num_nodes(), 0);
  for (const char* f : {"XMIN", "XMAX", "YMIN", "YMAX", "ZMIN", "ZMAX"})
    for (int n : mesh.node_sets[f]) boundary[n] = 1;
  for (std::size_t n = 0; n < mesh.num_nodes(); ++n)
    if (!boundary[n])
      for (int k = 0; k < 3; ++k) mesh.coords[n][k] += 0.07 * std::sin(5.0 * n + 2.0 * k);
  fe::ComponentOptions o;
  o.default_material = test::material("M", 1e9, 0.25, 1000);
  fe::Component c(MPI_COMM_WORLD, mesh, o);
  const Eigen::Matrix3d G = (Eigen::Matrix3d() << 1, 2, 3, -1, 0.5, 2, 0.3, -0.7, 1.1).finished() * 1e-3;
  const auto& X = c.mesh().coords;
  auto u = field(c, [&](int n, int k) { return (G * Eigen::Vector3d(X[n][0], X[n][1], X[n][2]))[k]; });
  VecH f;
  FLEXUQ_PETSC(VecDuplicate(u.get(), f.out()));
  FLEXUQ_PETSC(MatMult(c.K(), u.get(), f.get()));
  PetscReal fmax_interior = 0, fmax = 0;
  const PetscScalar* a = nullptr;
  FLEXUQ_PETSC(VecGetArrayRead(f.get(), &a));
  for (int n : c.dofs().owned_nodes())
    for (int k = 0; k < 3; ++k) {
      const double v = std::abs(a[c.dofs().node_dof(n) + k - c.dofs().begin()]);
      fmax = std::max(fmax, v);
      if (!boundary[n]) fmax_interior = std::max(fmax_interior, v);
    }
  FLEXUQ_PETSC(VecRestoreArrayRead(f.get(), &a));
  fmax = allreduce_max(MPI_COMM_WORLD, fmax);
  fmax_interior = allreduce_max(MPI_COMM_WORLD, fmax_interior);
  EXPECT_GT(fmax, 0);
  EXPECT_LT(fmax_interior, 1e-10 * fmax);
}

TEST(Component, AffineEvaluationEqualsDirectAssembly) {
  auto affine = test::component_from_yaml(MPI_COMM_WORLD, kBox, /*keep_affine=*/true);
  ASSERT_EQ(affine->stiffness_terms().size(), 2u);
  ASSERT_EQ(affine->mass_terms().size(), 1u);
  // Re-evaluate for another material, compare with a component assembled directly with it.
  affine->set_materials({fe::IsoMaterial::checked("other", 7.0e10, 0.33, 2700)});
  auto direct = test::component_from_yaml(MPI_COMM_WORLD, R"(
model:
  generator: {type: box, size: [0.3, 0.1, 0.05], cells: [6, 2, 2], order: 2}
  material: {E: 7.0e10, nu: 0.33, rho: 2700}
)");
  // The two components may be partitioned differently (PT-Scotch is not bitwise deterministic under
  // load), so compare numbering-free quantities: bilinear forms xᵀ A y of fields defined on nodes.
  auto fx = [](int n, int k) { return std::sin(1.0 + 0.37 * n + 1.3 * k); };
  auto fy = [](int n, int k) { return std::cos(0.5 + 0.11 * n * (k + 1)); };
  auto xa = field(*affine, fx), ya = field(*affine, fy), xd = field(*direct, fx), yd = field(*direct, fy);
  for (int which = 0; which < 2; ++which) {
    Mat A = which == 0 ? affine->K() : affine->M();
    Mat B = which == 0 ? direct->K() : direct->M();
    for (int pair = 0; pair < 3; ++pair) {
      Vec a1 = pair == 1 ? ya.get() : xa.get(), a2 = pair == 0 ? xa.get() : ya.get();
      Vec b1 = pair == 1 ? yd.get() : xd.get(), b2 = pair == 0 ? xd.get() : yd.get();
      const double va = dot(A, a1, a2), vb = dot(B, b1, b2);
      EXPECT_NEAR(va, vb, 1e-12 * std::abs(vb)) << (which == 0 ? "K" : "M") << " pair " << pair;
    }
  }
}

TEST(Component, FixedSetsEliminateDofsAndOwnershipIsContiguous) {
  auto c = test::component_from_yaml(MPI_COMM_WORLD, std::string(kBox) + "  fixed: [XMIN]\n");
  const auto& m = c->mesh();
  const auto nfixed = m.node_sets.at("XMIN").size();
  EXPECT_EQ(c->dofs().global_size(), static_cast<PetscInt>(3 * (m.num_nodes() - nfixed)));
  PetscInt lo = 0, hi = 0;
  FLEXUQ_PETSC(MatGetOwnershipRange(c->K(), &lo, &hi));
  EXPECT_EQ(lo, c->dofs().begin());
  EXPECT_EQ(hi, c->dofs().end());
  PetscInt bs = 0;
  FLEXUQ_PETSC(MatGetBlockSize(c->K(), &bs));
  EXPECT_EQ(bs, 3);
  // Every element is assembled exactly once over all ranks.
  const long long n_local = static_cast<long long>(c->dofs().local_elements().size());
  EXPECT_EQ(allreduce_sum(MPI_COMM_WORLD, n_local), static_cast<long long>(m.num_elements()));
}

TEST(Component, GraphPartitionIsTheSameEveryTime) {
  // The same mesh on the same rank count must give the same partition, call after call and run
  // after run: a PT-Scotch partition computed in parallel (or with Scotch's threads) depended on
  // message and thread timing, so a 2-rank `flexuq modes` of the crank differed from run to run
  // in the DOF order (and by 1e-10 Hz). Twelve partitions of a 3-D graph large enough for Scotch
  // to coarsen (hex20 box, 3 800 nodes), each against the first: same owner, same DOF number for
  // every node, on every rank; and the partition is a real one (every rank owns nodes, and it cuts no more
  // edges than slabs of consecutive nodes, which are good for this x-major box).
  io::BoxSpec s;
  s.size = {1.0, 0.4, 0.3};
  s.cells = {20, 8, 6};
  s.order = 2;
  const auto mesh = io::generate_box(s);
  const int n = static_cast<int>(mesh.num_nodes());
  const std::vector<int> fixed = mesh.node_sets.at("XMIN");
  std::vector<PetscInt> dof0;
  std::vector<int> owner0;
  for (int rep = 0; rep < 12; ++rep) {
    fe::DofMap d(MPI_COMM_WORLD, mesh, 3, fixed);
    std::vector<PetscInt> dof(static_cast<std::size_t>(n));
    std::vector<int> owner(static_cast<std::size_t>(n));
    for (int v = 0; v < n; ++v) {
      dof[static_cast<std::size_t>(v)] = d.node_dof(v);
      owner[static_cast<std::size_t>(v)] = d.node_owner(v);
    }
    if (rep == 0) {
      dof0 = dof;
      owner0 = owner;
      const double mine = static_cast<double>(d.owned_nodes().size());
      EXPECT_GT(allreduce_min(MPI_COMM_WORLD, mine), 0.0);
      const fe::DofMap slabs(MPI_COMM_WORLD, mesh, 3, fixed, "average"); // contiguous node ranges
      const long long cut = allreduce_sum(MPI_COMM_WORLD, d.cut_edges());
      const long long cut_slabs = allreduce_sum(MPI_COMM_WORLD, slabs.cut_edges());
      EXPECT_LE(static_cast<double>(cut), 1.2 * static_cast<double>(cut_slabs)) << d.balance_summary();
      continue;
    }
    int same = dof == dof0 && owner == owner0 ? 1 : 0;
    same = static_cast<int>(allreduce_min(MPI_COMM_WORLD, static_cast<long long>(same)));
    ASSERT_EQ(same, 1) << "partition " << rep << " differs from the first: " << d.balance_summary();
  }
}

TEST(Component, BadInputsThrowOnEveryRank) {
  // Missing set, no material, invalid ν, negative density: InputError on every rank (collective
  // consistency: the mesh and config are identical everywhere, so every rank fails the same way).
  EXPECT_THROW(test::component_from_yaml(MPI_COMM_WORLD, std::string(kBox) + "  fixed: [NOPE]\n"), InputError);
  EXPECT_THROW(test::component_from_yaml(MPI_COMM_WORLD, R"(
model:
  generator: {type: box, size: [1, 1, 1], cells: [1, 1, 1]}
)"),
               InputError);
  EXPECT_THROW(test::component_from_yaml(MPI_COMM_WORLD, R"(
model:
  generator: {type: box, size: [1, 1, 1], cells: [1, 1, 1]}
  material: {E: 1e9, nu: 0.6, rho: 1000}
)"),
               InputError);
  EXPECT_THROW(test::component_from_yaml(MPI_COMM_WORLD, R"(
model:
  generator: {type: box, size: [1, 1, 1], cells: [1, 1, 1]}
  material: {E: 1e9, nu: 0.3, rho: -1000}
)"),
               InputError);
}

namespace {

/// Seed 000's slider-crank bar (Table 7.1): length L along x from the origin (END0 at x = 0), 20
/// Euler–Bernoulli elements (21 nodes), A = 1e-4 m² (10 mm square), ρ = 7870, (G, C) = (76.9, 166.7) GPa.
std::string seed000_bar(double L, int elements, const std::string& fixed) {
  return "model:\n  generator: {type: beam, length: " + std::to_string(L) + ", elements: " + std::to_string(elements) +
         ", direction: [1, 0, 0], origin: [0, 0, 0], section: {shape: RECT, dims: [0.01, 0.01]}}\n"
         "  material: {G: 76.9e9, C: 166.7e9, rho: 7870}\n" +
         (fixed.empty() ? "" : "  fixed: [" + fixed + "]\n");
}

} // namespace

TEST(Component, Seed000SliderCrankCountsMassesAndFirstMoments) {
  // Seed 000 T6: a 21-node bar has 126 unreduced coordinates, the slider-crank 2 × 126 = 252; with both
  // ends and the CoM node clamped the internal problem K_ii is 12, 48, 108, 168, 228 for 5, 11, 21, 31,
  // 41 nodes, i.e. 6 (n − 3). Exact.
  long long total = 0;
  for (double L : {0.15, 0.3}) {
    auto c = test::component_from_yaml(MPI_COMM_WORLD, seed000_bar(L, 20, ""));
    EXPECT_EQ(c->mesh().num_nodes(), 21u);
    EXPECT_EQ(c->dofs().global_size(), 126);
    total += c->dofs().global_size();
  }
  EXPECT_EQ(total, 252);
  const std::pair<int, PetscInt> sweep[] = {{5, 12}, {11, 48}, {21, 108}, {31, 168}, {41, 228}};
  for (const auto& [nodes, kii] : sweep) {
    auto c = test::component_from_yaml(MPI_COMM_WORLD, seed000_bar(0.15, nodes - 1, "END0, END1, MID"));
    EXPECT_EQ(c->dofs().global_size(), kii) << nodes << " nodes";
  }
  // Seed 000 T7: Φ_rigᵀ M_FE Φ_rig. Translational block = total mass ρAL I (digest: bar 1 0.11805 kg,
  // bar 2 0.2361 kg); first-moment block about END0 = ρAL · (L/2) (ρAL²/2: 8.85375e-3 and 3.5415e-2 kg m),
  // about the CoM = 0. Rigid fields built here from the node coordinates: translation e_d (rotation DOFs
  // 0) and rotation about axis a through p: u = e_a × (x − p), θ = e_a. The consistent Hermite/linear
  // element interpolates rigid motion exactly, so these hold to round-off: 1e-12 relative (the digest's
  // tolerance); measured ≤ 6e-16 at 1 and 3 ranks.
  for (const auto& [L, m_digest] : {std::pair{0.15, 0.11805}, std::pair{0.3, 0.2361}}) {
    auto c = test::component_from_yaml(MPI_COMM_WORLD, seed000_bar(L, 20, ""));
    const double m = 7870 * 1e-4 * L, first = m * L / 2;
    EXPECT_NEAR(m, m_digest, 1e-14 * m_digest); // the digest's ρAL, re-derived
    const auto& X = c->mesh().coords;
    auto translation = [&](int d) { return field(*c, [&](int, int k) { return k == d ? 1.0 : 0.0; }); };
    auto rotation = [&](int a, double px) {
      return field(*c, [&, a, px](int n, int k) {
        const Eigen::Vector3d w = Eigen::Vector3d::Unit(a);
        if (k >= 3) return w[k - 3];
        const Eigen::Vector3d x(X[n][0] - px, X[n][1], X[n][2]);
        return w.cross(x)[k];
      });
    };
    Eigen::Matrix3d mt, s_end0, s_com;
    for (int d = 0; d < 3; ++d) {
      auto t = translation(d);
      for (int e = 0; e < 3; ++e) {
        auto te = translation(e);
        auto r0 = rotation(e, 0.0), rc = rotation(e, L / 2);
        mt(d, e) = dot(c->M(), t.get(), te.get());
        s_end0(d, e) = dot(c->M(), t.get(), r0.get());
        s_com(d, e) = dot(c->M(), t.get(), rc.get());
      }
    }
    // t_dᵀ M (e_a × (x − p)) = (e_a × S_p)_d with S_p = m (x_c − p): about END0, S = (mL/2) e_x, so the
    // block is [[0, 0, 0], [0, 0, S], [0, −S, 0]] (row d = y, column a = z: +S; d = z, a = y: −S).
    Eigen::Matrix3d s_expected = Eigen::Matrix3d::Zero();
    s_expected(1, 2) = first;
    s_expected(2, 1) = -first;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      std::printf("[seed000 bar L = %.2f] mass %.6g (rel. err %.1e), first moment about END0 %.6g (rel. err %.1e), "
                  "about the CoM %.1e (rel. to mL/2)\n",
                  L, mt(0, 0), (mt - m * Eigen::Matrix3d::Identity()).norm() / m, s_end0(1, 2),
                  (s_end0 - s_expected).norm() / first, s_com.norm() / first);
    EXPECT_LT((mt - m * Eigen::Matrix3d::Identity()).norm(), 1e-12 * m) << "L = " << L << "\n" << mt;
    EXPECT_LT((s_end0 - s_expected).norm(), 1e-12 * first) << "L = " << L << "\n" << s_end0;
    EXPECT_LT(s_com.norm(), 1e-12 * first) << "L = " << L << "\n" << s_com;
  }
}
