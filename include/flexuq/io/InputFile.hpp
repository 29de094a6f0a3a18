// SPDX-License-Identifier: MIT
#pragma once
/// @file InputFile.hpp
/// @brief The one checked way to open an input file (meshes, matrices, label files, OP4, HDF5
/// bodies and results, journals): only regular files are read. A FIFO blocks an open for ever, a
/// device such as /dev/zero never ends and reports no size, a directory opens as a stream with a
/// nonsense size — each is refused at once with a message naming the file and what it is.

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

namespace flexuq::io {

/// What stands in the way of reading a path.
enum class InputProblem {
  none,       ///< a regular file this process can read
  missing,    ///< no such file (or a dangling link)
  unreadable, ///< exists but cannot be opened (permissions)
  directory,  ///< a folder
  special,    ///< a FIFO, a character or block device or a socket
};

struct InputCheck {
  InputProblem problem = InputProblem::none;
  /// "" when none; else "does not exist", "cannot be opened (permission denied)", "is a directory",
  /// "is not a regular file (a FIFO / named pipe)" / "(a character device such as /dev/zero)" / ….
  std::string reason;
  std::uint64_t size = 0; ///< bytes of a regular file
};

/// stat() of @p path (following links), classified. Never opens the file, so never blocks. Not collective.
InputCheck inspect_input(const std::string& path);

/// @p path must be a readable regular file: else InputError "<what> '<path>' <reason>" (e.g. "matrix
/// file '/dev/zero' is not a regular file (a character device such as /dev/zero): give the path of a
/// file"). Returns its size in bytes.
std::uint64_t require_input(const std::string& path, const std::string& what);

/// require_input, then a binary std::ifstream on the file (InputError if it cannot be opened).
std::ifstream open_input(const std::string& path, const std::string& what);

/// The whole text of @p path, or nullopt with the reason in @p why ("cannot be opened", "is a
/// directory", "is not a regular file …", or that it does not fit in memory). For the readers of
/// text files outside io (the job file, flexuq_config). Not collective.
std::optional<std::string> read_text(const std::string& path, std::string* why = nullptr);

/// @p text cut to @p max characters for a message: "abc… (204800 characters)" when longer.
std::string shorten(const std::string& text, std::size_t max = 80);

} // namespace flexuq::io
