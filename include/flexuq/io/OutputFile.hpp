// SPDX-License-Identifier: MIT
#pragma once
/// @file OutputFile.hpp
/// @brief The one way a command writes a result file (HDF5 results, OP4, MatrixMarket exports and
/// the .xdmf beside them; not journals, which are the resume state):
///  - check_output refuses, before any computation, an output that is one of the inputs (the same
///    file by st_dev/st_ino: the same path, a hard link or a symbolic link), a directory, or a path
///    in a folder that does not exist or is not writable;
///  - OutputFile writes into a temporary folder `<path>.tmp.<pid>/` beside the final name and moves
///    what was written there onto the final names at commit() (rename: atomic), so a run that fails
///    leaves an older result intact and removes its temporary folder. The folder carries a marker
///    `.flexuq-owner` ("<host> <pid>"); a run that was killed before it could clean up (SIGKILL, OOM)
///    leaves its folder, and the next OutputFile for the same path on the same host removes the
///    folders whose process no longer exists.

#include <mpi.h>

#include <string>
#include <vector>

namespace flexuq::io {

/// What is wrong with @p path as an output of a run that reads @p inputs, or "" when nothing is.
/// @p what names the path in the message ("output", "-o", "reduce.op4", ...). Not collective.
std::string output_problem(const std::string& path, const std::vector<std::string>& inputs, const std::string& what);

/// output_problem on rank 0 of @p comm, thrown as InputError on every rank. @note Collective.
void check_output(MPI_Comm comm, const std::string& path, const std::vector<std::string>& inputs,
                  const std::string& what);

/// A result written under a temporary name and renamed onto @p path by commit().
/// Typical use: `OutputFile out(comm, path); write(out.temp()); out.commit();`.
class OutputFile {
public:
  /// Rank 0 of @p comm makes the folder `<path>.tmp.<pid>/`; every rank gets its name. Pass
  /// MPI_COMM_SELF for a file one rank writes. @note Collective on @p comm; Error on every rank when
  /// the folder cannot be made.
  OutputFile(MPI_Comm comm, const std::string& path);
  /// Not committed (a failure): rank 0 removes the temporary folder and what is in it.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// The final name.
  const std::string& path() const { return path_; }
  /// Where to write: `<path>.tmp.<pid>/<file name of path>`. Files written beside it (an .xdmf that
  /// names the .h5 by its file name, `<temp>_K.mtx` for a prefix) move with it, keeping their names.
  const std::string& temp() const { return temp_; }

  /// After every rank has written (a barrier), rank 0 moves each file of the temporary folder to
  /// the final folder (the file of path() last) and removes the folder. @note Collective; Error on
  /// every rank when a rename fails. Once only: a later write (a checkpoint) takes a new OutputFile.
  void commit();

private:
  MPI_Comm comm_;
  int rank_ = 0;
  std::string path_, folder_, temp_;
  bool pending_ = false; ///< rank 0: a folder exists that commit() has not moved
};

} // namespace flexuq::io
