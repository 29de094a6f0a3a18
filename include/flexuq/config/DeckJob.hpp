// SPDX-License-Identifier: MIT
#pragma once
/// @file DeckJob.hpp
/// @brief A Nastran deck run as a job: `flexuq modes deck.dat`, `flexuq reduce deck.dat`.
///
/// The deck becomes the YAML job it implies (docs/nastran.md), then `--set` overrides apply:
/// - modes: model.mesh = the deck; modes.fixed = [SPC<sid>] for the case control's SPC (and [PS]
///   for permanent constraints on GRID cards); modes.count = EIGRL ND, or modes.band = [V1, V2]
///   (V1 default 0) for the EIGRL the case control's METHOD selects.
/// - reduce: Craig–Bampton; interfaces from the b-set (BSET/BSET1, and ASET/ASET1 grids, which
///   Nastran puts in the b-set unless they are q-set points): the grids that are mesh nodes form
///   one all-DOF interface on set BSET (ASET grids on set ASET); a b-set grid that is the reference
///   grid of an RBE2/RBE3 makes that element an rbe2/rbe3 interface at the grid; modes: EIGRL ND
///   (at most the q-set size, SPOINTs in QSET/QSET1) or band, else the q-set size. Decks with SPCs
///   are refused for reduce (the interfaces are the supports of a reduced body).
/// - output = the deck's stem + ".h5" in the working directory.

#include "flexuq/config/Config.hpp"

#include <mpi.h>

#include <string>
#include <vector>

namespace flexuq::io {

/// The YAML text of the job that deck @p path implies for @p verb ("modes" or "reduce"). Keys
/// that @p overrides set are left out where the deck would give a conflicting alternative
/// (count vs band). Throws InputError naming the deck for what it cannot express.
std::string deck_job_yaml(const std::string& path, const std::string& verb, const std::vector<std::string>& overrides);

/// deck_job_yaml read on every rank (readers are rank-local), parsed with the overrides applied.
Config load_deck_job(const std::string& path, const std::string& verb, const std::vector<std::string>& overrides);

} // namespace flexuq::io
