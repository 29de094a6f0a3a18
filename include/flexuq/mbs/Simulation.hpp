// SPDX-License-Identifier: MIT
#pragma once
/// @file Simulation.hpp
/// @brief A simulation job (System + SolverOptions + outputs; app/SimulationOptions.hpp reads it
/// from the `flexuq simulate` YAML keys, docs/config.md "simulate"), the run, and the HDF5 result
/// (docs/hdf5-schema.md "simulate"). Serial: one simulation on one rank.

#include "flexuq/core/EnumNames.hpp"
#include "flexuq/mbs/FlexibleBody.hpp"
#include "flexuq/mbs/Integrator.hpp"

#include <mpi.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace flexuq::mbs {

enum class Quantity {
  position, velocity, acceleration, angle, reaction, energy, drift, coordinates, angular_velocity, coordinate_rates,
  stress,   ///< recovered nodal stress of a flexible body at one node, body frame (fe/StressRecovery.hpp)
  von_mises ///< its von Mises equivalent at one node, or the largest over a node set
};
/// The names of `outputs[i].quantity` (core/EnumNames.hpp), in the order the messages list them.
inline constexpr EnumNames<Quantity, 12> kQuantityNames{
    {{{Quantity::position, "position"}, {Quantity::velocity, "velocity"}, {Quantity::acceleration, "acceleration"},
      {Quantity::angle, "angle"}, {Quantity::reaction, "reaction"}, {Quantity::energy, "energy"},
      {Quantity::drift, "drift"}, {Quantity::coordinates, "coordinates"}, {Quantity::coordinate_rates, "coordinate_rates"},
      {Quantity::angular_velocity, "angular_velocity"}, {Quantity::stress, "stress"}, {Quantity::von_mises, "von_mises"}}}};

struct OutputSpec {
  std::string name;
  Quantity quantity = Quantity::position;
  int body = kGround, joint = -1;
  Vec3 point = Vec3::Zero(); ///< body frame
  Mat L;                     ///< flexible body, `interface` given: the point moves with it (System::point_map)
  std::string interface;     ///< that interface (upper case; empty: none)
  std::vector<std::int64_t> nodes; ///< stress, von_mises: node indices in the body file's mesh
  /// position, velocity, acceleration at a mesh node of a flexible body (`node`: its label, else −1):
  /// point = its mesh-frame position, node_rows (3 × n) its translation rows of /reduced/basis, L = node_rows V.
  std::int64_t node = -1;
  Mat node_rows;
  std::vector<std::string> columns() const;
};

struct SimulationJob {
  System system;
  /// Flexible bodies by name: the file and options they were read with (campaign models rescale them).
  std::map<std::string, std::string> flexible_files;
  std::map<std::string, std::shared_ptr<const FlexibleSource>> sources;
  std::map<std::string, FlexibleOptions> flexible_options;
  SolverOptions solver;
  std::vector<OutputSpec> outputs;
  std::string output_path;
  bool animation = true; ///< /animation/<body> + the .xdmf beside output_path (mbs/Animation.hpp)
  /// `snapshots: true`: q, q̇, q̈ and λ of every output time in /snapshots (docs/hdf5-schema.md), the
  /// training data of `flexuq rom` (seed 003 F6).
  bool snapshots = false;
};

struct SimulationResult {
  std::vector<double> time;
  std::vector<std::vector<double>> outputs; ///< per OutputSpec: n_t × k, row-major
  std::vector<double> energy;               ///< n_t × 5: kinetic, potential, strain, work, balance
  std::vector<double> drift;                ///< n_t × 2: max |C| (all rows), max |C_q q̇ + C_t|
  std::vector<std::vector<double>> reactions; ///< per joint: n_t × 6 (force, torque at the joint point, on its second body)
  std::vector<std::vector<double>> coordinates; ///< per body: n_t × 7
  std::vector<std::vector<double>> elastic;     ///< per body: n_t × n_e (flexible bodies; empty otherwise)
  std::vector<std::string> redundant_rows;
  /// job.snapshots: per output time q, q̇, q̈ (n each) and λ (the active rows, m), row-major n_t × n / n_t × m.
  std::vector<double> snap_q, snap_v, snap_a, snap_lambda;
  std::vector<std::string> active_rows; ///< labels of the active rows (λ's columns), job.snapshots only
  bool sparse = false; ///< the saddle solves were sparse (solver.linear_algebra, auto's choice)
  RunStats stats;
  double wall_seconds = 0;
};

/// Replace the system by job.system.with_flexible(@p flex) and recompute the outputs' interface maps.
void rebuild_with(SimulationJob& job, const std::vector<std::shared_ptr<const FlexibleData>>& flex);

/// The output callback of a run (Integrator::run's @p output): appends the state's outputs, energies,
/// drift, reactions, coordinates (and snapshots when job.snapshots) to @p r. A reduced-order run
/// (rom/) records its back-projected states with it, so both write the same result layout.
std::function<void(const State&, double)> make_recorder(const SimulationJob& job, SimulationResult& r);

/// Consistent initialisation and integration; @p progress gets t after each step.
SimulationResult run_simulation(SimulationJob& job, const std::function<void(double)>& progress = {});

/// Write @p r to @p path (on MPI_COMM_SELF; call on one rank).
void write_simulation(const std::string& path, const SimulationJob& job, const SimulationResult& r);

} // namespace flexuq::mbs
