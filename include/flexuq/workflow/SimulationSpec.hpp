// SPDX-License-Identifier: MIT
#pragma once
/// @file SimulationSpec.hpp
/// @brief A `flexuq simulate` job as typed values (docs/config.md "simulate") and its build into an
/// mbs::SimulationJob. app/SimulationOptions.hpp makes a SimulationSpec of the job file (every key
/// and every check that needs only the job file) before any body file is read; a test makes one in
/// code. build_simulation reads the body files and builds the System; its checks on them (node ids
/// in a mesh, set names, interfaces, stochastic parameters) name the job key the entry remembers
/// (JobKey), as the parser would.
///
/// Bodies are in System order (grounds are not bodies); joints, forces and outputs refer to them by
/// index (mbs::kGround for a ground), as mbs::JointSpec and mbs::ForceSpec do.

#include "flexuq/mbs/Simulation.hpp"
#include "flexuq/workflow/JobKey.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace flexuq::workflow {

/// `bodies.<b>.parameters.<name>`: a parameter of a stochastic body and its value.
struct BodyParameter {
  std::string name;
  double value = 0.0;
  JobKey key; ///< the message's key: bodies.<b>.parameters, at the line of the name
};

/// A flexible body: its file and the options it is read with.
struct FlexibleBodySpec {
  std::string file;             ///< a `flexuq reduce` or `flexuq body-at` result
  mbs::FlexibleOptions options; ///< options.gcms (`type: gcms`): the file must hold a GCMS body
  /// Evaluate the file's stochastic body at these parameters (the others at their means); false:
  /// the body of the file (`/reduced`).
  bool at_parameters = false;
  std::vector<BodyParameter> parameters;
  JobKey key;            ///< bodies.<b>.body (the file)
  JobKey type_key;       ///< bodies.<b>.type
  JobKey parameters_key; ///< bodies.<b>.parameters
};

struct BodySpec {
  /// Name, pose and velocities; mass and inertia of a rigid body (`flex` is left unset: the build
  /// reads it from `flexible`).
  mbs::RigidBody body;
  std::optional<FlexibleBodySpec> flexible;
  JobKey key; ///< bodies.<b>
};

struct JointEntry {
  mbs::JointSpec spec;
  JobKey key; ///< joints[i] (name), or plane for a `<body>.plane` joint
};

struct ForceEntry {
  mbs::ForceSpec spec; ///< spec.point is replaced by `point`
  /// Global, at t = 0; unset: the body's position, or with spec.interface that interface's
  /// reference point.
  std::optional<mbs::Vec3> point;
  JobKey key;           ///< forces[i]
  JobKey interface_key; ///< forces[i].interface
};

struct OutputEntry {
  mbs::OutputSpec spec; ///< name, quantity, body, interface; point, node, nodes, joint and L are set by the build
  /// Body frame; unset: the origin, or on a GCMS body the interface's reference point.
  std::optional<mbs::Vec3> point;
  std::string joint;                ///< angle, reaction: the joint's name
  std::optional<std::int64_t> node; ///< a node label of the body file's mesh
  std::string set;                  ///< von_mises: a node set of that mesh (upper case)
  JobKey key;                       ///< outputs[i]
  JobKey node_key, set_key, interface_key;
};

struct SimulationSpec {
  std::vector<BodySpec> bodies;
  std::vector<JointEntry> joints; ///< in System order (a plane's joints first)
  std::vector<ForceEntry> forces;
  mbs::SolverOptions solver;
  bool quadratic_velocity = true; ///< solver.quadratic_velocity
  std::vector<OutputEntry> outputs;
  std::string output_path = "simulation.h5";
  bool animation = true;
  bool snapshots = false; ///< `snapshots`: q, q̇, q̈, λ per output time in /snapshots (flexuq rom's training data)
  /// `rom`: a `flexuq rom` result; set: the run integrates the reduced model (rom/ReducedIntegrator.hpp)
  std::string rom;
};

/// Read the body files and build the job: the System (bodies, joints, forces), the solver options
/// and the outputs with their maps. Not collective (files are read on MPI_COMM_SELF).
/// @throws InputError naming the job key of the entry at fault.
mbs::SimulationJob build_simulation(const SimulationSpec& spec);

} // namespace flexuq::workflow
