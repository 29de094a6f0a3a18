// SPDX-License-Identifier: MIT
#pragma once
/// @file Animation.hpp
/// @brief The flexible bodies' meshes moving with a simulation, for ParaView: per output time and
/// body, the node positions x_i(t) = r + A(p) (x0_i + Ψ_i η) (Ψ = /reduced/basis · V of the body
/// file: the translations of the elastic coordinates), written to the simulation HDF5 under
/// /animation/<body>/ and an XDMF 2 file beside it (a temporal collection of spatial collections,
/// one grid per flexible body, the node displacement A Ψ_i η as a vector attribute).
/// Schema: docs/hdf5-schema.md "simulate".

#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/mbs/Simulation.hpp"

#include <string>

namespace flexuq::mbs {

/// Write /animation/<body>/{geometry, displacement, topology_mixed} for every flexible body whose
/// file has /mesh/topology_mixed and /reduced/basis into @p f, and the XDMF file @p xdmf_path
/// referencing @p h5_name. Returns the number of bodies animated (0: no XDMF written).
int write_animation(io::H5File& f, const std::string& h5_name, const std::string& xdmf_path, const SimulationJob& job,
                    const SimulationResult& r);

} // namespace flexuq::mbs
