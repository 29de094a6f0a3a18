// SPDX-License-Identifier: MIT
#include "TextScan.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/InputFile.hpp"
#include "flexuq/io/Limits.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>
#include <iterator>
#include <limits>
#include <sstream>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace flexuq::io::detail {

std::string canonical_path(const std::string& path) {
  std::error_code ec;
  std::string canon = std::filesystem::weakly_canonical(std::filesystem::path(path), ec).string();
  return ec ? path : canon;
}

namespace {
// A directory opens as a stream on Linux and reports a nonsense size; a FIFO or /dev/zero never
// ends: only regular files are read (io/InputFile.hpp). Null if @p path is a regular file or
// cannot be stat'ed (then the open fails: "cannot be opened").
std::optional<std::string> not_regular(const std::string& path) {
  InputCheck c = inspect_input(path);
  if (c.problem == InputProblem::directory || c.problem == InputProblem::special) return std::move(c.reason);
  return std::nullopt;
}
} // namespace

std::optional<std::string> load_text(const std::string& path, std::string* why) {
  auto text = map_text(path, why); // the same checks and messages; then one copy of the bytes
  if (!text) return std::nullopt;
  return std::string(text->view());
}

MappedText::MappedText(MappedText&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

MappedText& MappedText::operator=(MappedText&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

MappedText::~MappedText() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

std::optional<MappedText> map_text(const std::string& path, std::string* why) {
  auto reason = [&](const std::string& r) -> std::optional<MappedText> {
    if (why) *why = r;
    return std::nullopt;
  };
  if (auto r = not_regular(path)) return reason(*r);
  struct Fd { // closed on every return; the mapping outlives it
    int v;
    ~Fd() {
      if (v >= 0) ::close(v);
    }
  } fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.v < 0) return reason("cannot be opened");
  struct stat sb {};
  if (::fstat(fd.v, &sb) != 0 || sb.st_size < 0) return reason("cannot be read (no size)");
  MappedText t;
  if (sb.st_size > 0) {
    try { // the text, and what is built from it (a mesh is about as large again as its text)
      limits::require_memory(3.0 * static_cast<double>(sb.st_size), "reading it");
    } catch (const InputError& e) {
      return reason(std::string("is too large: ") + e.what());
    }
    void* p = ::mmap(nullptr, static_cast<std::size_t>(sb.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.v, 0);
    if (p == MAP_FAILED) return reason("cannot be read (mmap failed)");
    ::madvise(p, static_cast<std::size_t>(sb.st_size), MADV_SEQUENTIAL);
    t.data_ = static_cast<const char*>(p);
    t.size_ = static_cast<std::size_t>(sb.st_size);
  }
  return t;
}

IncludeStack::Opened IncludeStack::push(const std::string& path, const Loc* from, const char* directive) {
  const std::string canon = canonical_path(path);
  if (from && std::find(open_.begin(), open_.end(), canon) != open_.end())
    throw InputError(at(*from) + ": " + directive + " of '" + path +
                     "' is an include cycle (the file is already being read)");
  std::string why;
  auto text = map_text(path, &why);
  if (!text) {
    const bool unopened = why == "cannot be opened";
    if (from)
      throw InputError(at(*from) + ": " +
                       (unopened ? "cannot open included file '" + path + "'" : "included file '" + path + "' " + why));
    throw InputError(unopened ? "cannot open mesh file '" + path + "'" : "mesh file '" + path + "' " + why);
  }
  open_.push_back(canon);
  files_.push_back(path);
  return {std::move(*text), static_cast<int>(files_.size()) - 1};
}

std::string IncludeStack::resolve(const std::string& name, Loc from) const {
  const std::filesystem::path inc(name);
  return (inc.is_absolute() ? inc : std::filesystem::path(file(from.file)).parent_path() / inc).string();
}

SourceLocation IncludeStack::source(Loc l) const {
  return {file(l.file), static_cast<int>(std::min<long>(l.line, std::numeric_limits<int>::max()))};
}

bool LineCursor::next(std::string_view& line) {
  if (pos_ >= text_.size()) return false;
  std::size_t end = text_.find('\n', pos_);
  if (end == std::string_view::npos) end = text_.size();
  line = text_.substr(pos_, end - pos_);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos_ = end + 1;
  ++line_;
  return true;
}

namespace {
bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
} // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

void split_on(std::string_view s, char delim, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t p = s.find(delim, start);
    if (p == std::string_view::npos) {
      out.push_back(trim(s.substr(start)));
      return;
    }
    out.push_back(trim(s.substr(start, p - start)));
    start = p + 1;
  }
}

void split_blanks(std::string_view s, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && blank(s[i])) ++i;
    const std::size_t start = i;
    while (i < s.size() && !blank(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
}

bool parse_long(std::string_view s, long& v) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_double(std::string_view s, double& v) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec == std::errc() && r.ptr == s.data() + s.size()) return true;
  // Fortran-style exponent (1.0D+03): rare, so the copy only happens here.
  if (s.find_first_of("dD") == std::string_view::npos || s.size() > 64) return false;
  char buf[64];
  std::transform(s.begin(), s.end(), buf, [](char c) { return (c == 'd' || c == 'D') ? 'e' : c; });
  const auto r2 = std::from_chars(buf, buf + s.size(), v);
  return r2.ec == std::errc() && r2.ptr == buf + s.size();
}

long LabelIndex::build(const std::vector<long>& labels) {
  dense_.clear();
  sparse_.clear();
  if (labels.empty()) return -1;
  const auto [mn, mx] = std::minmax_element(labels.begin(), labels.end());
  lo_ = *mn;
  const auto n = static_cast<long>(labels.size());
  // Dense when the label range is at most a few times the count (the usual case). The span is
  // computed unsigned: labels near both ends of the long range would overflow a signed difference.
  const unsigned long span = static_cast<unsigned long>(*mx) - static_cast<unsigned long>(*mn);
  use_dense_ = span <= 4 * static_cast<unsigned long>(n) + 1024;
  if (use_dense_) {
    dense_.assign(static_cast<std::size_t>(span) + 1, -1);
    for (long i = 0; i < n; ++i) {
      int& slot = dense_[static_cast<std::size_t>(static_cast<unsigned long>(labels[i]) - static_cast<unsigned long>(lo_))];
      if (slot >= 0) return i;
      slot = static_cast<int>(i);
    }
  } else {
    sparse_.reserve(labels.size());
    for (long i = 0; i < n; ++i)
      if (!sparse_.emplace(labels[i], static_cast<int>(i)).second) return i;
  }
  return -1;
}

int LabelIndex::find(long label) const {
  if (use_dense_) {
    if (label < lo_) return -1;
    const auto off = static_cast<unsigned long>(label) - static_cast<unsigned long>(lo_);
    return off < dense_.size() ? dense_[static_cast<std::size_t>(off)] : -1;
  }
  const auto it = sparse_.find(label);
  return it == sparse_.end() ? -1 : it->second;
}

void normalise_sets(Mesh& mesh) {
  for (auto* sets : {&mesh.node_sets, &mesh.element_sets})
    for (auto& [name, v] : *sets) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
}

void warn_unused_nodes(Mesh& mesh) {
  std::vector<char> used(mesh.num_nodes(), 0);
  for (int v : mesh.elem_nodes)
    if (v >= 0 && v < static_cast<int>(used.size())) used[static_cast<std::size_t>(v)] = 1;
  const auto unused = std::count(used.begin(), used.end(), 0);
  if (unused == 0) return;
  std::ostringstream os;
  os << mesh.source << ": " << unused << " of " << mesh.num_nodes()
     << " nodes belong to no element (they carry no stiffness or mass)";
  mesh.warnings.push_back(os.str());
}

} // namespace flexuq::io::detail
