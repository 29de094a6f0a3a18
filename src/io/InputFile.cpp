// SPDX-License-Identifier: MIT
#include "flexuq/io/InputFile.hpp"

#include "flexuq/core/Error.hpp"

#include "TextScan.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace flexuq::io {

std::optional<std::string> read_text(const std::string& path, std::string* why) { return detail::load_text(path, why); }

InputCheck inspect_input(const std::string& path) {
  InputCheck c;
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) {
    const bool denied = !path.empty() && errno == EACCES;
    c.problem = denied ? InputProblem::unreadable : InputProblem::missing;
    c.reason = denied ? "cannot be opened (permission denied)" : "does not exist";
    return c;
  }
  if (S_ISDIR(st.st_mode)) {
    c.problem = InputProblem::directory;
    c.reason = "is a directory";
    return c;
  }
  if (!S_ISREG(st.st_mode)) {
    c.problem = InputProblem::special;
    c.reason = S_ISFIFO(st.st_mode)  ? "is not a regular file (a FIFO / named pipe)"
               : S_ISCHR(st.st_mode) ? "is not a regular file (a character device such as /dev/zero)"
               : S_ISBLK(st.st_mode) ? "is not a regular file (a block device)"
               : S_ISSOCK(st.st_mode) ? "is not a regular file (a socket)"
                                      : "is not a regular file";
    return c;
  }
  if (::access(path.c_str(), R_OK) != 0) {
    c.problem = InputProblem::unreadable;
    c.reason = "cannot be opened (permission denied)";
    return c;
  }
  c.size = static_cast<std::uint64_t>(st.st_size);
  return c;
}

std::uint64_t require_input(const std::string& path, const std::string& what) {
  const InputCheck c = inspect_input(path);
  if (c.problem == InputProblem::none) return c.size;
  std::string hint;
  if (c.problem == InputProblem::special || c.problem == InputProblem::directory) hint = ": give the path of a file";
  throw InputError(what + " '" + shorten(path, 200) + "' " + c.reason + hint);
}

std::ifstream open_input(const std::string& path, const std::string& what) {
  require_input(path, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(what + " '" + shorten(path, 200) + "' cannot be opened");
  return in;
}

std::string shorten(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut; // not inside a UTF-8 character
  return text.substr(0, cut) + "… (" + std::to_string(text.size()) + " characters)";
}

} // namespace flexuq::io
