// SPDX-License-Identifier: MIT
#pragma once
/// @file Sections.hpp
/// @brief Materials, beam cross-sections and the sections that assign them to element sets, as given
/// in the input (part of io/Mesh.hpp).

#include "flexuq/io/SourceLocation.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace flexuq::io {

/// Isotropic linear-elastic material as given in the input. Any field may be missing; fe checks
/// completeness and ranges and names the material and its source on error. (G, C) is the seed-000
/// parametrisation (shear and bulk modulus): E = 9CG/(3C+G), ν = (3C−2G)/(6C+2G).
struct Material {
  std::string name;
  std::optional<double> E, nu, G, C, rho;
  SourceLocation where;
};

/// Beam cross-section (Abaqus *BEAM SECTION / *BEAM GENERAL SECTION conventions).
/// Local axes: t along the element (node 1 → node 2), n1 the first section axis (given, default
/// (0,0,−1) as in Abaqus, orthogonalised against t), n2 = t × n1.
/// I11 = ∫ x2² dA (bending about n1), I22 = ∫ x1² dA (bending about n2), J torsion constant.
struct BeamSection {
  /// "RECT" (dims a, b), "CIRC" (dims r), "GENERAL" (A, I11, I12, I22, J), "ROD" (A, J: Nastran
  /// CROD/PROD, axial and torsion only, no bending stiffness and no rotary or torsional inertia)
  std::string shape;
  std::vector<double> dims;     ///< as written in the input
  std::array<double, 3> n1{0.0, 0.0, -1.0};
  double A = 0, I11 = 0, I22 = 0, I12 = 0, J = 0;
  /// Lumped translational mass ρAL/2 per node and no rotary inertia instead of the consistent mass
  /// (Nastran CBAR/CBEAM/CROD with PARAM,COUPMASS absent or negative; see io/BdfReader.hpp).
  bool lumped_mass = false;
  /// Which coupled mass a beam gets when lumped_mass is false (fe::beam_terms states both):
  /// - consistent: the textbook consistent mass — axial ρAL/6 [2 1; 1 2], torsional inertia
  ///   ρ(I11 + I22)L/6 [2 1; 1 2], cubic-Hermite bending without rotary inertia. Every beam of the
  ///   .inp reader and the generators, and Nastran CBEAM with PARAM,COUPMASS,1.
  /// - nastran_cbar: Nastran's coupled CBAR mass (PARAM,COUPMASS,1): axial ρAL/12 [5 1; 1 5] (the
  ///   mean of the lumped and the consistent axial mass), the same Hermite bending, no rotary and
  ///   no torsional inertia. Not used for "ROD" sections (CROD has its own coupled mass).
  enum class CoupledMass { consistent, nastran_cbar };
  CoupledMass coupled_mass = CoupledMass::consistent;
  /// Rigid end offsets in global axes (Nastran CBAR/CBEAM WA, WB): the beam runs between the offset
  /// points x_1 + offset_a and x_2 + offset_b, joined rigidly to its nodes (u_end = u + θ × offset).
  /// Zero for every other beam. The element axis t and n1 are those of the offset points.
  std::array<double, 3> offset_a{0.0, 0.0, 0.0}, offset_b{0.0, 0.0, 0.0};
  /// Released end components (Nastran pin flags PA, PB): bit k−1 set releases component k (1–3
  /// translations, 4–6 rotations along the element axes t, n1, t × n1) at that end of the beam
  /// (between the beam and its offset point); fe::beam_terms condenses them out statically.
  int release_a = 0, release_b = 0;
  /// Nonstructural mass per unit length (Nastran PBAR/PBEAM/PROD/CONROD NSM, × WTMASS): mass on the
  /// translations only, distributed like the section's own (lumped or coupled), a constant term of
  /// M (it does not scale with ρ).
  double nsm = 0;
  /// Fill A, I11, I22, I12, J from shape and dims; throws InputError naming @p where on bad data.
  void compute_properties(const SourceLocation& where);
};

/// Shell section of shell4/shell3 elements (Abaqus *SHELL SECTION, Nastran PSHELL, the job file's
/// model.shell): a homogeneous isotropic shell of thickness T about its mid-surface (no offset).
/// Membrane stiffness E T/(1−ν²), bending bending_ratio · E T³/(12(1−ν²)), transverse shear
/// shear_ratio · G T (fe/Shell.hpp).
struct ShellSection {
  double thickness = 0;
  double bending_ratio = 1.0;     ///< Nastran PSHELL 12I/T³ (1: the homogeneous plate)
  double shear_ratio = 5.0 / 6.0; ///< Nastran PSHELL TS/T, the transverse shear factor κ
  double nsm = 0;                 ///< nonstructural mass per unit area (Nastran PSHELL NSM)
  /// Throws InputError naming @p where unless thickness, bending_ratio and shear_ratio are positive
  /// and finite and nsm is finite and not negative.
  void validate(const SourceLocation& where) const;
};

/// Section of the 2-D continuum elements quad4/quad8/tri3/tri6 (Abaqus *SOLID SECTION on CPS*/CPE*
/// elements, the job file's model.plane): the thickness and the plane state. Plane stress
/// (σ33 = 0, Abaqus CPS*) or plane strain (ε33 = 0, CPE*; the thickness then only scales K and M,
/// as in Abaqus). fe/Plane.hpp.
struct PlaneSection {
  double thickness = 1.0; ///< Abaqus' default for an empty data line
  bool strain = false;    ///< plane strain instead of plane stress
  /// Throws InputError naming @p where unless the thickness is positive and finite.
  void validate(const SourceLocation& where) const;
};

/// A section assigns a material (and for beams a cross-section, for shells a thickness) to an
/// element set.
struct Section {
  std::string elset;    ///< upper-case set name
  std::string material; ///< upper-case material name
  bool beam = false;
  BeamSection beam_section;
  bool shell = false;
  ShellSection shell_section;
  bool plane = false; ///< a section of 2-D continuum elements
  PlaneSection plane_section;
  bool bar = false;    ///< a section of bar2 elements (Abaqus *SOLID SECTION on T2D2/T3D2)
  double bar_area = 0; ///< their cross-section area
  SourceLocation where;
};

} // namespace flexuq::io
