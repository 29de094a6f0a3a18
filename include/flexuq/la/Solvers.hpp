// SPDX-License-Identifier: MIT
#pragma once
/// @file Solvers.hpp
/// @brief Sparse direct solver set-up whose PETSc options belong to one solver object.
///
/// PETSc reads solver settings (e.g. MUMPS's ICNTL) from its process-wide options database, under
/// the object's prefix, when the object is set up. Writing flexuq's defaults into that database
/// once and for all would let them leak: a campaign group on 2 ranks would leave the distributed
/// right-hand-side setting for a later 1-rank group with the same prefix, a band solve its inertia
/// settings for a later count solve. So a solver keeps its defaults in a SolverDefaults and holds
/// a SolverDefaults::Scope while it sets up and solves: the defaults the user did not give are in
/// the database for exactly that extent (all ranks of the solver's communicator do the same) and
/// removed afterwards, also on exceptions. A user's own -<prefix>… option always wins and is never
/// touched.

#include <petscksp.h>

#include <string>
#include <utility>
#include <vector>

namespace flexuq::la {

class SolverDefaults {
public:
  /// Default value of the option -@p name (full name with the object's prefix, no leading dash).
  /// A later call for the same name replaces the value.
  void set(const std::string& name, const std::string& value);
  const std::vector<std::pair<std::string, std::string>>& values() const { return values_; }

  /// While alive: the defaults not already in the options database are inserted; on destruction
  /// exactly those are removed. Not collective (every rank of the solver does the same).
  class Scope {
  public:
    explicit Scope(const SolverDefaults& d);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope(Scope&& o) noexcept : inserted_(std::move(o.inserted_)) {}
    Scope& operator=(Scope&&) = delete;

  private:
    std::vector<std::string> inserted_;
  };
  /// Open a scope (keep the returned object alive around set-up and solves).
  [[nodiscard]] Scope apply() const { return Scope(*this); }

private:
  std::vector<std::pair<std::string, std::string>> values_;
};

/// Whether -@p name is in PETSc's options database (given by the user, or by an open scope).
bool option_given(const std::string& name);

/// Sparse Cholesky with MUMPS on @p ksp (preonly). Records in @p defaults, under the KSP's full
/// options prefix @p ksp_prefix: on more than one rank of the KSP's communicator, distributed
/// right-hand sides (mat_mumps_icntl_20 10: 2.4x faster solves on 2 ranks than centralised ones).
/// Everything stays overridable from the command line. @note Collective.
void setup_mumps_cholesky(KSP ksp, const std::string& ksp_prefix, SolverDefaults& defaults);

/// MUMPS settings for the inertia counts of spectrum slicing (null-pivot detection, ICNTL 13 and
/// 24, CNTL 3), recorded under @p ksp_prefix.
void mumps_inertia_defaults(const std::string& ksp_prefix, SolverDefaults& defaults);

} // namespace flexuq::la
