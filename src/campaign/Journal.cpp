// SPDX-License-Identifier: MIT
#include "flexuq/campaign/Journal.hpp"

#include "Fnv1a.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/InputFile.hpp"

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/map.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace boost::serialization {
template <class Archive> void serialize(Archive& ar, flexuq::campaign::SampleRecord& r, const unsigned int /*version*/) {
  ar& r.index& r.status& r.reason& r.outputs& r.seconds& r.group;
}
} // namespace boost::serialization

namespace flexuq::campaign {

namespace {
constexpr std::uint32_t kMagic = 0x46585152; // "FXQR"
} // namespace

// --------------------------------------------------------------------------------- journal ----
Journal::Journal(const std::string& path) : path_(path) {
  f_ = std::fopen(path.c_str(), "ab");
  if (!f_) throw Error("cannot open campaign journal '" + path + "' for appending");
}
Journal::~Journal() {
  if (f_) std::fclose(f_);
}

void Journal::append(const SampleRecord& r) {
  std::ostringstream os(std::ios::binary);
  {
    boost::archive::binary_oarchive ar(os, boost::archive::no_header);
    ar << r;
  }
  const std::string payload = os.str();
  const std::uint64_t size = payload.size(), sum = detail::fnv1a(payload.data(), payload.size());
  bool ok = std::fwrite(&kMagic, sizeof kMagic, 1, f_) == 1 && std::fwrite(&size, sizeof size, 1, f_) == 1 &&
            std::fwrite(payload.data(), 1, payload.size(), f_) == payload.size() &&
            std::fwrite(&sum, sizeof sum, 1, f_) == 1;
  ok = ok && std::fflush(f_) == 0 && ::fsync(::fileno(f_)) == 0;
  if (!ok) throw Error("cannot write campaign journal '" + path_ + "' (disk full?)");
}

namespace {

/// Decode the framed record at the stream's position; false at the end or at a torn record. A
/// record never claims more bytes than the file has left (@p file_size): a damaged length field is a
/// torn record, not a 4 GB allocation. A payload whose checksum matches but that does not decode
/// (written by another version) is an InputError naming the file and the offset.
bool read_record(std::istream& in, SampleRecord& r, std::uint64_t file_size, const std::string& file) {
  std::uint32_t magic = 0;
  std::uint64_t size = 0, sum = 0;
  const auto start = in.tellg();
  if (!in.read(reinterpret_cast<char*>(&magic), sizeof magic) || magic != kMagic) return false;
  if (!in.read(reinterpret_cast<char*>(&size), sizeof size)) return false;
  const auto here = static_cast<std::uint64_t>(in.tellg());
  if (here > file_size || size > file_size - here) return false;
  std::string payload(size, '\0');
  if (!in.read(payload.data(), static_cast<std::streamsize>(size))) return false;
  if (!in.read(reinterpret_cast<char*>(&sum), sizeof sum) || sum != detail::fnv1a(payload.data(), payload.size())) return false;
  try {
    std::istringstream is(payload, std::ios::binary);
    boost::archive::binary_iarchive ar(is, boost::archive::no_header);
    r = SampleRecord{};
    ar >> r;
  } catch (const std::exception& e) {
    throw InputError("campaign journal '" + file + "': the record at byte " + std::to_string(static_cast<long long>(start)) +
                     " cannot be decoded (" + e.what() +
                     "; written by another flexuq version?): remove the journal folder to start afresh");
  }
  return true;
}

/// Every complete record of every journal in @p dir, file by file: @p take(file, offset, record).
/// Journal files are opened through io::require_input (a FIFO or device named *.rec is refused).
template <class Take> void for_each_record(const std::string& dir, Take take) {
  DIR* dp = ::opendir(dir.c_str());
  if (!dp) return;
  std::vector<std::string> files;
  while (dirent* e = ::readdir(dp)) {
    const std::string n = e->d_name;
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".rec") == 0) files.push_back(dir + "/" + n);
  }
  ::closedir(dp);
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const std::uint64_t size = io::require_input(f, "campaign journal file");
    std::ifstream in(f, std::ios::binary);
    SampleRecord r;
    for (auto at = in.tellg(); read_record(in, r, size, f); at = in.tellg())
      take(f, static_cast<std::uint64_t>(at), std::move(r));
  }
}

/// One record per sample (a sample can appear twice only if a run died between finishing and the
/// scheduler noticing; keep the first), in sample order.
template <class T> void first_per_sample(std::vector<T>& v) {
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  v.erase(std::unique(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.index == b.index; }), v.end());
}

} // namespace

std::vector<SampleRecord> Journal::read_all(const std::string& dir) {
  std::vector<SampleRecord> out;
  for_each_record(dir, [&](const std::string&, std::uint64_t, SampleRecord&& r) { out.push_back(std::move(r)); });
  first_per_sample(out);
  return out;
}

std::vector<Journal::Location> Journal::locate(const std::string& dir) {
  std::vector<Location> out;
  for_each_record(dir, [&](const std::string& f, std::uint64_t at, SampleRecord&& r) {
    out.push_back({r.index, r.status, f, at});
  });
  first_per_sample(out);
  return out;
}

SampleRecord Journal::read_at(const Location& where) {
  const std::uint64_t size = io::require_input(where.file, "campaign journal file");
  std::ifstream in(where.file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(where.offset));
  SampleRecord r;
  if (!in || !read_record(in, r, size, where.file) || r.index != where.index)
    throw Error("cannot read back the record of sample " + std::to_string(where.index) + " from " + where.file);
  return r;
}

} // namespace flexuq::campaign
