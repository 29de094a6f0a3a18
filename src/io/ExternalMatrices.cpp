// SPDX-License-Identifier: MIT
#include "flexuq/io/ExternalMatrices.hpp"

#include "TextScan.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/InputFile.hpp"
#include "flexuq/io/Limits.hpp"
#include "flexuq/io/Op4.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>

namespace flexuq::io {

using detail::parse_double;
using detail::parse_long;
using detail::trim;

namespace {

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

/// Every matrix and label file is opened here (io/InputFile.hpp: regular files only, so a FIFO or
/// /dev/zero is refused at once instead of hanging or filling memory).
std::ifstream open_text(const std::string& path, const char* what = "matrix file") { return open_input(path, what); }

/// A comment or blank line of the text formats.
bool skip_line(std::string_view s) {
  s = trim(s);
  return s.empty() || s[0] == '#' || s[0] == '!' || s.substr(0, 2) == "**" || (s[0] == '%' && s.substr(0, 2) != "%%");
}

/// Fields split at blanks, tabs and commas.
void split_fields(std::string_view s, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',' || s[i] == '\r')) ++i;
    const std::size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != ',' && s[i] != '\r') ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
}

/// Accumulates (node, component) → row and checks completeness; shared by both label sources.
class LabelBuilder {
 public:
  explicit LabelBuilder(std::string source) { L_.source = std::move(source); }
  /// Add a row for (node id, component 1…6). @p where for messages.
  void add(long id, long comp, const std::string& where) {
    FLEXUQ_REQUIRE(comp >= 1 && comp <= 6, where << ": component " << comp << " of node " << id << " is not in 1…6");
    auto it = index_.find(id);
    if (it == index_.end()) {
      FLEXUQ_REQUIRE(L_.node_ids.size() < static_cast<std::size_t>(limits::max_mesh_entities),
                     where << ": more nodes than flexuq can index");
      it = index_.emplace(id, static_cast<int>(L_.node_ids.size())).first;
      L_.node_ids.push_back(id);
      comps_.emplace_back();
      first_.push_back(where);
      coord_.emplace_back();
    }
    auto& mask = comps_[static_cast<std::size_t>(it->second)];
    FLEXUQ_REQUIRE(!(mask & (1u << comp)), where << ": duplicate label: node " << id << " component " << comp
                                                 << " is already a row of the matrices");
    mask |= 1u << comp;
    L_.dof_node.push_back(it->second);
    L_.dof_comp.push_back(static_cast<int>(comp - 1));
  }
  void set_coords(long id, const std::array<double, 3>& x, const std::string& where) {
    auto& c = coord_[static_cast<std::size_t>(index_.at(id))];
    FLEXUQ_REQUIRE(!c || *c == x, where << ": node " << id << " has other coordinates on an earlier line");
    c = x;
  }
  DofLabels finish() {
    FLEXUQ_REQUIRE(!L_.dof_node.empty(), L_.source << ": no DOF labels");
    unsigned widest = 0;
    for (unsigned m : comps_) widest = std::max(widest, m);
    const int dpn = widest >= (1u << 4) ? 6 : 3;
    const unsigned full = dpn == 6 ? 0x7Eu : 0x0Eu;
    bool any_coords = false, all_coords = true;
    for (std::size_t v = 0; v < comps_.size(); ++v) {
      if (comps_[v] != full) {
        std::string missing;
        for (int c = 1; c <= dpn; ++c)
          if (!(comps_[v] & (1u << c))) missing += (missing.empty() ? "" : ", ") + std::to_string(c);
        throw InputError(first_[v] + ": node " + std::to_string(L_.node_ids[v]) + " lacks component(s) " + missing +
                         " (every node needs all of 1…" + std::to_string(dpn) +
                         "; mixed DOF counts per node are not supported)");
      }
      if (coord_[v])
        any_coords = true;
      else
        all_coords = false;
    }
    FLEXUQ_REQUIRE(!any_coords || all_coords, L_.source << ": some nodes have coordinates and others not");
    L_.dofs_per_node = dpn;
    L_.has_coordinates = any_coords;
    L_.coords.assign(L_.node_ids.size(), {0.0, 0.0, 0.0});
    if (any_coords)
      for (std::size_t v = 0; v < coord_.size(); ++v) L_.coords[v] = *coord_[v];
    L_.node_row.assign(L_.node_ids.size() * static_cast<std::size_t>(dpn), -1);
    for (std::size_t r = 0; r < L_.dof_node.size(); ++r)
      L_.node_row[static_cast<std::size_t>(L_.dof_node[r]) * static_cast<std::size_t>(dpn) +
                  static_cast<std::size_t>(L_.dof_comp[r])] = static_cast<std::int64_t>(r);
    return std::move(L_);
  }

 private:
  DofLabels L_;
  std::map<long, int> index_;
  std::vector<unsigned> comps_;
  std::vector<std::string> first_;
  std::vector<std::optional<std::array<double, 3>>> coord_;
};

std::string at(const std::string& path, long line) { return path + ":" + std::to_string(line); }

/// PETSc binary: big-endian MAT_FILE_CLASSID first.
constexpr std::int32_t kMatFileClassId = 1211216;
std::int32_t be32(const unsigned char* p) {
  return static_cast<std::int32_t>((std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) |
                                   (std::uint32_t(p[2]) << 8) | std::uint32_t(p[3]));
}

} // namespace

MatrixFormat matrix_format(const std::string& path) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  if (ext == ".op4") return MatrixFormat::op4;
  auto in = open_text(path);
  unsigned char head[4] = {0, 0, 0, 0};
  in.read(reinterpret_cast<char*>(head), 4);
  if (in.gcount() == 4 && be32(head) == kMatFileClassId) return MatrixFormat::petsc;
  if (ext == ".bin" || ext == ".petsc") return MatrixFormat::petsc; // scan_petsc names the bad header
  in.clear();
  in.seekg(0);
  std::string first;
  std::getline(in, first);
  return first.rfind("%%MatrixMarket", 0) == 0 ? MatrixFormat::matrix_market : MatrixFormat::abaqus;
}

DofLabels read_dof_labels(const std::string& path) {
  auto in = open_text(path, "DOF label file");
  LabelBuilder b(path);
  std::string line;
  std::vector<std::string_view> f;
  long ln = 0;
  while (std::getline(in, line)) {
    ++ln;
    if (skip_line(line)) continue;
    split_fields(line, f);
    long id = 0, comp = 0;
    FLEXUQ_REQUIRE((f.size() == 2 || f.size() == 5) && parse_long(f[0], id) && parse_long(f[1], comp),
                   at(path, ln) << ": expected 'node_id component' or 'node_id component x y z', got '" << trim(line)
                                << "'");
    b.add(id, comp, at(path, ln));
    if (f.size() == 5) {
      std::array<double, 3> x{};
      for (int k = 0; k < 3; ++k)
        FLEXUQ_REQUIRE(parse_double(f[static_cast<std::size_t>(2 + k)], x[static_cast<std::size_t>(k)]) &&
                           std::isfinite(x[static_cast<std::size_t>(k)]),
                       at(path, ln) << ": coordinate '" << f[static_cast<std::size_t>(2 + k)] << "' is not a number");
      b.set_coords(id, x, at(path, ln));
    }
  }
  return b.finish();
}

namespace {

/// One Abaqus MATRIX INPUT line: row node, row DOF, column node, column DOF, value.
struct AbaqusEntry {
  long n1, d1, n2, d2;
  double v;
};
bool parse_abaqus(std::string_view line, std::vector<std::string_view>& f, AbaqusEntry& e) {
  split_fields(line, f);
  return f.size() == 5 && parse_long(f[0], e.n1) && parse_long(f[1], e.d1) && parse_long(f[2], e.n2) &&
         parse_long(f[3], e.d2) && parse_double(f[4], e.v);
}

/// Every entry line of an Abaqus .mtx file, parsed, with its line number.
template <class F> void for_each_abaqus_entry(const std::string& path, F&& fn) {
  auto in = open_text(path);
  std::string line;
  std::vector<std::string_view> f;
  AbaqusEntry e{};
  long ln = 0;
  while (std::getline(in, line)) {
    ++ln;
    if (skip_line(line)) continue;
    FLEXUQ_REQUIRE(parse_abaqus(line, f, e),
                   at(path, ln) << ": expected 'node, dof, node, dof, value', got '" << trim(line) << "'");
    fn(e, ln);
  }
}

} // namespace

DofLabels abaqus_dof_labels(const std::vector<std::string>& paths) {
  std::map<long, unsigned> comps;
  std::map<long, std::string> first;
  std::string sources;
  for (const auto& path : paths) {
    sources += (sources.empty() ? "" : ", ") + path;
    for_each_abaqus_entry(path, [&](const AbaqusEntry& e, long ln) {
      // Plain pairs, not structured bindings: FLEXUQ_REQUIRE's message lambda captures them (clang).
      for (const auto& nd : {std::pair{e.n1, e.d1}, std::pair{e.n2, e.d2}}) {
        const long n = nd.first, d = nd.second;
        FLEXUQ_REQUIRE(d >= 1 && d <= 6, at(path, ln) << ": DOF " << d << " of node " << n
                                                      << " is not in 1…6 (only displacement and rotation DOFs)");
        comps[n] |= 1u << d;
        first.emplace(n, at(path, ln));
      }
    });
  }
  LabelBuilder b(sources);
  for (const auto& [n, mask] : comps)
    for (long d = 1; d <= 6; ++d)
      if (mask & (1u << d)) b.add(n, d, first[n]);
  return b.finish();
}

namespace {

void check_square(const MatrixFile& file, long line, std::int64_t rows, std::int64_t cols, const DofLabels& labels) {
  FLEXUQ_REQUIRE(rows == cols, at(file.path, line) << ": the matrix is " << rows << " × " << cols << ", not square");
  FLEXUQ_REQUIRE(rows == static_cast<std::int64_t>(labels.rows()),
                 at(file.path, line) << ": the matrix has " << rows << " rows but the label file " << labels.source
                                     << " has " << labels.rows() << " rows");
}

MatrixHeader scan_matrix_market(const MatrixFile& file, const DofLabels& labels, const EntrySink& sink) {
  auto in = open_text(file.path);
  std::string line;
  long ln = 1;
  FLEXUQ_REQUIRE(std::getline(in, line) && line.rfind("%%MatrixMarket", 0) == 0,
                 at(file.path, 1) << ": not a MatrixMarket file (no %%MatrixMarket banner)");
  std::istringstream banner(lower(line));
  std::string tag, object, layout, field, symmetry;
  banner >> tag >> object >> layout >> field >> symmetry;
  FLEXUQ_REQUIRE(object == "matrix" && (layout == "coordinate" || layout == "array"),
                 at(file.path, 1) << ": expected 'matrix coordinate' or 'matrix array', got '" << object << " "
                                  << layout << "'");
  FLEXUQ_REQUIRE(field == "real" || field == "integer" || field == "double",
                 at(file.path, 1) << ": field '" << field << "' is not supported (real or integer; K and M are real)");
  FLEXUQ_REQUIRE(symmetry == "general" || symmetry == "symmetric",
                 at(file.path, 1) << ": symmetry '" << symmetry << "' is not supported (general or symmetric)");
  MatrixHeader h;
  h.symmetric = symmetry == "symmetric";
  const bool coordinate = layout == "coordinate";
  std::vector<std::string_view> f;
  long nnz = -1;
  while (std::getline(in, line)) {
    ++ln;
    if (skip_line(line)) continue;
    split_fields(line, f);
    long r = 0, c = 0;
    FLEXUQ_REQUIRE(f.size() == (coordinate ? 3u : 2u) && parse_long(f[0], r) && parse_long(f[1], c) &&
                       (!coordinate || parse_long(f[2], nnz)) && r >= 0 && c >= 0 && (!coordinate || nnz >= 0),
                   at(file.path, ln) << ": malformed size line '" << trim(line) << "' (expected rows columns"
                                     << (coordinate ? " entries" : "") << ")");
    h.rows = r;
    h.cols = c;
    break;
  }
  FLEXUQ_REQUIRE(h.rows > 0, at(file.path, ln) << ": no size line");
  check_square(file, ln, h.rows, h.cols, labels);
  const std::int64_t n = h.rows;
  long count = 0;
  std::int64_t ai = 0, aj = 0; // array layout: next position, column-major
  while (std::getline(in, line)) {
    ++ln;
    if (skip_line(line)) continue;
    split_fields(line, f);
    if (coordinate) {
      long r = 0, c = 0;
      double v = 0;
      FLEXUQ_REQUIRE(f.size() == 3 && parse_long(f[0], r) && parse_long(f[1], c) && parse_double(f[2], v),
                     at(file.path, ln) << ": malformed entry '" << trim(line) << "' (expected row column value)");
      FLEXUQ_REQUIRE(r >= 1 && r <= n && c >= 1 && c <= n,
                     at(file.path, ln) << ": index (" << r << ", " << c << ") is outside 1…" << n);
      FLEXUQ_REQUIRE(std::isfinite(v), at(file.path, ln) << ": value is not finite");
      FLEXUQ_REQUIRE(count < nnz, at(file.path, ln) << ": more entries than the " << nnz << " the size line announces");
      ++count;
      sink(r - 1, c - 1, v, ln);
    } else {
      double v = 0;
      FLEXUQ_REQUIRE(f.size() == 1 && parse_double(f[0], v) && std::isfinite(v),
                     at(file.path, ln) << ": malformed value '" << trim(line) << "'");
      FLEXUQ_REQUIRE(aj < n, at(file.path, ln) << ": more values than a " << n << " × " << n << " matrix holds");
      if (v != 0.0) sink(ai, aj, v, ln);
      if (++ai == n) {
        ++aj;
        ai = h.symmetric ? aj : 0;
      }
    }
  }
  if (coordinate)
    FLEXUQ_REQUIRE(count == nnz, at(file.path, ln) << ": the file ends after " << count << " of " << nnz << " entries");
  else
    FLEXUQ_REQUIRE(aj == n, at(file.path, ln)
                                << ": the file ends before the last column of the " << n << " × " << n << " array");
  return h;
}

MatrixHeader scan_abaqus(const MatrixFile& file, const DofLabels& labels, const EntrySink& sink) {
  std::map<long, int> index;
  for (std::size_t v = 0; v < labels.node_ids.size(); ++v) index.emplace(labels.node_ids[v], static_cast<int>(v));
  const auto dpn = static_cast<std::size_t>(labels.dofs_per_node);
  auto row = [&](long node, long dof, long ln) {
    const auto it = index.find(node);
    FLEXUQ_REQUIRE(it != index.end() && dof >= 1 && dof <= labels.dofs_per_node,
                   at(file.path, ln) << ": node " << node << " DOF " << dof << " is not a DOF of " << labels.source);
    return labels.node_row[static_cast<std::size_t>(it->second) * dpn + static_cast<std::size_t>(dof - 1)];
  };
  for_each_abaqus_entry(file.path, [&](const AbaqusEntry& e, long ln) {
    FLEXUQ_REQUIRE(std::isfinite(e.v), at(file.path, ln) << ": value is not finite");
    sink(row(e.n1, e.d1, ln), row(e.n2, e.d2, ln), e.v, ln);
  });
  MatrixHeader h;
  h.rows = h.cols = static_cast<std::int64_t>(labels.rows());
  h.symmetric = true; // Abaqus TYPE=SYMMETRIC: one triangle, or both (then the caller checks equality)
  return h;
}

/// PETSc binary (MatView, PETSC_VIEWER_BINARY): big-endian int32 MAT_FILE_CLASSID = 1211216, rows,
/// columns, nonzeros; int32 row lengths; int32 column indices; float64 values (32-bit indices, real
/// double, as the Debian PETSc builds write them).
double be64(const unsigned char* p) {
  std::uint64_t u = 0;
  for (int k = 0; k < 8; ++k) u = (u << 8) | p[k];
  double d = 0;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

MatrixHeader scan_petsc(const MatrixFile& file, const DofLabels& labels, const EntrySink& sink) {
  const std::uint64_t size = require_input(file.path, "matrix file");
  auto in = open_text(file.path);
  unsigned char hdr[16];
  FLEXUQ_REQUIRE(in.read(reinterpret_cast<char*>(hdr), 16) && be32(hdr) == kMatFileClassId,
                 file.path << ": not a PETSc binary matrix (no MAT_FILE_CLASSID 1211216 at byte 0)");
  const std::int64_t rows = be32(hdr + 4), cols = be32(hdr + 8), nz = be32(hdr + 12);
  FLEXUQ_REQUIRE(rows > 0 && cols > 0 && nz >= 0,
                 file.path << ": bad header (" << rows << " × " << cols << ", " << nz << " nonzeros)");
  check_square(file, 0, rows, cols, labels);
  const std::uint64_t need = 16 + 4 * std::uint64_t(rows) + 12 * std::uint64_t(nz);
  FLEXUQ_REQUIRE(size == need, file.path << ": " << size << " bytes, but a " << rows << " × " << cols << " matrix with "
                                         << nz << " nonzeros (32-bit indices, real double) takes " << need
                                         << " (a 64-bit-index or complex build wrote it?)");
  std::vector<std::int32_t> len(static_cast<std::size_t>(rows));
  {
    std::vector<unsigned char> buf(static_cast<std::size_t>(rows) * 4);
    in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    std::int64_t total = 0;
    for (std::size_t r = 0; r < len.size(); ++r) {
      len[r] = be32(&buf[4 * r]);
      FLEXUQ_REQUIRE(len[r] >= 0, file.path << ": row " << r + 1 << " has a negative length");
      total += len[r];
    }
    FLEXUQ_REQUIRE(total == nz, file.path << ": row lengths sum to " << total << ", the header says " << nz);
  }
  auto vals = open_text(file.path);
  vals.seekg(static_cast<std::streamoff>(16 + 4 * rows + 4 * nz));
  constexpr std::size_t chunk = 1 << 16;
  std::vector<unsigned char> cbuf(4 * chunk), vbuf(8 * chunk);
  std::int64_t r = 0, left_in_row = rows > 0 ? len[0] : 0, k = 0;
  while (k < nz) {
    const auto m = static_cast<std::size_t>(std::min<std::int64_t>(nz - k, chunk));
    FLEXUQ_REQUIRE(in.read(reinterpret_cast<char*>(cbuf.data()), static_cast<std::streamsize>(4 * m)) &&
                       vals.read(reinterpret_cast<char*>(vbuf.data()), static_cast<std::streamsize>(8 * m)),
                   file.path << ": truncated at entry " << k + 1);
    for (std::size_t i = 0; i < m; ++i, ++k) {
      while (left_in_row == 0) left_in_row = len[static_cast<std::size_t>(++r)];
      --left_in_row;
      const std::int64_t c = be32(&cbuf[4 * i]);
      const double v = be64(&vbuf[8 * i]);
      FLEXUQ_REQUIRE(c >= 0 && c < cols, file.path << ": entry " << k + 1 << " (row " << r + 1 << ") has column "
                                                   << c + 1 << " outside 1…" << cols);
      FLEXUQ_REQUIRE(std::isfinite(v), file.path << ": entry " << k + 1 << " is not finite");
      sink(r, c, v, static_cast<long>(k + 1));
    }
  }
  MatrixHeader h;
  h.rows = rows;
  h.cols = cols;
  h.symmetric = false; // PETSc binary stores every entry (MATSBAIJ is written as its full matrix)
  return h;
}

MatrixHeader scan_op4(const MatrixFile& file, const DofLabels& labels, const EntrySink& sink) {
  const auto mats = read_op4(file.path);
  FLEXUQ_REQUIRE(!mats.empty(), file.path << ": holds no matrix");
  const Op4Matrix* m = &mats.front();
  if (!file.op4_name.empty()) {
    m = nullptr;
    std::string names;
    for (const auto& x : mats) {
      names += (names.empty() ? "" : ", ") + x.name;
      if (upper(x.name) == upper(file.op4_name)) m = &x;
    }
    FLEXUQ_REQUIRE(m, file.path << ": no matrix named '" << file.op4_name << "' (it holds " << names << ")");
  }
  check_square(file, 0, m->rows, m->cols, labels);
  long k = 0;
  for (int c = 0; c < m->cols; ++c)
    for (int r = 0; r < m->rows; ++r) {
      const double v = (*m)(r, c);
      if (v != 0.0) sink(r, c, v, ++k);
    }
  MatrixHeader h;
  h.rows = m->rows;
  h.cols = m->cols;
  h.symmetric = false; // the reader returns the full dense matrix, also for FORM 6
  return h;
}

} // namespace

MatrixHeader scan_matrix(const MatrixFile& file, const DofLabels& labels, const EntrySink& sink) {
  switch (file.format) {
  case MatrixFormat::matrix_market: return scan_matrix_market(file, labels, sink);
  case MatrixFormat::abaqus: return scan_abaqus(file, labels, sink);
  case MatrixFormat::petsc: return scan_petsc(file, labels, sink);
  case MatrixFormat::op4: return scan_op4(file, labels, sink);
  }
  throw Error("unknown matrix format");
}

void write_matrix_market(const std::string& path, std::int64_t n, const std::vector<Triplet>& values, bool symmetric,
                         const std::string& comment) {
  std::ofstream out(path);
  FLEXUQ_REQUIRE(out, "cannot write " << path);
  out << "%%MatrixMarket matrix coordinate real " << (symmetric ? "symmetric" : "general") << "\n";
  if (!comment.empty()) out << "% " << comment << "\n";
  std::size_t count = 0;
  for (const auto& t : values) count += !symmetric || t.row >= t.col;
  out << n << " " << n << " " << count << "\n" << std::setprecision(17);
  for (const auto& t : values)
    if (!symmetric || t.row >= t.col) out << t.row + 1 << " " << t.col + 1 << " " << t.value << "\n";
  FLEXUQ_REQUIRE(out.flush(), "error writing " << path);
}

void write_dof_labels(const std::string& path, const DofLabels& labels) {
  std::ofstream out(path);
  FLEXUQ_REQUIRE(out, "cannot write " << path);
  out << "# node component" << (labels.has_coordinates ? " x y z" : "") << " (one line per matrix row)\n"
      << std::setprecision(17);
  for (std::size_t r = 0; r < labels.rows(); ++r) {
    const auto v = static_cast<std::size_t>(labels.dof_node[r]);
    out << labels.node_ids[v] << " " << labels.dof_comp[r] + 1;
    if (labels.has_coordinates)
      out << " " << labels.coords[v][0] << " " << labels.coords[v][1] << " " << labels.coords[v][2];
    out << "\n";
  }
  FLEXUQ_REQUIRE(out.flush(), "error writing " << path);
}

} // namespace flexuq::io
