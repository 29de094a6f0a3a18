// SPDX-License-Identifier: MIT
#include "flexuq/io/OutputFile.hpp"

#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace flexuq::io {

namespace {

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string file_name_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// The marker a temporary folder carries: "<host> <pid>" of the process that made it.
constexpr const char* kOwnerFile = ".flexuq-owner";

std::string host_name() {
  char h[256] = {};
  if (::gethostname(h, sizeof h - 1) != 0) return "?";
  return h;
}

/// Removes the temporary folders `<path>.tmp.<pid>[.<k>]` left beside @p path by runs on this host that
/// were killed (SIGKILL, an out-of-memory kill, a node reboot: no destructor ran), recognised by their
/// owner marker naming this host and a process that no longer exists. Folders of live processes, of
/// other hosts (a shared file system) and without a marker are kept. Best effort; returns how many went.
int sweep_stale_folders(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string prefix = file_name_of(path) + ".tmp.", host = host_name();
  std::error_code ec;
  int removed = 0;
  for (const auto& e : fs::directory_iterator(folder_of(path), ec)) {
    const std::string n = e.path().filename().string();
    if (n.compare(0, prefix.size(), prefix) != 0 || !e.is_directory(ec)) continue;
    std::ifstream owner(e.path() / kOwnerFile);
    std::string h;
    long pid = 0;
    if (!(owner >> h >> pid) || h != host || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue; // alive (or not ours to judge)
    owner.close();
    std::error_code rm;
    fs::remove_all(e.path(), rm);
    if (!rm) ++removed;
  }
  return removed;
}

} // namespace

std::string output_problem(const std::string& path, const std::vector<std::string>& inputs, const std::string& what) {
  if (path.empty()) return what + " is empty: give the name of the file to write";
  const std::string name = file_name_of(path);
  if (name.empty() || name == "." || name == "..")
    return what + " '" + path + "' names a folder, not a file: give a file name (e.g. " +
           (path.back() == '/' ? path : path + "/") + "result.h5)";
  struct stat out {};
  const bool exists = ::stat(path.c_str(), &out) == 0;
  if (exists && S_ISDIR(out.st_mode))
    return what + " '" + path + "' is a directory: give a file name (e.g. " + path + "/result.h5)";
  const std::string folder = folder_of(path);
  struct stat dir {};
  if (::stat(folder.c_str(), &dir) != 0 || !S_ISDIR(dir.st_mode))
    return what + " '" + path + "': the folder '" + folder + "' does not exist (create it first)";
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    return what + " '" + path + "': the folder '" + folder + "' is not writable";
  if (exists) {
    for (const auto& in : inputs) {
      struct stat is {};
      if (in.empty() || ::stat(in.c_str(), &is) != 0) continue;
      if (is.st_dev == out.st_dev && is.st_ino == out.st_ino)
        return what + " '" + path + "' is the input file '" + in +
               "' (the same path, a hard link or a symbolic link to it): writing it would destroy the input; "
               "choose another output name";
    }
  }
  return {};
}

void check_output(MPI_Comm comm, const std::string& path, const std::vector<std::string>& inputs,
                  const std::string& what) {
  int rank = 0;
  FLEXUQ_MPI(MPI_Comm_rank(comm, &rank));
  std::string problem = rank == 0 ? output_problem(path, inputs, what) : std::string();
  broadcast(comm, problem);
  if (!problem.empty()) throw InputError(problem);
}

OutputFile::OutputFile(MPI_Comm comm, const std::string& path) : comm_(comm), path_(path) {
  FLEXUQ_MPI(MPI_Comm_rank(comm, &rank_));
  std::string error;
  if (rank_ == 0) {
    const std::string base = path_ + ".tmp." + std::to_string(::getpid());
    folder_ = base;
    // Unique also when a folder of a killed run with the same process id is left over.
    for (int k = 1; ::mkdir(folder_.c_str(), 0755) != 0; ++k) {
      if (errno != EEXIST || k > 1000) {
        error = "cannot write '" + path_ + "': cannot make the temporary folder '" + folder_ + "' beside it (" +
                std::strerror(errno) + "; check the folder exists and is writable)";
        break;
      }
      folder_ = base + "." + std::to_string(k);
    }
    pending_ = error.empty();
    if (pending_) {
      std::ofstream(folder_ + "/" + kOwnerFile) << host_name() << " " << ::getpid() << "\n";
      sweep_stale_folders(path_);
    }
  }
  broadcast(comm_, error);
  if (!error.empty()) throw Error(error);
  broadcast(comm_, folder_);
  temp_ = folder_ + "/" + file_name_of(path_);
}

OutputFile::~OutputFile() {
  if (!pending_) return;
  std::error_code ec;
  std::filesystem::remove_all(folder_, ec); // best effort: the run is failing anyway
}

void OutputFile::commit() {
  FLEXUQ_MPI(MPI_Barrier(comm_)); // every rank has written and closed its part
  std::string error;
  if (rank_ == 0) {
    namespace fs = std::filesystem;
    const std::string target = folder_of(path_), main = file_name_of(path_);
    std::error_code ec;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(folder_, ec)) {
      const std::string n = e.path().filename().string();
      if (n != main && n != kOwnerFile) names.push_back(n);
    }
    if (ec) error = "cannot list the temporary folder '" + folder_ + "': " + ec.message();
    struct stat st {};
    if (::stat(temp_.c_str(), &st) == 0) names.push_back(main); // the main file last: it completes the result
    for (const auto& n : names) {
      if (!error.empty()) break;
      const std::string from = folder_ + "/" + n, to = target + "/" + n;
      if (std::rename(from.c_str(), to.c_str()) != 0)
        error = "cannot move the finished '" + from + "' onto '" + to + "' (" + std::strerror(errno) +
                "); the finished file is left in '" + folder_ + "'";
    }
    if (error.empty()) {
      std::remove((folder_ + "/" + kOwnerFile).c_str());
      ::rmdir(folder_.c_str());
    }
    pending_ = false; // after a failed rename, what was finished stays for the user
  }
  broadcast(comm_, error);
  if (!error.empty()) throw Error(error);
}

} // namespace flexuq::io
