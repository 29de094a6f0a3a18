// SPDX-License-Identifier: MIT
#pragma once
/// @file RootTask.hpp
/// @brief Work only one rank does (reading a journal, fitting, writing a file), with its failure
/// reported on every rank so that no rank waits for a collective the others never reach.

#include <mpi.h>

#include <functional>

namespace flexuq {

/// Run @p fn on @p root; an exception it throws is rethrown on every rank of @p comm with the same
/// message: an InputError as an InputError (exit code 2), anything else as an Error.
/// @note Collective (one string broadcast).
void on_root(MPI_Comm comm, const std::function<void()>& fn, int root = 0);

} // namespace flexuq
