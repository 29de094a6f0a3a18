// SPDX-License-Identifier: MIT
#pragma once
/// @file BdfReader.hpp
/// @brief Reader for MSC/NX Nastran bulk data decks (.bdf, .dat, .nas).
///
/// Formats: small field (8 columns), large field (`GRID*`, 16 columns, `*` continuations, also
/// across the two physical lines of one logical line), free field (commas; `GRID*,` is large free
/// field), tabs expanded to 8-column stops, `$` comments, continuations marked by `+`/`*` in
/// column 1 or a blank field 1 (the continuation identifiers themselves are not matched), Nastran
/// reals with an implicit exponent (`7.-3`, `2.1+11`) and Fortran `D` exponents, `THRU` in set
/// cards. `INCLUDE 'file'` anywhere, relative to the including file; an executive section up to
/// `CEND`, then case control up to `BEGIN BULK` (only `SPC =` and `METHOD =` are read), bulk data
/// up to `ENDDATA`. A file without `CEND`/`BEGIN BULK` is all bulk data.
///
/// Cards (MSC Nastran Quick Reference Guide field layout):
/// - GRID (CP, CD, PS), CORD2R/CORD2C/CORD2S (any RID chain), CORD1R/CORD1C/CORD1S;
/// - CTETRA (4/10), CPENTA (6/15), CHEXA (8/20) with PSOLID; MAT1 (any two of E, G, ν; ρ);
/// - CBAR/CBEAM (orientation by X or G0, OFFT GGG/BGG) with PBAR, PBARL (ROD, TUBE, BAR, BOX, I)
///   or PBEAM (constant section): beam2 elements; offsets, pin flags, NSM, I12 and tapered PBEAM
///   are refused with the card's file and line;
/// - CROD with PROD (A, J; NSM refused): a beam2 element of a "ROD" section (io::BeamSection):
///   axial E·A and torsional G·J stiffness, no bending; lumped or coupled (COUPMASS > 0) mass on
///   translations only. Its PROD_<pid> element set takes MAT1 like a CBAR's, so a campaign that
///   samples E of that material scales the rods. A rod-only grid has no bending stiffness: AUTOSPC
///   constrains those directions (Mesh::autospc, fe::Component);
/// - CQUAD4, CTRIA3 with PSHELL: shell4/shell3 elements (fe/Shell.hpp) of the PSHELL's MID1 and T;
///   12I/T³ (default 1) scales the bending stiffness, TS/T (default 5/6) is the transverse shear
///   factor, NSM a constant mass per area. MID2 must equal MID1 and MID3 must equal MID1 or be blank
///   (blank: one warning, the shell keeps MID1's shear flexibility where Nastran makes it rigid);
///   MID4, ZOFFS ≠ 0 and corner thicknesses T1..Tn that differ are refused; equal ones (TFLAG 0
///   or 1) override T. THETA/MCID are ignored (isotropic). PCOMP/PCOMPG are refused;
/// - CELAS1 with PELAS, CELAS2 (grid components 1–6 in the grid's CD system; G2 blank: grounded;
///   GE ignored with a warning) → Mesh::springs; CONM2 (CID 0, −1 or a system; offset and inertia
///   rotated to basic; WTMASS scales m and I) → Mesh::point_masses. Both become constant terms of
///   K(θ), M(θ) (fe::Component). Their ids share the element id space; their grids must belong to
///   an element;
/// - RBE2, RBE3, SPC/SPC1, ASET/ASET1, BSET/BSET1, QSET/QSET1, SPOINT, EIGRL,
///   PARAM COUPMASS/WTMASS/AUTOSPC (→ Mesh::autospc, YES by default)/GRDPNT (other PARAMs: one warning).
/// - Refused with a clear message: CQUAD8, CTRIA6, CQUADR, CTRIAR, CSHEAR, PCOMP, PCOMPG, CONROD, CELAS3/CELAS4, CONM1,
///   CMASS1-4, and any card not listed here, except the cards of
///   kHarmlessBdfCards (loads, plot and output-only cards, which cannot change K, M or a set):
///   those are skipped with one warning listing them.
///
/// Nastran conventions kept:
/// - Coordinates are converted to the basic system; each grid's CD frame is kept in
///   Mesh::node_frames (results in the CD system are a post-processing rotation).
/// - CBAR/CBEAM: element x from GA to GB, the orientation vector v (X, or G0 − GA) in GA's
///   displacement (CD) system unless OFFT starts with B (basic); plane 1 = (x, v), I1 bends in
///   plane 1, I2 in plane 2: flexuq's beam n1 = v, I22 = I1, I11 = I2 (see io::BeamSection).
/// - Mass (MSC Nastran QRG, PARAM COUPMASS): absent or ≤ 0 is the lumped mass, so CBAR/CBEAM get
///   ρAL/2 per end on translations only (BeamSection::lumped_mass); COUPMASS > 0 the coupled
///   mass: for CBAR Nastran's (BeamSection::CoupledMass::nastran_cbar: Hermite bending, axial
///   ρAL/12 [5 1; 1 5], no rotary or torsional inertia), for CBEAM the consistent beam mass
///   (torsional inertia ρ(I1 + I2)L/6 [2 1; 1 2], axial ρAL/6 [2 1; 1 2]). Solids and shells always use the consistent mass (a warning says so when
///   COUPMASS does not ask for it). PARAM WTMASS scales every density (M = WTMASS · M_input).
/// - Grids used by no element (RBE2/RBE3 reference grids, spider centres) are left out of the mesh
///   (Nastran's AUTOSPC would constrain them all); BdfDeck keeps them.
///
/// Named sets for YAML: node sets `BSET`, `ASET`, `QSET` (grids of those cards that are mesh
/// nodes), `SPC<sid>` and `PS` (grids with a constraint, their components in Mesh::set_components:
/// any subset of 123456, 4-6 dropped on solid grids, a subset other than whole triples refused in a
/// CD system whose axes are not the basic ones), `RBE2_<eid>` (dependent grids GM), `RBE3_<eid>`
/// (weighted grids); element sets `PSOLID_<pid>`, `PBAR_<pid>`, `PBARL_<pid>`,
/// `PBEAM_<pid>`, `PSHELL_<pid>` (shells with the PSHELL's T; those whose corner thicknesses
/// override it in `PSHELL_<pid>_T<k>`) (materials `MAT1_<mid>`).

#include "flexuq/io/Mesh.hpp"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace flexuq::io {

/// The cards that cannot change the stiffness, the mass or a set (loads, plot and output-only
/// cards): skipped with one warning. Anything else not understood is an error.
extern const char* const kHarmlessBdfCards[];

/// What a deck says beyond the mesh: solution control, the reduction sets and the rigid elements.
struct BdfDeck {
  struct Eigrl {
    long sid = 0;
    std::optional<double> v1, v2; ///< frequency band [Hz]
    std::optional<long> nd;       ///< number of roots wanted
    SourceLocation where;
  };
  /// RBE2 (rigid) or RBE3 (interpolation) element. nodes: the dependent (RBE2 GM) or weighted
  /// (RBE3 Gi,j) grids, sorted by internal index (the order of node set RBE2_<eid>/RBE3_<eid>);
  /// weights: RBE3 weight of each of those nodes.
  struct Rigid {
    long eid = 0;
    bool rbe2 = true;
    long ref_grid = 0;               ///< RBE2 GN, RBE3 REFGRID
    std::array<double, 3> ref_xyz{}; ///< its basic coordinates
    std::string components;          ///< RBE2 CM, RBE3 REFC
    std::vector<double> weights;
    SourceLocation where;
  };
  struct SetEntry {
    long grid = 0;     ///< grid or scalar point id
    int components = 0; ///< e.g. 123456 (0 for a scalar point)
  };
  std::optional<long> spc;    ///< case control SPC = sid
  std::optional<long> method; ///< case control METHOD = sid
  std::map<long, Eigrl> eigrls;
  std::vector<long> spoints;
  std::vector<SetEntry> aset, bset, qset; ///< in card order, THRU expanded
  long qset_spoints = 0; ///< scalar points in the q-set: Nastran's number of modal coordinates
  std::vector<Rigid> rigids;
  std::map<long, std::array<double, 3>> dropped_grids; ///< grids left out of the mesh (basic coords)
  double wtmass = 1.0;
  long coupmass = -1;
  bool autospc = true;
  std::optional<long> grdpnt;

  /// The EIGRL the case control's METHOD selects, else the only EIGRL of the deck, else nullptr.
  /// Throws InputError if METHOD names an EIGRL the deck does not define.
  const Eigrl* method_eigrl() const;
};

/// @brief Read a Nastran deck. @p deck (optional) receives the solution-control data.
/// @return the validated mesh (Mesh::validate()); Mesh::source = @p path.
/// @throws flexuq::InputError naming file and line (and the card) of any malformed, unsupported or
///         inconsistent input.
Mesh read_bdf(const std::string& path, BdfDeck* deck = nullptr);

/// True for the extensions read_bdf reads: .bdf, .dat, .nas (case-insensitive).
bool is_bdf_path(const std::string& path);

} // namespace flexuq::io
