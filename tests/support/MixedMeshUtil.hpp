// SPDX-License-Identifier: MIT
#pragma once
// The mixed mesh of tests/fe/mixed_test.cpp and tests/cms/mixed_cb_test.cpp (issue #37 item 1): a
// steel shell plate on a hex8 block, sharing nodes.
#include "FeTestUtil.hpp"

#include <map>
#include <string>
#include <tuple>

namespace flexuq::test {

constexpr double kE = 2.1e11, kNu = 0.3, kRho = 7850;

/// A square plate [x0, a] × [0, a] (z = 0, h, material STEEL, nx × ny quads over [0, a]) on a hex8 block
/// x ∈ [−ns dx, 0], y ∈ [0, a], z ∈ [−c, c] (2 layers: its mid-plane nodes are the plate's). The
/// plate starts at x0 = 0 (it meets the block along the edge x = 0: a hinge) or, when @p embedded, at
/// −ns dx (its first ns columns of quads lie in the block's mid-plane, sharing those nodes). The
/// block has no section (the job's default material). Node sets SHARED: the plate nodes on the block,
/// ROOT: the block's face x = −ns dx, TIP: the plate's free edge x = a.
/// With @p solid false the block's hex8 are left out (the plate alone, same node numbering).
inline io::Mesh plate_on_block(int nx, int ns, double a, double h, double c, bool embedded, bool solid = true) {
  io::Mesh m;
  m.source = "plate_on_block";
  const double dx = a / nx;
  std::map<std::tuple<int, int, int>, int> id;
  auto node = [&](int i, int j, int k) {
    auto [it, fresh] = id.emplace(std::make_tuple(i, j, k), static_cast<int>(m.coords.size()));
    if (fresh) {
      m.coords.push_back({i * dx, j * dx, k * c});
      m.node_ids.push_back(static_cast<long>(m.coords.size()));
      if (k == 0 && i <= 0) m.node_sets["SHARED"].push_back(it->second);
      if (i == -ns) m.node_sets["ROOT"].push_back(it->second);
      if (i == nx) m.node_sets["TIP"].push_back(it->second);
    }
    return it->second;
  };
  long eid = 1;
  for (int j = 0; j < nx; ++j)
    for (int i = embedded ? -ns : 0; i < nx; ++i) {
      m.add_element(io::ElementType::shell4, {node(i, j, 0), node(i + 1, j, 0), node(i + 1, j + 1, 0), node(i, j + 1, 0)}, eid);
      m.element_sets["PLATE"].push_back(static_cast<int>(m.num_elements()) - 1);
      ++eid;
    }
  if (solid)
    for (int k = -1; k < 1; ++k)
      for (int j = 0; j < nx; ++j)
        for (int i = -ns; i < 0; ++i)
          m.add_element(io::ElementType::hex8,
                        {node(i, j, k), node(i + 1, j, k), node(i + 1, j + 1, k), node(i, j + 1, k), node(i, j, k + 1),
                         node(i + 1, j, k + 1), node(i + 1, j + 1, k + 1), node(i, j + 1, k + 1)},
                        eid++);
  m.materials["STEEL"] = material("STEEL", kE, kNu, kRho);
  io::Section s;
  s.elset = "PLATE";
  s.material = "STEEL";
  s.shell = true;
  s.shell_section.thickness = h;
  s.where.file = m.source;
  m.sections.push_back(s);
  return m;
}

} // namespace flexuq::test
