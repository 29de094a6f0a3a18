// SPDX-License-Identifier: MIT
#pragma once
/// @file BoxBody.hpp
/// @brief The workflow tests' flexible body: a free steel box 0.3 × 0.1 × 0.05 m (6 × 2 × 2 hex8
/// cells) whose XMIN face is centred on the origin, reduced by Craig–Bampton on RBE2 interfaces XMIN
/// and XMAX with 4 fixed-interface modes and written as `flexuq reduce` writes a body file (the
/// reduction chain of cms, no job file). Homogeneous, so its mass properties are known in closed form.

#include "../io/ScratchFile.hpp"

#include "flexuq/cms/ReducedBodyBuild.hpp"
#include "flexuq/cms/WorkSpace.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/io/Generators.hpp"

#include <mpi.h>

#include <map>
#include <string>
#include <vector>

namespace flexuq::test {

constexpr double kBoxA = 0.3, kBoxB = 0.1, kBoxC = 0.05, kSteelE = 2.0e11, kSteelNu = 0.3, kSteelRho = 7800;

inline io::Mesh box_mesh() {
  io::BoxSpec s;
  s.origin = {0.0, -kBoxB / 2, -kBoxC / 2};
  s.size = {kBoxA, kBoxB, kBoxC};
  s.cells = {6, 2, 2};
  return io::generate_box(s);
}

inline fe::ComponentOptions steel() {
  fe::ComponentOptions o;
  io::Material m;
  m.name = "steel";
  m.E = kSteelE;
  m.nu = kSteelNu;
  m.rho = kSteelRho;
  o.default_material = m;
  return o;
}

inline std::vector<cms::InterfaceSpec> box_interfaces() {
  return {{"XMIN", cms::InterfaceKind::rbe2, std::nullopt, {}}, {"XMAX", cms::InterfaceKind::rbe2, std::nullopt, {}}};
}

inline cms::ReducerOptions box_reducer() {
  cms::ReducerOptions o;
  o.modes.count = 4;
  return o;
}

/// The box's body file, written once per test program @p program and rank count into a folder every
/// rank sees (programs that run at the same time write apart). @note Collective on MPI_COMM_WORLD.
inline std::string box_body_file(const std::string& program) {
  static std::map<std::string, std::string> written;
  if (written.count(program)) return written[program];
  const std::string p = shared_scratch_dir("workflow-" + program) + "/box-cb.h5";
  auto copts = steel();
  copts.keep_affine = false;
  fe::Component comp(MPI_COMM_WORLD, box_mesh(), copts);
  cms::WorkSpace ws(comp, box_interfaces());
  cms::Reducer reducer(ws, box_reducer());
  const cms::ReducedBasis rb = reducer.build(cms::BuildOptions{});
  const cms::Checkout chk = cms::checkout(reducer, rb, 0);
  const cms::Invariants inv = cms::compute_invariants(ws, rb);
  cms::write_reduced_file(p, ws, rb, inv, chk, {});
  MPI_Barrier(MPI_COMM_WORLD);
  return written[program] = p;
}

} // namespace flexuq::test
