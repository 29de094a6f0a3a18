// SPDX-License-Identifier: MIT
#pragma once
/// @file Generators.hpp
/// @brief Built-in components: a structured hex8/hex20 box and a straight 3-D beam of two-node
/// Euler–Bernoulli frame elements (seed 000 App. E.1).

#include "flexuq/io/Mesh.hpp"

#include <array>

namespace flexuq::io {

/// Box [0,lx]×[0,ly]×[0,lz] (shifted by origin) with nx×ny×nz hexahedra.
/// Node sets: XMIN, XMAX, YMIN, YMAX, ZMIN, ZMAX (faces), ALL; element set ALL.
struct BoxSpec {
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> size{1, 1, 1};
  std::array<int, 3> cells{2, 2, 2};
  int order = 1; ///< 1: hex8, 2: hex20
};
Mesh generate_box(const BoxSpec& spec);

/// Straight beam from @p origin along @p direction, @p elements elements of equal length.
/// Node sets: END0 (first node), END1 (last node), MID (middle node; only for an even element
/// count), ALL; element set ALL. The section is attached to element set ALL with material "DEFAULT".
struct BeamSpec {
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> direction{1, 0, 0};
  double length = 1.0;
  int elements = 10;
  BeamSection section; ///< shape/dims/n1 as for *BEAM SECTION; properties are computed here
};
Mesh generate_beam(const BeamSpec& spec);

} // namespace flexuq::io
