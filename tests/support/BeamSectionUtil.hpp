// SPDX-License-Identifier: MIT
#pragma once
// A rectangular beam section for FE tests that build beams in memory (tests/fe shell and mixed tests).
#include "flexuq/io/Mesh.hpp"

#include <string>

namespace flexuq::test {

/// A RECT @p b × @p h beam section of material @p material on element set @p elset, added to @p m.
inline void add_rect_beam_section(io::Mesh& m, const std::string& elset, const std::string& material, double b, double h) {
  io::Section s;
  s.elset = elset;
  s.material = material;
  s.beam = true;
  s.beam_section.shape = "RECT";
  s.beam_section.dims = {b, h};
  s.beam_section.compute_properties(s.where);
  m.sections.push_back(s);
}

} // namespace flexuq::test
