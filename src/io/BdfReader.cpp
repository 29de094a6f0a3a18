// SPDX-License-Identifier: MIT
#include "flexuq/io/BdfReader.hpp"

#include "TextScan.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/io/NastranReal.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <sys/mman.h>

namespace flexuq::io {

const char* const kHarmlessBdfCards[] = {
    // loads and load-set combinations (do not enter K or M)
    "FORCE", "FORCE1", "FORCE2", "MOMENT", "MOMENT1", "MOMENT2", "PLOAD", "PLOAD1", "PLOAD2", "PLOAD4", "GRAV",
    "LOAD", "DLOAD", "DAREA", "RLOAD1", "RLOAD2", "TLOAD1", "TLOAD2", "TEMP", "TEMPD", "SPCD", "FREQ", "FREQ1",
    "FREQ2", "TSTEP", "TABLED1", "TABLED2", "TABLED3", "TABLED4", "TABDMP1", "RANDPS",
    // plotting, output and bookkeeping
    "PLOTEL", "DTI", "ECHOON", "ECHOOFF", "MONPNT1", nullptr};

namespace {

using detail::parse_double;
using detail::parse_long;
using detail::split_on;
using detail::trim;

using detail::Loc;

/// One logical card: its name (upper case, without the large-field '*') and data fields 2..9 of
/// every logical line, 8 per line, blanks as empty, all upper case.
///
/// A field is a view of the deck's own (mapped) text, which outlives the card: nothing is copied
/// per field. Only a field with lower-case letters, or from a line whose tabs were expanded into a
/// buffer reused by the next line, is copied (upper-cased) into the card's own character buffer.
struct Card {
  std::string name;
  Loc where;
  std::size_t size() const { return n_; }
  std::string_view at(std::size_t i) const {
    if (i >= n_) return {};
    const Field& f = f_[i];
    return f.own ? std::string_view(own_.data() + f.offset, f.size) : std::string_view(f.text, f.size);
  }
  void clear() {
    n_ = 0;
    own_.clear();
  }
  /// Appends field @p v; @p transient: its text does not outlive the line.
  void push(std::string_view v, bool transient = false) {
    if (n_ == f_.size()) f_.emplace_back();
    Field& f = f_[n_++];
    f.size = v.size();
    f.own = transient;
    for (char ch : v) f.own = f.own || (ch >= 'a' && ch <= 'z');
    if (!f.own) {
      f.text = v.data();
      return;
    }
    f.offset = own_.size();
    for (char ch : v) own_ += ch >= 'a' && ch <= 'z' ? static_cast<char>(ch - 'a' + 'A') : ch;
  }
  void pad_to(std::size_t m) {
    while (n_ < m) push(std::string_view());
  }
  void drop_trailing_blanks() {
    while (n_ > 0 && f_[n_ - 1].size == 0) --n_;
  }
  /// Copies the fields that are views into the card's buffer: the text they view is about to go
  /// (the end of a file; its next line may continue the card).
  void detach() {
    for (std::size_t i = 0; i < n_; ++i) {
      Field& f = f_[i];
      if (f.own) continue;
      f.offset = own_.size();
      own_.append(f.text, f.size);
      f.own = true;
    }
  }

private:
  struct Field {
    const char* text = nullptr; ///< !own: the field in the deck's text
    std::size_t offset = 0;     ///< own: the field at own_[offset]
    std::size_t size = 0;
    bool own = false;
  };
  std::vector<Field> f_;
  std::size_t n_ = 0;
  std::string own_;
};

struct CoordDef {
  long id = 0;
  char type = 'R';   ///< R, C or S
  bool by_grids = false;
  long rid = 0;      ///< CORD2*: reference system
  std::array<double, 9> abc{}; ///< CORD2*: A, B, C in the RID system
  std::array<long, 3> grids{}; ///< CORD1*: G1, G2, G3
  Loc where;
  // resolved
  bool done = false;
  std::array<double, 3> origin{};
  std::array<std::array<double, 3>, 3> axes{}; ///< rows: local x, y, z in basic
};

/// CELAS1/CELAS2 as read (grids resolved in build_springs_and_masses).
struct SpringDef {
  long id = 0, pid = 0;      ///< pid: CELAS1/CMASS1 (0 for CELAS2/CMASS2)
  double k = 0;              ///< CELAS2 K, CMASS2 M
  bool mass = false;         ///< CMASS1/CMASS2: a scalar mass
  std::array<long, 2> grid{}; ///< grid[1] = 0: grounded
  std::array<int, 2> comp{1, 1};
  Loc where;
};

/// CONM2 as read.
struct MassDef {
  long id = 0, grid = 0, cid = 0;
  double m = 0;
  std::array<double, 3> x{};
  std::array<double, 6> inertia{}; ///< I11 I21 I22 I31 I32 I33
  Loc where;
};

using Vec3 = std::array<double, 3>;

Vec3 sub(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 add(const Vec3& a, const Vec3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }

/// True when pin flags @p pa, @p pb (bit k−1: component k, element axes) leave a rigid motion of a
/// beam free: a motion (t, ω) of the element that vanishes at every end component it keeps. In the
/// element axes (L = 1) end A moves (t, ω), end B (t1, t2 + ω3, t3 − ω2, ω); the kept components
/// must have rank 6 in (t, ω).
bool pins_leave_rigid_motion(int pa, int pb) {
  static const double kRows[12][6] = {{1, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0},  {0, 0, 0, 1, 0, 0},
                                      {0, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 1}, {1, 0, 0, 0, 0, 0},  {0, 1, 0, 0, 0, 1},
                                      {0, 0, 1, 0, -1, 0}, {0, 0, 0, 1, 0, 0}, {0, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 1}};
  std::vector<std::array<double, 6>> a;
  for (int i = 0; i < 12; ++i)
    if (!(((i < 6 ? pa : pb) >> (i % 6)) & 1)) a.push_back({kRows[i][0], kRows[i][1], kRows[i][2], kRows[i][3], kRows[i][4], kRows[i][5]});
  std::size_t rank = 0;
  for (std::size_t col = 0; col < 6 && rank < a.size(); ++col) { // Gaussian elimination (entries 0, ±1, ±2)
    std::size_t piv = rank;
    while (piv < a.size() && a[piv][col] == 0) ++piv;
    if (piv == a.size()) continue;
    std::swap(a[piv], a[rank]);
    for (std::size_t r = rank + 1; r < a.size(); ++r) {
      const double f = a[r][col] / a[rank][col];
      for (std::size_t k = col; k < 6; ++k) a[r][k] -= f * a[rank][k];
    }
    ++rank;
  }
  return rank < 6;
}
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double norm(const Vec3& a) { return std::sqrt(dot(a, a)); }

/// Cartesian local coordinates of a point given in system @p c's own coordinates (r, θ°, z) or
/// (r, θ°, φ°) (MSC QRG CORD2C/CORD2S).
Vec3 to_cartesian(char type, const Vec3& x) {
  const double d = M_PI / 180.0;
  if (type == 'C') return {x[0] * std::cos(x[1] * d), x[0] * std::sin(x[1] * d), x[2]};
  if (type == 'S')
    return {x[0] * std::sin(x[1] * d) * std::cos(x[2] * d), x[0] * std::sin(x[1] * d) * std::sin(x[2] * d),
            x[0] * std::cos(x[1] * d)};
  return x;
}

Vec3 to_basic(const CoordDef& c, const Vec3& x) {
  const Vec3 l = to_cartesian(c.type, x);
  Vec3 b = c.origin;
  for (int k = 0; k < 3; ++k)
    for (int d = 0; d < 3; ++d) b[d] += c.axes[k][d] * l[k];
  return b;
}

/// Displacement frame of system @p c at basic point @p p (rows: local directions in basic).
NodeFrame frame_at(const CoordDef& c, const Vec3& p) {
  NodeFrame f;
  f.system = c.id;
  f.axes = c.axes;
  if (c.type == 'R') return f;
  Vec3 l{};
  const Vec3 r = sub(p, c.origin);
  for (int k = 0; k < 3; ++k) l[k] = dot(c.axes[k], r);
  const double th = std::atan2(l[1], l[0]);
  std::array<Vec3, 3> loc{};
  if (c.type == 'C') {
    loc = {Vec3{std::cos(th), std::sin(th), 0}, Vec3{-std::sin(th), std::cos(th), 0}, Vec3{0, 0, 1}};
  } else {
    const double rr = norm(l), t = rr > 0 ? std::acos(std::clamp(l[2] / rr, -1.0, 1.0)) : 0.0, ph = th;
    loc = {Vec3{std::sin(t) * std::cos(ph), std::sin(t) * std::sin(ph), std::cos(t)},
           Vec3{std::cos(t) * std::cos(ph), std::cos(t) * std::sin(ph), -std::sin(t)},
           Vec3{-std::sin(ph), std::cos(ph), 0}};
  }
  for (int k = 0; k < 3; ++k)
    for (int d = 0; d < 3; ++d)
      f.axes[k][d] = loc[k][0] * c.axes[0][d] + loc[k][1] * c.axes[1][d] + loc[k][2] * c.axes[2][d];
  return f;
}

/// Storage for the card tables of a large deck: 2 MiB blocks, 2 MiB-aligned and marked for
/// transparent huge pages (madvise), so filling a block costs one page fault instead of 512 (page
/// faults were a fifth of the read time of a 1 M-DOF deck on a VM), never moved once written.
struct FreeBlock {
  void operator()(unsigned char* p) const { std::free(p); }
};
using Block = std::unique_ptr<unsigned char, FreeBlock>;
constexpr std::size_t kBlockBytes = std::size_t(1) << 21;

Block new_block() {
  auto* p = static_cast<unsigned char*>(std::aligned_alloc(kBlockBytes, kBlockBytes));
  if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  ::madvise(p, kBlockBytes, MADV_HUGEPAGE); // advice only: without THP it is ordinary memory
#endif
  return Block(p);
}

/// Append-only id storage: no reallocation copies while a large deck is read, and every appended
/// run stays contiguous (a run never straddles two blocks).
class ChunkedIds {
public:
  /// Appends @p n ids (n ≤ kBlock); returns the index of the first.
  std::size_t append(const long* v, std::size_t n) {
    if (blocks_.empty() || used_ + n > kBlock) {
      blocks_.push_back(new_block());
      used_ = 0;
    }
    std::copy(v, v + n, ids(blocks_.back()) + used_);
    const std::size_t first = (blocks_.size() - 1) * kBlock + used_;
    used_ += n;
    return first;
  }
  const long* at(std::size_t i) const { return ids(blocks_[i / kBlock]) + i % kBlock; }

private:
  static long* ids(const Block& b) { return reinterpret_cast<long*>(b.get()); }
  static constexpr std::size_t kBlock = kBlockBytes / sizeof(long);
  std::vector<Block> blocks_;
  std::size_t used_ = 0;
};

/// Append-only storage of T (trivially copyable card records) in the same blocks: stable
/// references, no reallocation copies (std::deque allocated a 512-byte block per 5 grids).
template <class T>
class Chunked {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>, "plain records only");

public:
  void push_back(const T& v) {
    if (n_ % kBlock == 0) blocks_.push_back(new_block());
    new (slot(n_)) T(v);
    ++n_;
  }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T& operator[](std::size_t i) { return *std::launder(slot(i)); }
  const T& operator[](std::size_t i) const { return *std::launder(slot(i)); }

  template <class C, class R>
  struct Iter {
    C* c;
    std::size_t i;
    R& operator*() const { return (*c)[i]; }
    Iter& operator++() {
      ++i;
      return *this;
    }
    bool operator!=(const Iter& o) const { return i != o.i; }
  };
  Iter<Chunked, T> begin() { return {this, 0}; }
  Iter<Chunked, T> end() { return {this, n_}; }
  Iter<const Chunked, const T> begin() const { return {this, 0}; }
  Iter<const Chunked, const T> end() const { return {this, n_}; }

private:
  static constexpr std::size_t kBlock = kBlockBytes / sizeof(T);
  T* slot(std::size_t i) const { return reinterpret_cast<T*>(blocks_[i / kBlock].get()) + i % kBlock; }
  std::vector<Block> blocks_;
  std::size_t n_ = 0;
};

/// A card's location in 8 bytes (Loc takes 16): the grid and element tables of a 1 M-DOF deck are
/// tens of MB, and every fresh page of them is zero-filled by the kernel (half the read time once).
struct PackedLoc {
  std::int32_t file = 0, line = 0;
  PackedLoc() = default;
  PackedLoc(Loc l) // NOLINT(google-explicit-constructor): stored from and used as a Loc
      : file(l.file), line(static_cast<std::int32_t>(std::min<long>(l.line, std::numeric_limits<std::int32_t>::max()))) {}
  operator Loc() const { return Loc{file, line}; } // NOLINT(google-explicit-constructor)
};

/// One GRID (56 bytes). cp, cd are checked to fit 32 bits when read.
struct GridDef {
  long id = 0;
  Vec3 basic{}; ///< X1-X3 as written in CP until resolve_coordinates, then in basic (done)
  std::int32_t cp = 0, cd = 0;
  PackedLoc where;
  std::int32_t ps = 0; ///< permanent single-point constraints (components as digits), 0 if none
  bool done = false;
};

/// CBAR/CBEAM orientation, offsets and pin flags (beside the element table: most decks are shells
/// and solids, whose records stay small).
struct BeamDef {
  std::optional<long> g0;
  Vec3 v{};
  bool v_basic = false;
  Vec3 wa{}, wb{};          ///< CBAR/CBEAM offsets WA, WB as written (in GA's/GB's displacement system)
  int pa = 0, pb = 0;       ///< pin flags PA, PB as bit masks (bit k−1: component k)
};

/// One element (56 bytes).
struct ElemDef {
  const char* card = ""; ///< CTETRA, CPENTA, CHEXA, CBAR, CBEAM, CROD, CONROD, CQUAD4 or CTRIA3 (a literal)
  long id = 0, pid = 0;
  std::size_t first = 0; ///< grids (Abaqus node order) at BdfParser::egrids_[first, first + count)
  double t = 0;          ///< shells: corner thickness T1 = … = Tn given on the element (0: the PSHELL's T)
  PackedLoc where;
  std::uint32_t beam_def = 0; ///< CBAR/CBEAM: index into BdfParser::beams_
  ElementType type = ElementType::tet4;
  std::uint8_t count = 0;
  bool beam = false;
  bool rod = false;        ///< CROD: no orientation, axial and torsion only
  bool shell = false;
  bool t_relative = false; ///< TFLAG = 1: t is a factor of the PSHELL's T
};

struct PropDef {
  std::string card; ///< PSOLID, PBAR, PBARL, PBEAM, PROD, PSHELL
  long pid = 0, mid = 0;
  double A = 0, I1 = 0, I2 = 0, J = 0;
  double nsm = 0;     ///< PBAR/PBARL/PBEAM/PROD/CONROD NSM (mass per length, before WTMASS)
  ShellSection shell; ///< PSHELL: T, 12I/T³, TS/T, NSM
  Loc where;
};

struct MatDef {
  long mid = 0;
  std::optional<double> E, G, nu, rho;
  Loc where;
};

struct SetRef {
  std::string set;
  long grid = 0;
  int comp = 0;
  Loc where;
};

class BdfParser {
public:
  BdfParser(const std::string& path, BdfDeck& deck) : path_(path), deck_(deck) { mesh_.source = path; }

  Mesh run() {
    read_file(path_, std::nullopt);
    flush();
    finish();
    return std::move(mesh_);
  }

private:
  enum class Part { executive, case_control, bulk };

  // ---- locations and errors ----------------------------------------------------------------------
  std::string at(Loc l) const { return files_.at(l); }
  SourceLocation src(Loc l) const { return files_.source(l); }
  [[noreturn]] void fail(Loc l, const std::string& msg) const { throw InputError(at(l) + ": " + msg); }
  [[noreturn]] void fail(const Card& c, const std::string& msg) const { fail(c.where, c.name + ": " + msg); }

  // ---- lines → cards -----------------------------------------------------------------------------
  void read_file(const std::string& path, std::optional<Loc> from) {
    auto [text, fid] = files_.push(path, from ? &*from : nullptr, "INCLUDE");
    if (!from) { // the main file: a deck with CEND or BEGIN BULK starts in the executive section
      section_ = Part::bulk;
      detail::LineCursor probe(text.view());
      std::string_view l;
      while (probe.next(l)) {
        const std::string u = upper(std::string(trim(l.substr(0, std::min<std::size_t>(l.size(), 16)))));
        if (u.rfind("CEND", 0) == 0 || u.rfind("BEGIN", 0) == 0) {
          section_ = Part::executive;
          break;
        }
      }
    }
    detail::LineCursor cur(text.view());
    std::string_view line;
    while (!ended_ && cur.next(line)) {
      const Loc where{fid, cur.line_number()};
      if (section_ == Part::bulk && fast_card(line, cur, where, text.view())) continue;
      // Tabs expand to 8-column stops (only lines that have them are copied); '$' starts a comment.
      std::string_view l = line;
      const bool tab = l.find('\t') != std::string_view::npos;
      if (tab) {
        expand_tabs(l, tabbed_);
        l = tabbed_;
      }
      if (const auto dollar = l.find('$'); dollar != std::string_view::npos) l = l.substr(0, dollar);
      const std::string_view t = trim(l);
      if (t.empty()) continue;
      if (starts_ci(t, "INCLUDE") && (t.size() == 7 || t[7] == ' ' || t[7] == '\'')) {
        flush();
        std::string name(t.substr(7));
        // the file name may continue on following lines until the closing quote
        while (std::count(name.begin(), name.end(), '\'') == 1) {
          std::string_view more;
          if (!cur.next(more)) fail(where, "INCLUDE: unterminated quoted file name");
          name += trim(more);
        }
        name = std::string(trim(name));
        if (name.size() >= 2 && name.front() == '\'' && name.back() == '\'') name = name.substr(1, name.size() - 2);
        if (name.empty()) fail(where, "INCLUDE without a file name");
        read_file(files_.resolve(name, where), where);
        continue;
      }
      if (section_ == Part::executive) {
        if (starts_ci(t, "CEND")) section_ = Part::case_control;
        else if (starts_ci(t, "BEGIN")) section_ = Part::bulk;
        continue;
      }
      if (section_ == Part::case_control) {
        const std::string u = upper(std::string(t));
        if (starts_ci(t, "BEGIN")) {
          if (u.find("SUPER") != std::string::npos || u.find("AUXMODEL") != std::string::npos)
            fail(where, "'" + std::string(t) + "': only the main bulk data section is supported");
          section_ = Part::bulk;
        } else {
          case_control(u, where);
        }
        continue;
      }
      if (starts_ci(t, "ENDDATA")) {
        ended_ = true;
        break;
      }
      if (starts_ci(t, "BEGIN")) fail(where, "'" + std::string(t) + "' inside the bulk data is not supported");
      bulk_line(l, where, tab, l.find(',') != std::string_view::npos);
    }
    card_.detach(); // the card may go on in the including file, after this one's text is unmapped
    files_.pop();
  }

  // ---- the cards a big deck is made of, straight from the text --------------------------------------
  // GRID (small fixed or free field, one line), GRID* (two lines), CQUAD4, CTRIA3 and CTETRA (4 grids)
  // in small fixed or free fields on one line, as a mesh generator writes them: parsed in place,
  // without the generic card. Only a card the generic path would read without an error, from fields
  // it would see the same (no tab, '$' or lower case but 'e' on its lines, no comma on a fixed-field
  // one), and known to end (the next line starts a card: a letter) is taken; anything else returns
  // false and goes the generic way, so every card reads and every message stays as before.

  /// Printable ASCII without '$' or lower case other than 'e', and without ',' unless @p free: the
  /// generic path splits such a line into the same fields (fixed_field / trim: only spaces to trim). It upper-cases a
  /// field with an 'e' ("3.906250000e-03", as printf writes it), which reads as the same real
  /// ("E" and "e" are one exponent to std::from_chars and to parse_nastran_real_fast) and is no
  /// integer either way.
  static bool plain(std::string_view l, bool free = false) {
    for (const char ch : l)
      if (ch < ' ' || ch > '~' || (ch == ',' && !free) || ch == '$' || (ch >= 'a' && ch <= 'z' && ch != 'e'))
        return false;
    return true;
  }
  /// Data field @p i (0-based) of @p w columns of a fixed-field line, trimmed: bulk_line and the fast cards.
  static std::string_view fixed_field(std::string_view l, std::size_t w, std::size_t i) {
    const std::size_t b = 8 + i * w;
    return b < l.size() ? trim(l.substr(b, std::min(w, l.size() - b))) : std::string_view();
  }
  /// Data fields 1-8 of a small free-field line ("NAME,f1,...,f8[,continuation]"), trimmed as
  /// split_on trims them; false if it has more parts than bulk_line accepts (it names the error).
  static bool free_fields(std::string_view l, std::string_view (&f)[8]) {
    for (auto& x : f) x = {};
    std::size_t part = 0, start = 0; // part 0 is the name
    for (std::size_t i = 0; i <= l.size(); ++i) {
      if (i < l.size() && l[i] != ',') continue;
      if (part > 9) return false;
      if (part >= 1 && part <= 8) f[part - 1] = trim(l.substr(start, i - start));
      ++part;
      start = i + 1;
    }
    return part <= 10;
  }
  /// [+]digits (at most 18): what parse_long reads as a value ≥ 0; false for anything else.
  static bool fast_id(std::string_view f, long& v) {
    if (!f.empty() && f.front() == '+') f.remove_prefix(1);
    if (f.empty() || f.size() > 18) return false;
    long r = 0;
    for (const char ch : f) {
      if (ch < '0' || ch > '9') return false;
      r = r * 10 + (ch - '0');
    }
    v = r;
    return true;
  }
  /// A blank (0) or a coordinate system id as system_id() accepts it.
  static bool fast_system(std::string_view f, std::int32_t& v) {
    long r = 0;
    if (!f.empty() && (!fast_id(f, r) || r > std::numeric_limits<std::int32_t>::max())) return false;
    v = static_cast<std::int32_t>(r);
    return true;
  }
  /// A blank (0.0) or a finite real, as real(c, i, what, 0.0) reads it.
  static bool fast_real(std::string_view f, double& v) {
    if (f.empty()) {
      v = 0.0;
      return true;
    }
    return parse_nastran_real_fast(f, v) && std::isfinite(v);
  }
  /// Whether the line after @p cur's position starts a new card (a letter in column 1): the card
  /// before it is complete. A blank, comment or '+'/'*' line, or the end of the file, may be followed
  /// by a continuation (or the including file's): not known, so false.
  /// (@p text: the file's text; only the next line's first character is looked at.)
  static bool next_starts_card(std::string_view text, const detail::LineCursor& cur) {
    if (cur.remaining() == 0) return false;
    const char ch = text[text.size() - cur.remaining()];
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
  }

  enum class Form { small, large, free };

  bool fast_card(std::string_view line, detail::LineCursor& cur, Loc where, std::string_view text) {
    const auto starts = [&](std::string_view w) { return line.substr(0, w.size()) == w; };
    switch (line.empty() ? ' ' : line[0]) {
    case 'G':
      if (starts("GRID*   ")) return fast_grid(line, cur, where, text, Form::large);
      if (starts("GRID    ")) return fast_grid(line, cur, where, text, Form::small);
      if (starts("GRID,")) return fast_grid(line, cur, where, text, Form::free);
      return false;
    case 'C':
      if (starts("CQUAD4  ") || starts("CQUAD4,")) return fast_element(line, cur, where, text, 4, true);
      if (starts("CTRIA3  ") || starts("CTRIA3,")) return fast_element(line, cur, where, text, 3, true);
      if (starts("CTETRA  ") || starts("CTETRA,")) return fast_element(line, cur, where, text, 4, false);
      return false;
    default:
      return false;
    }
  }

  bool fast_grid(std::string_view line, detail::LineCursor& cur, Loc where, std::string_view text, Form form) {
    std::string_view f[8];
    detail::LineCursor after = cur;
    if (form == Form::large) {
      std::string_view second;
      if (!after.next(second) || second.empty() || second[0] != '*' || !plain(second)) return false;
      for (std::size_t i = 0; i < 4; ++i) {
        f[i] = fixed_field(line, 16, i);
        f[4 + i] = fixed_field(second, 16, i);
      }
    } else if (form == Form::small) {
      for (std::size_t i = 0; i < 8; ++i) f[i] = fixed_field(line, 8, i);
    } else if (!free_fields(line, f)) {
      return false;
    }
    // f: ID CP X1 X2 X3 CD PS SEID (SEID is not read, as in grid())
    GridDef g;
    if (!plain(line, form == Form::free) || !f[6].empty() || !fast_id(f[0], g.id) || g.id <= 0 ||
        !fast_system(f[1], g.cp) || !fast_system(f[5], g.cd) || !next_starts_card(text, after))
      return false;
    for (std::size_t d = 0; d < 3; ++d)
      if (!fast_real(f[2 + d], g.basic[d])) return false;
    g.where = where;
    flush();
    grids_.push_back(g);
    cur = after;
    return true;
  }

  /// CQUAD4/CTRIA3 (@p shell, n = 4 or 3: EID PID G1..Gn THETA ZOFFS, ZOFFS blank) or CTETRA with its 4
  /// corners (EID PID G1..G4, G5 and G6 blank), small fixed or free field.
  bool fast_element(std::string_view line, detail::LineCursor& cur, Loc where, std::string_view text, int n, bool shell) {
    std::string_view f[8];
    const bool free = line[6] == ',';
    if (free) {
      if (!free_fields(line, f)) return false;
    } else {
      for (std::size_t i = 0; i < 8; ++i) f[i] = fixed_field(line, 8, i);
    }
    ElemDef e;
    long g[4] = {0, 0, 0, 0};
    if (!plain(line, free) || !fast_id(f[0], e.id) || e.id <= 0 || !next_starts_card(text, cur)) return false;
    if (f[1].empty() && shell) e.pid = e.id; // PID defaults to EID on a shell
    else if (!fast_id(f[1], e.pid)) return false;
    for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k)
      if (!fast_id(f[2 + k], g[k])) return false;
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        if (g[a] == g[b]) return false;
    if (shell ? !f[n == 4 ? 7 : 6].empty() : !(f[6].empty() && f[7].empty())) return false;
    if (shell) {
      e.card = n == 4 ? "CQUAD4" : "CTRIA3";
      e.shell = true;
      e.type = n == 4 ? ElementType::shell4 : ElementType::shell3;
    } else {
      e.card = "CTETRA";
      e.type = ElementType::tet4;
    }
    e.where = where;
    e.count = static_cast<std::uint8_t>(n);
    flush();
    e.first = egrids_.append(g, static_cast<std::size_t>(n));
    elems_.push_back(e);
    return true;
  }

  static void expand_tabs(std::string_view s, std::string& out) {
    out.clear();
    for (char c : s) {
      if (c == '\t') {
        do out += ' ';
        while (out.size() % 8 != 0);
      } else {
        out += c;
      }
    }
  }

  /// Case-insensitive "does @p s start with @p word" (@p word upper case).
  static bool starts_ci(std::string_view s, const char* word) {
    for (std::size_t i = 0; word[i]; ++i) {
      if (i == s.size()) return false;
      const char ch = s[i] >= 'a' && s[i] <= 'z' ? static_cast<char>(s[i] - 'a' + 'A') : s[i];
      if (ch != word[i]) return false;
    }
    return true;
  }

  void case_control(const std::string& u, Loc where) {
    const auto eq = u.find('=');
    if (eq == std::string::npos) return;
    std::string key = std::string(trim(std::string_view(u).substr(0, eq)));
    if (const auto paren = key.find('('); paren != std::string::npos) key = std::string(trim(key.substr(0, paren)));
    if (key != "SPC" && key != "METHOD") return;
    long v = 0;
    if (!parse_long(trim(std::string_view(u).substr(eq + 1)), v))
      fail(where, "case control " + key + " = needs a set identification number");
    std::optional<long>& slot = key == "SPC" ? deck_.spc : deck_.method;
    if (slot && *slot != v)
      fail(where, "case control " + key + " = " + std::to_string(v) + " differs from the earlier " + key + " = " +
                      std::to_string(*slot) + " (several subcases with different " + key + " are not supported)");
    slot = v;
  }

  /// Split one physical bulk line into its marker (field 1) and data fields, append them to the
  /// current card or start a new one.
  /// @p transient: @p l is in a buffer the next line reuses; @p free: it has a comma.
  void bulk_line(std::string_view l, Loc where, bool transient, bool free) {
    std::string_view head;
    if (free) {
      split_on(l, ',', parts_);
      head = parts_[0];
    } else {
      head = trim(l.substr(0, std::min<std::size_t>(8, l.size())));
    }
    const bool large = !head.empty() && (head.back() == '*' || head[0] == '*');
    const bool continuation = head.empty() || head[0] == '+' || head[0] == '*';
    const std::size_t n = large ? 4 : 8;
    if (continuation) {
      if (!have_card_) fail(where, "continuation line without a card before it");
      // A small-field line starts a new logical line; a large-field line fills half of one.
      if (card_.size() % n) card_.pad_to((card_.size() / n + 1) * n);
    } else {
      flush();
      card_.name = upper(std::string(large ? head.substr(0, head.size() - 1) : head));
      card_.clear();
      card_.where = where;
      have_card_ = true;
    }
    const std::size_t first = card_.size();
    if (free) {
      if (parts_.size() > n + 2)
        fail(where, "free-field line has " + std::to_string(parts_.size()) + " fields, at most " + std::to_string(n + 2) +
                        " (name, " + std::to_string(n) + " data fields, continuation)");
      for (std::size_t i = 1; i < parts_.size() && i <= n; ++i) card_.push(parts_[i], transient);
      card_.pad_to(first + n);
    } else {
      const std::size_t w = large ? 16 : 8;
      for (std::size_t i = 0; i < n; ++i) {
        card_.push(fixed_field(l, w, i), transient);
      }
    }
  }

  void flush() {
    if (!have_card_) return;
    have_card_ = false;
    card_.drop_trailing_blanks();
    dispatch(card_);
  }

  // ---- fields --------------------------------------------------------------------------------------
  long integer(const Card& c, std::size_t i, const char* what, std::optional<long> def = std::nullopt) const {
    const auto s = c.at(i);
    if (s.empty()) {
      if (def) return *def;
      fail(c, std::string("field ") + std::to_string(i + 2) + " (" + what + ") is required" +
                  (i >= c.size() ? " (truncated card or continuation?)" : ""));
    }
    long v = 0;
    if (!parse_long(s, v)) fail(c, std::string("field ") + std::to_string(i + 2) + " (" + what + ") '" + std::string(s) +
                                       "' is not an integer");
    return v;
  }
  double real(const Card& c, std::size_t i, const char* what, std::optional<double> def = std::nullopt) const {
    const auto s = c.at(i);
    if (s.empty()) {
      if (def) return *def;
      fail(c, std::string("field ") + std::to_string(i + 2) + " (" + what + ") is required" +
                  (i >= c.size() ? " (truncated card or continuation?)" : ""));
    }
    double v = 0;
    if (!parse_nastran_real_fast(s, v))
      fail(c, std::string("field ") + std::to_string(i + 2) + " (" + what + ") '" + std::string(s) + "' is not a number");
    // NaN or Inf reach the solver as "indefinite matrix" or MUMPS failures: refused here, on the card.
    if (!std::isfinite(v))
      fail(c, std::string("field ") + std::to_string(i + 2) + " (" + what + ") '" + std::string(s) + "' is not finite");
    return v;
  }
  /// A material constant, mass, inertia or WTMASS: 0 or a magnitude in [1e-30, 1e30]. Beyond that
  /// (E = 1e300, WTMASS = 1e-300) the matrices over- or underflow and the eigensolver fails with
  /// PETSc's words ("initial vector is zero", "indefinite matrix"), far from the card.
  double physical(const Card& c, std::size_t i, const char* what, double v) const {
    const double a = std::abs(v);
    if (a != 0 && (a < 1e-30 || a > 1e30))
      fail(c, std::string("field ") + std::to_string(i + 2) + " (" + what + ") " + std::string(c.at(i)) +
                  " is outside the magnitudes flexuq's solvers handle (0 or 1e-30 to 1e30): check the deck's units");
    return v;
  }
  std::optional<double> physical(const Card& c, std::size_t i, const char* what, std::optional<double> v) const {
    if (v) physical(c, i, what, *v);
    return v;
  }
  std::optional<double> opt_real(const Card& c, std::size_t i, const char* what) const {
    if (c.at(i).empty()) return std::nullopt;
    return real(c, i, what);
  }
  /// Ids from field @p from on, with "a THRU b" ranges; stops at a blank when @p stop_blank.
  std::vector<long> id_list(const Card& c, std::size_t from, const char* what) const {
    std::vector<long> ids;
    for (std::size_t i = from; i < c.size(); ++i) {
      const auto s = c.at(i);
      if (s.empty()) continue;
      if (s == "THRU") {
        if (ids.empty() || i + 1 >= c.size()) fail(c, "THRU needs an id on each side");
        const long a = ids.back(), b = integer(c, i + 1, what);
        if (b < a) fail(c, "THRU range " + std::to_string(a) + " THRU " + std::to_string(b) + " is reversed");
        if (b - a > 100000000) fail(c, "THRU range too long");
        for (long k = a + 1; k <= b; ++k) ids.push_back(k);
        ++i;
        continue;
      }
      ids.push_back(integer(c, i, what));
    }
    return ids;
  }
  int components(const Card& c, std::size_t i, bool allow_zero = false) const {
    const long v = integer(c, i, "components", allow_zero ? std::optional<long>(0) : std::nullopt);
    const std::string s = std::to_string(v);
    if (v == 0 && allow_zero) return 0;
    for (char ch : s)
      if (ch < '1' || ch > '6' || std::count(s.begin(), s.end(), ch) > 1)
        fail(c, "components '" + s + "' must be distinct digits 1-6");
    return static_cast<int>(v);
  }

  // ---- cards ---------------------------------------------------------------------------------------
  void dispatch(const Card& c) {
    const std::string& n = c.name;
    // The cards a large deck is made of first (a deck of 10^5 CQUAD4 went through 30 comparisons each).
    if (n == "GRID") return grid(c);
    if (n == "CQUAD4") return shell(c, 4);
    if (n == "CTRIA3") return shell(c, 3);
    if (n == "CTETRA") return solid(c, "CTETRA", 4, 10, ElementType::tet4, ElementType::tet10);
    if (n == "CHEXA") return solid(c, "CHEXA", 8, 20, ElementType::hex8, ElementType::hex20);
    if (n == "CPENTA") return solid(c, "CPENTA", 6, 15, ElementType::penta6, ElementType::penta15);
    if (n == "CORD2R" || n == "CORD2C" || n == "CORD2S") return cord2(c);
    if (n == "CORD1R" || n == "CORD1C" || n == "CORD1S") return cord1(c);
    if (n == "CBAR" || n == "CBEAM") return bar(c);
    if (n == "CROD") return rod(c);
    if (n == "PSOLID") return psolid(c);
    if (n == "PBAR") return pbar(c);
    if (n == "PBARL") return pbarl(c);
    if (n == "PBEAM") return pbeam(c);
    if (n == "PROD") return prod(c);
    if (n == "MAT1") return mat1(c);
    if (n == "RBE2" || n == "RBE3") return rbe(c);
    if (n == "SPC" || n == "SPC1") return spc(c);
    if (n == "ASET" || n == "BSET" || n == "QSET") return dof_set(c, false);
    if (n == "ASET1" || n == "BSET1" || n == "QSET1") return dof_set(c, true);
    if (n == "SPOINT") {
      auto ids = id_list(c, 0, "scalar point");
      deck_.spoints.insert(deck_.spoints.end(), ids.begin(), ids.end());
      return;
    }
    if (n == "EIGRL") return eigrl(c);
    if (n == "PARAM") return param(c);
    if (n == "PSHELL") return pshell(c);
    if (n == "PCOMP" || n == "PCOMPG")
      fail(c, "composite (layered) shell properties are not supported; give the shells an isotropic PSHELL");
    if (n == "CQUAD8" || n == "CTRIA6" || n == "CQUADR" || n == "CTRIAR" || n == "CSHEAR")
      fail(c, "is not supported (shells: CQUAD4 and CTRIA3 with PSHELL)");
    if (n == "CELAS1" || n == "CELAS2" || n == "CMASS1" || n == "CMASS2") return celas(c);
    if (n == "PELAS" || n == "PMASS") return pelas(c);
    if (n == "CONM2") return conm2(c);
    if (n == "CONROD") return conrod(c);
    if (n == "CONM1" || n == "CELAS3" || n == "CELAS4" || n == "CMASS3" || n == "CMASS4")
      fail(c, "is not supported (scalar points are no DOFs in flexuq; springs: CELAS1/CELAS2, scalar masses: "
              "CMASS1/CMASS2 between grid components; concentrated masses: CONM2; rods: CROD with PROD, or CONROD)");
    for (const char* const* h = kHarmlessBdfCards; *h; ++h)
      if (n == *h) {
        if (ignored_seen_.insert(n).second) ignored_.push_back(n + " (" + at(c.where) + ")");
        return;
      }
    fail(c.where, "unknown or unsupported bulk data card '" + n +
                      "' (supported: see io/BdfReader.hpp; cards that cannot change the model are listed in "
                      "kHarmlessBdfCards)");
  }

  void grid(const Card& c) {
    GridDef g;
    g.id = integer(c, 0, "ID");
    g.cp = system_id(c, 1, "CP");
    for (int d = 0; d < 3; ++d) g.basic[static_cast<std::size_t>(d)] = real(c, 2 + static_cast<std::size_t>(d), "X", 0.0);
    g.cd = system_id(c, 5, "CD");
    if (!c.at(6).empty()) g.ps = components(c, 6);
    g.where = c.where;
    if (g.id <= 0) fail(c, "grid id must be positive");
    grids_.push_back(g);
  }

  /// A coordinate system id on a GRID (blank: 0, the basic system).
  std::int32_t system_id(const Card& c, std::size_t i, const char* what) const {
    const long v = integer(c, i, what, 0);
    if (v < 0 || v > std::numeric_limits<std::int32_t>::max())
      fail(c, std::string("field ") + std::to_string(i + 2) + " (" + what + ") " + std::to_string(v) +
                  " is not a coordinate system id (0 to 2147483647)");
    return static_cast<std::int32_t>(v);
  }

  void cord2(const Card& c) {
    CoordDef d;
    d.id = integer(c, 0, "CID");
    d.type = c.name.back();
    d.rid = integer(c, 1, "RID", 0);
    for (std::size_t k = 0; k < 9; ++k) d.abc[k] = real(c, 2 + k, "A/B/C coordinate");
    d.where = c.where;
    add_cord(c, d);
  }

  void cord1(const Card& c) {
    for (std::size_t base : {std::size_t(0), std::size_t(4)}) {
      if (base == 4 && c.at(4).empty()) break;
      CoordDef d;
      d.id = integer(c, base, "CID");
      d.type = c.name.back();
      d.by_grids = true;
      for (std::size_t k = 0; k < 3; ++k) d.grids[k] = integer(c, base + 1 + k, "G1/G2/G3");
      d.where = c.where;
      add_cord(c, d);
    }
  }

  void add_cord(const Card& c, CoordDef& d) {
    if (d.id <= 0) fail(c, "coordinate system id must be positive");
    const auto [it, fresh] = cords_.emplace(d.id, d);
    if (!fresh) fail(c, "duplicate coordinate system " + std::to_string(d.id) + " (first at " + at(it->second.where) + ")");
  }

  void solid(const Card& c, const char* card, int corners, int full, ElementType lo, ElementType hi) {
    ElemDef e;
    e.card = card;
    e.id = integer(c, 0, "EID");
    e.pid = integer(c, 1, "PID");
    e.where = c.where;
    std::vector<long>& g = gbuf_;
    g.clear();
    int mid_given = 0;
    for (int k = 0; k < full; ++k) {
      const auto s = c.at(2 + static_cast<std::size_t>(k));
      if (k < corners) {
        g.push_back(integer(c, 2 + static_cast<std::size_t>(k), "corner grid"));
      } else {
        g.push_back(s.empty() ? 0 : integer(c, 2 + static_cast<std::size_t>(k), "mid-side grid"));
        mid_given += s.empty() ? 0 : 1;
      }
    }
    if (c.size() > 2 + static_cast<std::size_t>(full)) fail(c, "too many grids (at most " + std::to_string(full) + ")");
    if (mid_given != 0 && mid_given != full - corners)
      fail(c, "element " + std::to_string(e.id) + " gives " + std::to_string(mid_given) + " of its " +
                  std::to_string(full - corners) + " mid-side grids (all or none are supported)");
    e.type = mid_given ? hi : lo;
    g.resize(static_cast<std::size_t>(mid_given ? full : corners));
    // A grid listed twice makes a collapsed (degenerate) solid: its Jacobian can stay positive at the
    // Gauss points, so the element would be integrated silently with a wrong shape (issue #40).
    for (std::size_t a = 0; a < g.size(); ++a)
      for (std::size_t b = a + 1; b < g.size(); ++b)
        if (g[a] == g[b])
          fail(c, "element " + std::to_string(e.id) + " lists grid " + std::to_string(g[a]) +
                      " twice (a collapsed " + std::string(c.name) +
                      "): degenerate solids are not supported; model it as CPENTA or CTETRA");
    // Nastran → Abaqus node order. CTETRA10: same. CHEXA20: Nastran G9-G12 bottom edges, G13-G16
    // vertical edges, G17-G20 top edges; Abaqus 9-12 bottom, 13-16 top, 17-20 vertical.
    // CPENTA15: Nastran G7-G9 bottom edges, G10-G12 vertical, G13-G15 top; Abaqus 7-9, 10-12 top, 13-15 vertical.
    if (e.type == ElementType::hex20) std::rotate(g.begin() + 12, g.begin() + 16, g.end());
    if (e.type == ElementType::penta15) std::rotate(g.begin() + 9, g.begin() + 12, g.end());
    e.count = static_cast<std::uint8_t>(g.size());
    e.first = egrids_.append(g.data(), g.size());
    add_element(c, std::move(e));
  }

  void bar(const Card& c) {
    ElemDef e;
    BeamDef bd;
    e.card = c.name == "CBAR" ? "CBAR" : "CBEAM";
    e.beam = true;
    e.type = ElementType::beam2;
    e.id = integer(c, 0, "EID");
    e.pid = integer(c, 1, "PID", e.id); // PID defaults to EID
    const long ends[2] = {integer(c, 2, "GA"), integer(c, 3, "GB")};
    e.count = 2;
    e.first = egrids_.append(ends, 2);
    e.where = c.where;
    if (c.at(4).empty()) fail(c, "element " + std::to_string(e.id) + ": no orientation (X1/G0); BAROR/BEAMOR defaults are not supported");
    long g0 = 0;
    if (parse_long(c.at(4), g0) && c.at(5).empty() && c.at(6).empty()) {
      bd.g0 = g0;
    } else {
      for (std::size_t k = 0; k < 3; ++k) bd.v[k] = real(c, 4 + k, "orientation vector X", 0.0);
    }
    const std::string offt(c.at(7).empty() ? std::string_view("GGG") : c.at(7));
    if (c.name == "CBEAM" && !std::isalpha(static_cast<unsigned char>(offt[0])))
      fail(c, "element " + std::to_string(e.id) + ": BIT (warping) is not supported");
    if (offt.size() != 3 || (offt[0] != 'G' && offt[0] != 'B') || (offt[1] != 'G' && offt[1] != 'O') ||
        (offt[2] != 'G' && offt[2] != 'O'))
      fail(c, "element " + std::to_string(e.id) + ": OFFT=" + offt + " is not one of GGG, BGG, GGO, BGO, GOG, BOG, GOO, BOO");
    bd.v_basic = offt[0] == 'B';
    // Pin flags PA, PB: up to five distinct components 1–6 in the element system.
    int* const pins[2] = {&bd.pa, &bd.pb};
    for (std::size_t k = 0; k < 2; ++k) {
      const auto f = c.at(8 + k);
      long v = 0;
      if (f.empty() || (parse_long(f, v) && v == 0)) continue;
      for (char ch : f) {
        const int bit = ch >= '1' && ch <= '6' ? 1 << (ch - '1') : 0;
        if (bit == 0 || (*pins[k] & bit))
          fail(c, "element " + std::to_string(e.id) + ": " + (k ? "PB" : "PA") + "=" + std::string(f) +
                      " is not a pin flag (distinct components 1-6)");
        *pins[k] |= bit;
      }
    }
    if (pins_leave_rigid_motion(bd.pa, bd.pb))
      fail(c, "element " + std::to_string(e.id) + ": pin flags PA=" + std::string(c.at(8)) + ", PB=" + std::string(c.at(9)) +
                  " leave the bar free to move as a rigid body (e.g. the same component released at both ends)");
    // Offsets WA, WB in the grids' displacement systems (OFFT G); in the element system (O) refused.
    for (std::size_t k = 0; k < 3; ++k) {
      bd.wa[k] = real(c, 10 + k, "W1A..W3A", 0.0);
      bd.wb[k] = real(c, 13 + k, "W1B..W3B", 0.0);
    }
    for (int end = 0; end < 2; ++end)
      if (offt[static_cast<std::size_t>(1 + end)] == 'O' && norm(end ? bd.wb : bd.wa) != 0)
        fail(c, "element " + std::to_string(e.id) + ": offsets in the element system (OFFT=" + offt +
                    ") are not supported (give them in the grids' displacement systems, OFFT=GGG)");
    if (c.name == "CBEAM" && (!c.at(16).empty() || !c.at(17).empty()))
      fail(c, "element " + std::to_string(e.id) + ": warping scalar points SA/SB are not supported");
    e.beam_def = static_cast<std::uint32_t>(beams_.size());
    beams_.push_back(bd);
    add_element(c, std::move(e));
  }

  /// CROD EID PID G1 G2 (MSC QRG): axial and torsional stiffness only; a beam2 element of a ROD
  /// section (io::BeamSection), in the material set of its PROD like a CBAR.
  void rod(const Card& c) {
    const long eid = integer(c, 0, "EID");
    add_rod(c, eid, integer(c, 1, "PID", eid), 2); // PID defaults to EID
  }

  /// CONROD EID G1 G2 MID A J C NSM (MSC QRG): a CROD with its PROD inline. CONRODs of equal MID, A
  /// and J share one property of their own (pid −k, element set CONROD_k), so they share a section;
  /// C (the stress recovery coefficient) is not used, NSM ≠ 0 is refused as on PROD.
  void conrod(const Card& c) {
    PropDef p;
    p.card = "CONROD";
    p.mid = integer(c, 3, "MID");
    p.A = real(c, 4, "A", 0.0);
    p.J = real(c, 5, "J", 0.0);
    p.where = c.where;
    p.nsm = nsm(c, 7);
    if (!(p.A > 0)) fail(c, "A must be positive");
    if (p.J < 0) fail(c, "J must not be negative");
    const auto [it, fresh] =
        conrod_pids_.emplace(std::make_tuple(p.mid, p.A, p.J, p.nsm), -static_cast<long>(conrod_pids_.size() + 1));
    p.pid = it->second;
    if (fresh) props_.emplace(p.pid, p);
    add_rod(c, integer(c, 0, "EID"), p.pid, 1);
  }

  /// A rod element @p eid of property @p pid between the grids in fields @p g1 and g1 + 1.
  void add_rod(const Card& c, long eid, long pid, std::size_t g1) {
    ElemDef e;
    e.card = c.name == "CROD" ? "CROD" : "CONROD";
    e.beam = true;
    e.rod = true;
    e.type = ElementType::beam2;
    e.id = eid;
    e.pid = pid;
    const long ends[2] = {integer(c, g1, "G1"), integer(c, g1 + 1, "G2")};
    if (ends[0] == ends[1]) fail(c, "element " + std::to_string(e.id) + ": G1 and G2 are the same grid");
    e.count = 2;
    e.first = egrids_.append(ends, 2);
    e.where = c.where;
    add_element(c, std::move(e));
  }

  /// CQUAD4 EID PID G1 G2 G3 G4 THETA/MCID ZOFFS / – – TFLAG T1 T2 T3 T4, CTRIA3 EID PID G1 G2 G3
  /// THETA/MCID ZOFFS / – – TFLAG T1 T2 T3 (MSC QRG). THETA/MCID (the material axes) do not matter
  /// for an isotropic PSHELL; ZOFFS ≠ 0 and corner thicknesses that differ are refused.
  void shell(const Card& c, int n) {
    ElemDef e;
    e.card = n == 4 ? "CQUAD4" : "CTRIA3";
    e.shell = true;
    e.type = n == 4 ? ElementType::shell4 : ElementType::shell3;
    e.id = integer(c, 0, "EID");
    e.pid = integer(c, 1, "PID", e.id); // PID defaults to EID
    e.where = c.where;
    long g[4] = {0, 0, 0, 0};
    for (int k = 0; k < n; ++k) g[k] = integer(c, 2 + static_cast<std::size_t>(k), "corner grid");
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        if (g[a] == g[b])
          fail(c, "element " + std::to_string(e.id) + " lists grid " + std::to_string(g[a]) + " twice (a degenerate " +
                      c.name + "); model it as " + (n == 4 ? "a CTRIA3" : "a beam or remove it"));
    const std::size_t zoffs = n == 4 ? 7 : 6;
    double z = 0;
    if (!c.at(zoffs).empty() && (!parse_nastran_real_fast(c.at(zoffs), z) || z != 0.0))
      fail(c, "element " + std::to_string(e.id) + ": offset ZOFFS is not supported (the grids must lie on the mid-surface)");
    const long tflag = integer(c, 9, "TFLAG", 0);
    if (tflag != 0 && tflag != 1) fail(c, "element " + std::to_string(e.id) + ": TFLAG must be 0, 1 or blank");
    int given = 0;
    for (int k = 0; k < n; ++k) {
      if (c.at(10 + static_cast<std::size_t>(k)).empty()) continue;
      const double t = real(c, 10 + static_cast<std::size_t>(k), "corner thickness Ti");
      if (!(t > 0)) fail(c, "element " + std::to_string(e.id) + ": corner thickness T" + std::to_string(k + 1) + " must be positive");
      if (given++ && t != e.t)
        fail(c, "element " + std::to_string(e.id) + ": corner thicknesses that differ (a tapered shell) are not supported");
      e.t = t;
    }
    if (given != 0 && given != n)
      fail(c, "element " + std::to_string(e.id) + " gives " + std::to_string(given) + " of its " + std::to_string(n) +
                  " corner thicknesses (all or none are supported)");
    e.t_relative = tflag == 1 && given;
    e.count = static_cast<std::uint8_t>(n);
    e.first = egrids_.append(g, static_cast<std::size_t>(n));
    add_element(c, std::move(e));
  }

  void add_element(const Card& c, ElemDef&& e) {
    if (e.id <= 0) fail(c, "element id must be positive");
    elems_.push_back(e);
  }

  void add_prop(const Card& c, PropDef&& p) {
    if (p.pid <= 0) fail(c, "property id must be positive");
    if (const auto pe = pelas_.find(p.pid); pe != pelas_.end())
      fail(c, "duplicate property id " + std::to_string(p.pid) + " (first PELAS at " + at(pe->second.second) + ")");
    if (const auto pm = pmass_.find(p.pid); pm != pmass_.end())
      fail(c, "duplicate property id " + std::to_string(p.pid) + " (first PMASS at " + at(pm->second.second) + ")");
    const auto [it, fresh] = props_.emplace(p.pid, p);
    if (!fresh) fail(c, "duplicate property id " + std::to_string(p.pid) + " (first " + it->second.card + " at " +
                            at(it->second.where) + ")");
  }

  /// PID and MID (fields 2, 3) of a property card.
  PropDef prop_head(const Card& c) const {
    PropDef p;
    p.card = c.name;
    p.pid = integer(c, 0, "PID");
    p.mid = integer(c, 1, "MID");
    p.where = c.where;
    return p;
  }

  void psolid(const Card& c) {
    PropDef p = prop_head(c);
    add_prop(c, std::move(p));
  }

  /// PSHELL PID MID1 T MID2 12I/T³ MID3 TS/T NSM / Z1 Z2 MID4 (MSC QRG): a homogeneous isotropic
  /// shell, MID2 = MID1 (bending) and MID3 = MID1 or blank (transverse shear); Z1, Z2 (stress
  /// fibres) are ignored. NSM is a mass per area (scaled by WTMASS like the densities).
  void pshell(const Card& c) {
    PropDef p;
    p.card = c.name;
    p.pid = integer(c, 0, "PID");
    p.where = c.where;
    if (c.at(1).empty()) fail(c, "property " + std::to_string(p.pid) + ": MID1 is blank (bending-only plates are not supported)");
    p.mid = integer(c, 1, "MID1");
    ShellSection& s = p.shell;
    s.thickness = real(c, 2, "T", 0.0); // blank: every element gives its corner thicknesses
    if (s.thickness < 0 || (s.thickness == 0 && !c.at(2).empty()))
      fail(c, "property " + std::to_string(p.pid) + ": T must be positive, got '" + std::string(c.at(2)) + "'");
    const long mid2 = integer(c, 3, "MID2", 0);
    if (mid2 == 0)
      fail(c, "property " + std::to_string(p.pid) + ": MID2 is blank (a membrane without bending stiffness is not supported; give MID2 = MID1)");
    if (mid2 != p.mid)
      fail(c, "property " + std::to_string(p.pid) + ": MID2 = " + std::to_string(mid2) + " differs from MID1 = " +
                  std::to_string(p.mid) + " (a bending material of its own is not supported)");
    s.bending_ratio = real(c, 4, "12I/T**3", 1.0);
    const long mid3 = integer(c, 5, "MID3", 0);
    if (mid3 != 0 && mid3 != p.mid)
      fail(c, "property " + std::to_string(p.pid) + ": MID3 = " + std::to_string(mid3) + " differs from MID1 = " +
                  std::to_string(p.mid) + " (a transverse shear material of its own is not supported)");
    if (mid3 == 0 && !mid3_warned_) {
      mid3_warned_ = true;
      mesh_.warnings.push_back(at(c.where) + ": PSHELL " + std::to_string(p.pid) +
                               " (and any other with MID3 blank): Nastran makes such shells rigid in transverse shear; "
                               "flexuq's shells keep the shear flexibility of MID1 with TS/T (default 5/6), which "
                               "lowers the frequencies of thick shells (about 0.1 % at a/h = 100, several per cent at a/h = 10)");
    }
    s.shear_ratio = real(c, 6, "TS/T", 5.0 / 6.0);
    s.nsm = physical(c, 7, "NSM", real(c, 7, "NSM", 0.0)); // × WTMASS when the sections are built
    if (!c.at(10).empty() && integer(c, 10, "MID4") != 0)
      fail(c, "property " + std::to_string(p.pid) + ": MID4 (membrane-bending coupling) is not supported");
    if (!(s.bending_ratio > 0)) fail(c, "property " + std::to_string(p.pid) + ": 12I/T**3 must be positive");
    if (!(s.shear_ratio > 0)) fail(c, "property " + std::to_string(p.pid) + ": TS/T must be positive");
    if (s.nsm < 0) fail(c, "property " + std::to_string(p.pid) + ": NSM must not be negative");
    add_prop(c, std::move(p));
  }

  /// NSM in field @p i: a nonstructural mass per length, not negative (× WTMASS when the sections are built).
  double nsm(const Card& c, std::size_t i) const {
    const double v = physical(c, i, "NSM", real(c, i, "NSM", 0.0));
    if (v < 0) fail(c, "NSM must not be negative");
    return v;
  }

  void pbar(const Card& c) {
    PropDef p = prop_head(c);
    p.A = real(c, 2, "A", 0.0);
    p.I1 = real(c, 3, "I1", 0.0);
    p.I2 = real(c, 4, "I2", 0.0);
    p.J = real(c, 5, "J", 0.0);
    p.nsm = nsm(c, 6);
    if (real(c, 18, "I12", 0.0) != 0.0) fail(c, "I12 != 0 (non-principal axes) is not supported");
    add_prop(c, std::move(p));
  }

  /// PROD PID MID A J C NSM (MSC QRG). C (stress recovery) is ignored; NSM is a constant mass term
  /// (io::BeamSection::nsm, like on PBAR).
  void prod(const Card& c) {
    PropDef p = prop_head(c);
    p.A = real(c, 2, "A", 0.0);
    p.J = real(c, 3, "J", 0.0);
    p.nsm = nsm(c, 5);
    if (!(p.A > 0)) fail(c, "A must be positive");
    if (p.J < 0) fail(c, "J must not be negative");
    add_prop(c, std::move(p));
  }

  void pbeam(const Card& c) {
    PropDef p = prop_head(c);
    p.A = real(c, 2, "A(A)", 0.0);
    p.I1 = real(c, 3, "I1(A)", 0.0);
    p.I2 = real(c, 4, "I2(A)", 0.0);
    if (real(c, 5, "I12(A)", 0.0) != 0.0) fail(c, "I12 != 0 (non-principal axes) is not supported");
    p.J = real(c, 6, "J(A)", 0.0);
    p.nsm = nsm(c, 7);
    // Stations: lines 3.. start with SO = YES/YESA/NO. A constant section repeats end A's values.
    for (std::size_t i = 16; i + 7 < c.size() + 8; i += 8) {
      const auto so = c.at(i);
      if (so != "YES" && so != "YESA" && so != "NO") break;
      if (so == "YESA") continue;
      const double v[6] = {real(c, i + 2, "A", p.A),    real(c, i + 3, "I1", p.I1), real(c, i + 4, "I2", p.I2),
                           real(c, i + 5, "I12", 0.0), real(c, i + 6, "J", p.J),   real(c, i + 7, "NSM", p.nsm)};
      const double ref[6] = {p.A, p.I1, p.I2, 0.0, p.J, p.nsm};
      for (int k = 0; k < 6; ++k)
        if (std::abs(v[k] - ref[k]) > 1e-12 * std::max(std::abs(ref[k]), 1e-300))
          fail(c, "a tapered PBEAM (section at a station differs from end A) is not supported");
    }
    add_prop(c, std::move(p));
  }

  void pbarl(const Card& c) {
    PropDef p = prop_head(c);
    const std::string type(c.at(3));
    std::vector<double> d;
    for (std::size_t i = 8; i < c.size(); ++i) d.push_back(real(c, i, "DIMi", 0.0));
    auto need = [&](std::size_t n) {
      if (d.size() < n) fail(c, "TYPE=" + type + " needs " + std::to_string(n) + " dimensions, found " + std::to_string(d.size()));
      for (std::size_t k = 0; k < n; ++k)
        if (!(d[k] > 0)) fail(c, "TYPE=" + type + ": DIM" + std::to_string(k + 1) + " must be positive");
      if (d.size() > n) p.nsm = nsm(c, 8 + n);
    };
    // Section properties in the element's (y, z) axes: I1 = ∫ y² dA... no: Nastran I1 is the
    // moment of inertia for bending in plane 1 (x-y), i.e. about z: I1 = ∫ y² dA; I2 = ∫ z² dA.
    // Dimensions as in the MSC QRG PBARL figures: DIM1 along y, DIM2 along z unless noted.
    if (type == "ROD") {
      need(1);
      const double r = d[0];
      p.A = M_PI * r * r;
      p.I1 = p.I2 = M_PI * std::pow(r, 4) / 4;
      p.J = 2 * p.I1;
    } else if (type == "TUBE") {
      need(2);
      const double ro = d[0], ri = d[1];
      if (ri >= ro) fail(c, "TYPE=TUBE: inner radius DIM2 must be below the outer radius DIM1");
      p.A = M_PI * (ro * ro - ri * ri);
      p.I1 = p.I2 = M_PI * (std::pow(ro, 4) - std::pow(ri, 4)) / 4;
      p.J = 2 * p.I1;
    } else if (type == "BAR") {
      need(2);
      const double b = d[0], h = d[1]; // b along y, h along z
      p.A = b * h;
      p.I1 = h * b * b * b / 12;
      p.I2 = b * h * h * h / 12;
      const double a = std::max(b, h), q = std::min(b, h);
      p.J = a * q * q * q * (1.0 / 3.0 - 0.21 * (q / a) * (1.0 - std::pow(q / a, 4) / 12.0));
    } else if (type == "BOX") {
      need(4);
      const double b = d[0], h = d[1], t1 = d[2], t2 = d[3]; // width (y), height (z), walls ⟂ z, walls ⟂ y
      if (2 * t2 >= b || 2 * t1 >= h) fail(c, "TYPE=BOX: walls thicker than the box");
      const double bi = b - 2 * t2, hi = h - 2 * t1;
      p.A = b * h - bi * hi;
      p.I1 = (h * b * b * b - hi * bi * bi * bi) / 12;
      p.I2 = (b * h * h * h - bi * hi * hi * hi) / 12;
      // Bredt–Batho thin-walled closed section: J = 4 A_m² / ∮ ds/t on the mid-line.
      const double bm = b - t2, hm = h - t1;
      p.J = 4 * bm * bm * hm * hm / (2 * bm / t1 + 2 * hm / t2);
    } else if (type == "I") {
      need(6);
      // DIM1 depth (along y), DIM2/DIM3 bottom/top flange widths (along z), DIM4 web, DIM5/DIM6
      // bottom/top flange thicknesses.
      const double h = d[0], wb = d[1], wt = d[2], tw = d[3], tb = d[4], tt = d[5];
      if (tb + tt >= h) fail(c, "TYPE=I: flanges thicker than the depth");
      const double hw = h - tb - tt;
      const double Ab = wb * tb, At = wt * tt, Aw = hw * tw;
      p.A = Ab + At + Aw;
      const double yb = tb / 2, yw = tb + hw / 2, yt = h - tt / 2;
      const double yc = (Ab * yb + Aw * yw + At * yt) / p.A;
      p.I1 = wb * tb * tb * tb / 12 + Ab * (yb - yc) * (yb - yc) + tw * hw * hw * hw / 12 + Aw * (yw - yc) * (yw - yc) +
             wt * tt * tt * tt / 12 + At * (yt - yc) * (yt - yc);
      p.I2 = tb * wb * wb * wb / 12 + hw * tw * tw * tw / 12 + tt * wt * wt * wt / 12;
      // Open thin-walled section: J = Σ b t³ / 3.
      p.J = (wb * tb * tb * tb + wt * tt * tt * tt + hw * tw * tw * tw) / 3;
    } else {
      fail(c, "TYPE=" + type + " is not supported (ROD, TUBE, BAR, BOX, I)");
    }
    add_prop(c, std::move(p));
  }

  void mat1(const Card& c) {
    MatDef m;
    m.mid = integer(c, 0, "MID");
    m.E = physical(c, 1, "E", opt_real(c, 1, "E"));
    m.G = physical(c, 2, "G", opt_real(c, 2, "G"));
    m.nu = opt_real(c, 3, "NU");
    m.rho = physical(c, 4, "RHO", opt_real(c, 4, "RHO"));
    m.where = c.where;
    const int given = (m.E ? 1 : 0) + (m.G ? 1 : 0) + (m.nu ? 1 : 0);
    if (given < 2) fail(c, "material " + std::to_string(m.mid) + " needs two of E, G and NU (the one-value forms of MSC are not supported)");
    const auto [it, fresh] = mats_.emplace(m.mid, m);
    if (!fresh) fail(c, "duplicate material id " + std::to_string(m.mid) + " (first at " + at(it->second.where) + ")");
  }

  /// RBE3 UM GM1 CM1 GM2 CM2 … (from field @p i to ALPHA or the end): the DOFs made dependent instead
  /// of REFGRID's. The constraint equations (REFGRID's motion = the weighted fit of the weighted
  /// grids') do not change with the choice, and flexuq's RBE3 (an rbe3 interface at REFGRID, or a
  /// node set) uses only them; what changes is which grids count as dependent for Nastran's rules.
  /// Accepted: as many DOFs as REFC has, each a REFGRID component in REFC or a weighted component
  /// of one of this element's weighted grids, none twice. Returns the UM grids other than REFGRID.
  std::vector<long> rbe3_um(const Card& c, std::size_t i, const BdfDeck::Rigid& r, const std::map<long, int>& weighted) const {
    const std::string head = "element " + std::to_string(r.eid) + ": UM ";
    int refc = 0;
    for (char ch : r.components) refc |= 1 << (ch - '1');
    std::map<long, int> um;
    int count = 0;
    for (; i < c.size(); i += 2) {
      if (c.at(i).empty()) {
        --i; // blank fields between pairs (continuation padding)
        continue;
      }
      if (c.at(i) == "ALPHA") break;
      const long g = integer(c, i, "GMi");
      const int comp = components(c, i + 1);
      const int allowed = g == r.ref_grid ? refc : weighted.count(g) ? weighted.at(g) : -1;
      if (allowed < 0)
        fail(c, head + "grid " + std::to_string(g) + " is neither REFGRID nor a weighted grid of the element (flexuq "
                       "supports UM sets that move the dependency to the weighted grids' components)");
      for (char ch : std::to_string(comp)) {
        const int bit = 1 << (ch - '1');
        if (!(allowed & bit))
          fail(c, head + "component " + std::string(1, ch) + " of grid " + std::to_string(g) + " is not " +
                      (g == r.ref_grid ? "in REFC" : "one of its weighted components"));
        if (um[g] & bit) fail(c, head + "lists component " + std::string(1, ch) + " of grid " + std::to_string(g) + " twice");
        um[g] |= bit;
        ++count;
      }
    }
    if (count != static_cast<int>(r.components.size()))
      fail(c, head + "has " + std::to_string(count) + " DOFs; it must list as many as REFC (" + r.components + ")");
    std::vector<long> out;
    for (const auto& [g, bits] : um)
      if (g != r.ref_grid) out.push_back(g);
    return out;
  }

  void rbe(const Card& c) {
    BdfDeck::Rigid r;
    r.eid = integer(c, 0, "EID");
    r.rbe2 = c.name == "RBE2";
    r.where = src(c.where);
    std::vector<long> nodes;
    std::vector<double> w;
    std::vector<long> um; // RBE3 UM grids other than REFGRID
    if (r.rbe2) {
      r.ref_grid = integer(c, 1, "GN");
      r.components = std::to_string(components(c, 2));
      // GMi to the end; a trailing real is ALPHA (thermal expansion), then TREF.
      for (std::size_t i = 3; i < c.size(); ++i) {
        const auto s = c.at(i);
        long v = 0;
        if (s.empty()) continue;
        if (s == "THRU") {
          if (nodes.empty()) fail(c, "THRU without a start");
          const long b = integer(c, i + 1, "GM");
          for (long k = nodes.back() + 1; k <= b; ++k) nodes.push_back(k);
          ++i;
        } else if (parse_long(s, v)) {
          nodes.push_back(v);
        } else {
          break; // ALPHA
        }
      }
    } else {
      r.ref_grid = integer(c, 2, "REFGRID");
      r.components = std::to_string(components(c, 3));
      std::size_t i = 4;
      double wt = 0;
      int wcomp = 0;
      bool have_w = false;
      std::map<long, int> weighted; // grid → its weighted components (bits)
      for (; i < c.size(); ++i) {
        const auto s = c.at(i);
        if (s.empty()) continue;
        if (s == "UM") {
          um = rbe3_um(c, i + 1, r, weighted);
          break;
        }
        if (s == "ALPHA") break;
        long v = 0;
        if (!parse_long(s, v)) { // a weight, then its components
          wt = real(c, i, "WTi");
          if (!(wt > 0)) fail(c, "element " + std::to_string(r.eid) + ": weight must be positive");
          const int comp = components(c, ++i);
          if (comp != 123 && comp != 123456)
            fail(c, "element " + std::to_string(r.eid) + ": weighted components " + std::to_string(comp) +
                        " are not supported (123 or 123456)");
          wcomp = comp == 123 ? 7 : 63;
          have_w = true;
          continue;
        }
        if (!have_w) fail(c, "element " + std::to_string(r.eid) + ": grid " + std::to_string(v) + " before any weight");
        weighted[v] |= wcomp;
        nodes.push_back(v);
        w.push_back(wt);
      }
    }
    if (nodes.empty()) fail(c, "element " + std::to_string(r.eid) + " has no dependent/weighted grids");
    if (!rigid_ids_.insert(r.eid).second) fail(c, "duplicate rigid element id " + std::to_string(r.eid));
    rigid_nodes_.push_back(std::move(nodes));
    rigid_weights_.push_back(std::move(w));
    rigid_um_.push_back(std::move(um));
    rigid_loc_.push_back(c.where);
    deck_.rigids.push_back(std::move(r));
  }

  void spc(const Card& c) {
    const long sid = integer(c, 0, "SID");
    const std::string set = "SPC" + std::to_string(sid);
    if (c.name == "SPC1") {
      const int comp = components(c, 1);
      for (long g : id_list(c, 2, "grid")) set_refs_.push_back({set, g, comp, c.where});
      return;
    }
    for (std::size_t i = 1; i + 1 < c.size() + 1; i += 3) {
      if (c.at(i).empty()) continue;
      const long g = integer(c, i, "G");
      const int comp = components(c, i + 1);
      if (real(c, i + 2, "D", 0.0) != 0.0) fail(c, "enforced displacement D != 0 is not supported");
      set_refs_.push_back({set, g, comp, c.where});
    }
  }

  void dof_set(const Card& c, bool one) {
    const std::string set = c.name.substr(0, 4);
    auto& list = set == "ASET" ? deck_.aset : set == "BSET" ? deck_.bset : deck_.qset;
    auto add = [&](long id, int comp) {
      list.push_back({id, comp});
      set_refs_.push_back({set, id, comp, c.where});
    };
    if (one) {
      const int comp = components(c, 0, true);
      for (long g : id_list(c, 1, "ID")) add(g, comp);
    } else {
      for (std::size_t i = 0; i < c.size(); i += 2) {
        if (c.at(i).empty()) continue;
        add(integer(c, i, "ID"), components(c, i + 1, true));
      }
    }
  }

  void eigrl(const Card& c) {
    BdfDeck::Eigrl e;
    e.sid = integer(c, 0, "SID");
    e.v1 = opt_real(c, 1, "V1");
    e.v2 = opt_real(c, 2, "V2");
    if (!c.at(3).empty()) e.nd = integer(c, 3, "ND");
    e.where = src(c.where);
    if (e.nd && *e.nd <= 0) fail(c, "ND must be positive");
    if (!e.nd && !e.v2) fail(c, "needs ND or V2 (all roots up to V2)");
    if (e.v1 && e.v2 && *e.v2 <= *e.v1) fail(c, "V2 must exceed V1");
    const std::string norm(c.at(7));
    if (!norm.empty() && norm != "MASS")
      mesh_.warnings.push_back(at(c.where) + ": EIGRL NORM=" + norm + " ignored: flexuq normalises modes to unit modal mass");
    const auto [it, fresh] = deck_.eigrls.emplace(e.sid, e);
    if (!fresh) fail(c, "duplicate EIGRL " + std::to_string(e.sid) + " (first at " + it->second.where.str() + ")");
  }

  void param(const Card& c) {
    const std::string name(c.at(0));
    if (name == "WTMASS") {
      deck_.wtmass = physical(c, 1, "WTMASS", real(c, 1, "WTMASS"));
      if (!(deck_.wtmass > 0)) fail(c, "WTMASS must be positive");
    } else if (name == "COUPMASS") {
      deck_.coupmass = integer(c, 1, "COUPMASS");
    } else if (name == "AUTOSPC") {
      if (c.at(1) != "YES" && c.at(1) != "NO")
        fail(c, "PARAM,AUTOSPC takes YES or NO, got '" + std::string(c.at(1)) + "'");
      deck_.autospc = c.at(1) == "YES";
    } else if (name == "GRDPNT") {
      deck_.grdpnt = integer(c, 1, "GRDPNT");
    } else if (params_seen_.insert(name).second) {
      ignored_params_.push_back(name + " (" + at(c.where) + ")");
    }
  }

  /// CELAS1 EID PID G1 C1 G2 C2 / CELAS2 EID K G1 C1 G2 C2 GE S (MSC QRG). A blank or zero G2
  /// grounds the spring. Scalar points (C = 0) are not supported; GE (damping) is ignored.
  /// CMASS1 EID PID G1 C1 G2 C2 / CMASS2 EID M G1 C1 G2 C2: the same layout, a scalar mass.
  void celas(const Card& c) {
    SpringDef d;
    d.id = integer(c, 0, "EID");
    if (d.id <= 0) fail(c, "element id must be positive");
    d.mass = c.name == "CMASS1" || c.name == "CMASS2";
    if (c.name == "CELAS1" || c.name == "CMASS1") {
      d.pid = integer(c, 1, "PID", d.id); // PID defaults to EID
    } else if (d.mass) {
      d.k = physical(c, 1, "M", real(c, 1, "M"));
      if (d.k < 0) fail(c, "element " + std::to_string(d.id) + ": mass must not be negative");
    } else {
      d.k = real(c, 1, "K");
      if (real(c, 6, "GE", 0.0) != 0.0 && ge_warned_.insert(c.name).second)
        mesh_.warnings.push_back(at(c.where) + ": " + c.name + " GE (structural damping) is ignored: flexuq's K and M are undamped");
    }
    d.grid[0] = integer(c, 2, "G1");
    d.grid[1] = integer(c, 4, "G2", 0);
    for (int k = 0; k < 2; ++k) {
      if (d.grid[k] == 0) continue;
      const long comp = integer(c, 3 + 2 * static_cast<std::size_t>(k), k ? "C2" : "C1");
      if (comp < 1 || comp > 6)
        fail(c, "element " + std::to_string(d.id) + ": component " + std::to_string(comp) +
                    " must be one of 1-6 (scalar points are not supported)");
      d.comp[k] = static_cast<int>(comp);
    }
    if (d.grid[0] < 0 || d.grid[1] < 0) fail(c, "element " + std::to_string(d.id) + ": grid ids must be positive");
    d.where = c.where;
    springs_.push_back(d);
  }

  /// PELAS PID1 K1 GE1 S1 PID2 K2 GE2 S2 (two properties per card).
  /// PELAS PID K GE S PID K GE S; PMASS PID M PID M PID M PID M (MSC QRG).
  void pelas(const Card& c) {
    const bool pmass = c.name == "PMASS";
    for (std::size_t base = 0; base < (pmass ? 8u : 5u); base += pmass ? 2 : 4) {
      if (base > 0 && c.at(base).empty()) continue;
      const long pid = integer(c, base, "PID");
      if (pid <= 0) fail(c, "property id must be positive");
      if (pmass) {
        const double m = physical(c, base + 1, "M", real(c, base + 1, "M"));
        if (m < 0) fail(c, "property " + std::to_string(pid) + ": mass must not be negative");
        const auto [it, fresh] = pmass_.emplace(pid, std::make_pair(m, c.where));
        if (!fresh || props_.count(pid) || pelas_.count(pid))
          fail(c, "duplicate property id " + std::to_string(pid) + (fresh ? std::string() : " (first at " + at(it->second.second) + ")"));
        continue;
      }
      const double k = real(c, base + 1, "K");
      if (real(c, base + 2, "GE", 0.0) != 0.0 && ge_warned_.insert(c.name).second)
        mesh_.warnings.push_back(at(c.where) + ": PELAS GE (structural damping) is ignored: flexuq's K and M are undamped");
      const auto [it, fresh] = pelas_.emplace(pid, std::make_pair(k, c.where));
      if (!fresh || props_.count(pid) || pmass_.count(pid))
        fail(c, "duplicate property id " + std::to_string(pid) +
                    (fresh ? std::string(" (a ") + props_.at(pid).card + " at " + at(props_.at(pid).where) + ")"
                           : " (first at " + at(it->second.second) + ")"));
    }
  }

  /// CONM2 EID G CID M X1 X2 X3 / I11 I21 I22 I31 I32 I33 (MSC QRG): offsets and inertia in system
  /// CID (0: basic; −1: X is the centre of gravity in basic, inertia in basic).
  void conm2(const Card& c) {
    MassDef d;
    d.id = integer(c, 0, "EID");
    if (d.id <= 0) fail(c, "element id must be positive");
    d.grid = integer(c, 1, "G");
    d.cid = integer(c, 2, "CID", 0);
    if (d.cid < -1) fail(c, "CID must be -1 or a coordinate system id");
    d.m = physical(c, 3, "M", real(c, 3, "M", 0.0));
    for (std::size_t k = 0; k < 3; ++k) d.x[k] = real(c, 4 + k, "X1/X2/X3", 0.0);
    for (std::size_t k = 0; k < 6; ++k) d.inertia[k] = physical(c, 8 + k, "I11..I33", real(c, 8 + k, "I11..I33", 0.0));
    if (!(d.m >= 0)) fail(c, "element " + std::to_string(d.id) + ": mass M must not be negative");
    if (d.inertia[0] < 0 || d.inertia[2] < 0 || d.inertia[5] < 0)
      fail(c, "element " + std::to_string(d.id) + ": moments of inertia I11, I22, I33 must not be negative");
    d.where = c.where;
    masses_.push_back(d);
  }

  // ---- resolution ----------------------------------------------------------------------------------
  struct GridSpan {
    const long* b;
    const long* e;
    const long* begin() const { return b; }
    const long* end() const { return e; }
    long operator[](std::size_t i) const { return b[i]; }
  };
  GridSpan grids_of(const ElemDef& e) const {
    const long* b = egrids_.at(e.first);
    return {b, b + e.count};
  }
  void finish();
  void resolve_coordinates();
  void define_system(CoordDef& d, const Vec3& A, const Vec3& B, const Vec3& C) const;
  void build_elements();
  void build_sets();
  void build_springs_and_masses();
  int spring_node(long grid, long eid, const Loc& where, const char* card) const;

  // state
  std::string path_;
  BdfDeck& deck_;
  Mesh mesh_;
  Part section_ = Part::bulk;
  bool ended_ = false;
  detail::IncludeStack files_; ///< files read and the include chain
  Card card_;             ///< the card being assembled (buffers reused)
  bool have_card_ = false;
  std::string tabbed_;     ///< a line with its tabs expanded
  std::vector<std::string_view> parts_;
  Chunked<GridDef> grids_; // no reallocation copies while a big deck is read
  std::map<long, CoordDef> cords_;
  Chunked<ElemDef> elems_;
  std::vector<BeamDef> beams_; ///< CBAR/CBEAM details, by ElemDef::beam_def
  std::map<long, PropDef> props_;
  std::map<std::tuple<long, double, double, double>, long> conrod_pids_; ///< (MID, A, J, NSM) → the CONRODs' own pid, −k
  std::map<long, MatDef> mats_;
  std::vector<SetRef> set_refs_;
  std::set<long> rigid_ids_;
  std::vector<std::vector<long>> rigid_nodes_;
  std::vector<std::vector<double>> rigid_weights_;
  std::vector<std::vector<long>> rigid_um_; ///< RBE3: grids of its UM set other than REFGRID
  std::vector<Loc> rigid_loc_;
  std::vector<SpringDef> springs_;
  std::vector<MassDef> masses_;
  std::map<long, std::pair<double, Loc>> pelas_; ///< PELAS pid → (K, where)
  std::map<long, std::pair<double, Loc>> pmass_; ///< PMASS pid → (M, where)
  std::set<std::string> ge_warned_;
  bool mid3_warned_ = false;
  std::set<std::string> ignored_seen_, params_seen_;
  std::vector<std::string> ignored_, ignored_params_;
  ChunkedIds egrids_;                ///< grids of every element, CSR by ElemDef::first/count
  std::vector<long> gbuf_;           ///< grids of the element being read
  std::vector<int> nbuf_;
  detail::LabelIndex gidx_;          ///< grid id → index into grids_
  std::vector<int> node_of_grid_;    ///< index into grids_ → mesh node, or -1
};

void BdfParser::define_system(CoordDef& d, const Vec3& A, const Vec3& B, const Vec3& C) const {
  Vec3 z = sub(B, A);
  Vec3 y = cross(z, sub(C, A));
  const double nz = norm(z), ny = norm(y);
  if (!(nz > 0) || !(ny > 1e-12 * nz * norm(sub(C, A))))
    fail(d.where, "coordinate system " + std::to_string(d.id) + ": points A, B, C are collinear or coincide");
  for (auto& v : z) v /= nz;
  for (auto& v : y) v /= ny;
  d.origin = A;
  d.axes = {cross(y, z), y, z};
  d.done = true;
}

void BdfParser::resolve_coordinates() {
  const long dup = gidx_.build([&] {
    std::vector<long> ids;
    ids.reserve(grids_.size());
    for (const auto& g : grids_) ids.push_back(g.id);
    return ids;
  }());
  if (dup >= 0) {
    const auto& g = grids_[static_cast<std::size_t>(dup)];
    fail(g.where, "GRID: duplicate grid id " + std::to_string(g.id) + " (first at " +
                      at(grids_[static_cast<std::size_t>(gidx_.find(g.id))].where) + ")");
  }
  for (const auto& g : grids_)
    for (long cid : {g.cp, g.cd})
      if (cid != 0 && !cords_.count(cid))
        fail(g.where, "GRID " + std::to_string(g.id) + " references coordinate system " + std::to_string(cid) +
                          ", which is not defined");
  for (auto& [id, d] : cords_) {
    if (d.by_grids) {
      for (long gid : d.grids)
        if (gidx_.find(gid) < 0)
          fail(d.where, "coordinate system " + std::to_string(id) + " references grid " + std::to_string(gid) +
                            ", which is not defined");
    } else if (d.rid != 0 && !cords_.count(d.rid)) {
      fail(d.where, "coordinate system " + std::to_string(id) + " references coordinate system " +
                        std::to_string(d.rid) + ", which is not defined");
    }
  }
  // Systems may reference systems and grids defined in others: resolve until nothing changes.
  for (bool progress = true; progress;) {
    progress = false;
    for (auto& entry : cords_) {
      CoordDef& d = entry.second; // a plain reference: lambdas below capture it (C++17 cannot capture bindings)
      if (d.done) continue;
      if (d.by_grids) {
        bool ready = true;
        for (long gid : d.grids) ready = ready && grids_[static_cast<std::size_t>(gidx_.find(gid))].done;
        if (!ready) continue;
        auto P = [&](int k) { return grids_[static_cast<std::size_t>(gidx_.find(d.grids[k]))].basic; };
        define_system(d, P(0), P(1), P(2));
      } else {
        const CoordDef* ref = d.rid ? &cords_.at(d.rid) : nullptr;
        if (ref && !ref->done) continue;
        auto P = [&](int k) {
          const Vec3 x{d.abc[3 * k], d.abc[3 * k + 1], d.abc[3 * k + 2]};
          return ref ? to_basic(*ref, x) : x;
        };
        define_system(d, P(0), P(1), P(2));
      }
      progress = true;
    }
    for (auto& g : grids_) {
      if (g.done) continue;
      if (g.cp != 0) {
        const CoordDef& c = cords_.at(g.cp);
        if (!c.done) continue;
        g.basic = to_basic(c, g.basic);
      }
      g.done = true;
      progress = true;
    }
  }
  for (const auto& [id, d] : cords_)
    if (!d.done)
      fail(d.where, "coordinate system " + std::to_string(id) +
                        " cannot be resolved (its definition depends on itself through RID or grids)");
}

void BdfParser::build_elements() {
  std::vector<char> used(grids_.size(), 0);
  {
    std::vector<long> ids;
    ids.reserve(elems_.size());
    for (const auto& e : elems_) ids.push_back(e.id);
    detail::LabelIndex eidx;
    const long dup = eidx.build(ids);
    if (dup >= 0) {
      const auto& e = elems_[static_cast<std::size_t>(dup)];
      fail(e.where, "duplicate element id " + std::to_string(e.id) + " (first at " +
                        at(elems_[static_cast<std::size_t>(eidx.find(e.id))].where) + ")");
    }
  }
  std::size_t egrid_count = 0;
  for (const auto& e : elems_) {
    egrid_count += e.count;
    for (long g : grids_of(e)) {
      const int k = gidx_.find(g);
      if (k < 0) fail(e.where, "element " + std::to_string(e.id) + " references grid " + std::to_string(g) + ", which is not defined");
      used[static_cast<std::size_t>(k)] = 1;
    }
  }
  node_of_grid_.assign(grids_.size(), -1);
  bool any_cd = false;
  mesh_.coords.reserve(grids_.size());
  mesh_.node_ids.reserve(grids_.size());
  for (std::size_t k = 0; k < grids_.size(); ++k) {
    const auto& g = grids_[k];
    if (!used[k]) {
      deck_.dropped_grids[g.id] = g.basic;
      continue;
    }
    node_of_grid_[k] = static_cast<int>(mesh_.coords.size());
    mesh_.coords.push_back(g.basic);
    mesh_.node_ids.push_back(g.id);
    any_cd = any_cd || g.cd != 0;
  }
  if (any_cd)
    for (std::size_t k = 0; k < grids_.size(); ++k)
      if (node_of_grid_[k] >= 0)
        mesh_.node_frames.push_back(grids_[k].cd ? frame_at(cords_.at(grids_[k].cd), grids_[k].basic) : NodeFrame{});
  if (!deck_.dropped_grids.empty())
    mesh_.warnings.push_back(std::to_string(deck_.dropped_grids.size()) +
                             " grid(s) used by no element (e.g. RBE2/RBE3 reference grids) are not mesh nodes");

  // Materials and sections. Beam sections are split by orientation (io::Section holds one n1).
  std::set<long> used_mats;
  // (pid, orientation, offsets in basic, pin flags) → element set of its section
  std::map<std::tuple<long, Vec3, Vec3, Vec3, int, int>, std::string> beam_groups;
  std::set<long> solid_props;
  std::map<std::pair<long, double>, std::string> shell_groups; // (PSHELL, thickness) → element set of its section
  bool solids = false, shells = false;
  long pid_of_set = 0;
  std::vector<int>* pset = nullptr;
  std::string pset_name;
  mesh_.elem_type.reserve(elems_.size());
  mesh_.elem_ids.reserve(elems_.size());
  mesh_.elem_offsets.reserve(elems_.size() + 1);
  mesh_.elem_nodes.reserve(egrid_count); // no reallocation copies (and fresh pages) as it grows
  for (std::size_t i = 0; i < elems_.size(); ++i) {
    const ElemDef& e = elems_[i];
    const auto pit = props_.find(e.pid);
    if (pit == props_.end())
      fail(e.where, std::string(e.card) + " " + std::to_string(e.id) + " references property " + std::to_string(e.pid) +
                        ", which is not defined");
    const PropDef& p = pit->second;
    const std::string_view ecard(e.card);
    const bool ok = e.shell           ? p.card == "PSHELL"
                    : !e.beam         ? p.card == "PSOLID"
                    : e.rod           ? (p.card == "PROD" || (p.card == "CONROD" && ecard == "CONROD"))
                    : ecard == "CBAR" ? (p.card == "PBAR" || p.card == "PBARL")
                                      : p.card == "PBEAM";
    if (!ok) fail(e.where, std::string(e.card) + " " + std::to_string(e.id) + " references property " + std::to_string(e.pid) +
                              ", a " + p.card + " (defined at " + at(p.where) + ")");
    if (!mats_.count(p.mid))
      fail(p.where, p.card + (p.pid < 0 ? std::string() : " " + std::to_string(p.pid)) + " references material " +
                        std::to_string(p.mid) + ", which is not defined");
    used_mats.insert(p.mid);
    std::vector<int>& nodes = nbuf_;
    nodes.clear();
    for (long g : grids_of(e)) nodes.push_back(node_of_grid_[static_cast<std::size_t>(gidx_.find(g))]);
    const int eidx = static_cast<int>(mesh_.num_elements());
    mesh_.add_element(e.type, nodes, e.id);
    if (pid_of_set != p.pid) { // elements of one property come in runs: one set lookup per run
      pid_of_set = p.pid;
      pset_name = p.card + "_" + std::to_string(p.pid < 0 ? -p.pid : p.pid); // CONROD_k: the k-th CONROD property
      pset = &mesh_.element_sets[pset_name];
    }
    if (e.shell) { // one section per PSHELL and thickness (corner thicknesses T1..Tn override T)
      shells = true;
      const double t = e.t == 0 ? p.shell.thickness : e.t_relative ? e.t * p.shell.thickness : e.t;
      if (!(t > 0))
        fail(e.where, std::string(e.card) + " " + std::to_string(e.id) + ": no thickness (PSHELL " + std::to_string(p.pid) +
                          " leaves T blank and the element gives no corner thicknesses)");
      const bool own = t == p.shell.thickness;
      auto [git, fresh] = shell_groups.emplace(std::make_pair(p.pid, t), "");
      if (fresh) {
        git->second = own ? pset_name : pset_name + "_T" + std::to_string(shell_groups.size());
        Section s;
        s.elset = git->second;
        s.material = "MAT1_" + std::to_string(p.mid);
        s.shell = true;
        s.shell_section = p.shell;
        s.shell_section.thickness = t;
        s.shell_section.nsm *= deck_.wtmass;
        s.where = src(p.where);
        s.shell_section.validate(s.where);
        mesh_.sections.push_back(s);
      }
      (own ? *pset : mesh_.element_sets[git->second]).push_back(eidx);
      continue;
    }
    pset->push_back(eidx);
    if (!e.beam) {
      solids = true;
      if (solid_props.insert(p.pid).second) {
        Section s;
        s.elset = pset_name;
        s.material = "MAT1_" + std::to_string(p.mid);
        s.where = src(p.where);
        mesh_.sections.push_back(s);
      }
      continue;
    }
    if (e.rod) { // one section per PROD: no orientation (axial and torsion are invariant under it)
      auto [git, fresh] = beam_groups.emplace(std::make_tuple(p.pid, Vec3{}, Vec3{}, Vec3{}, 0, 0), "");
      if (fresh) {
        git->second = pset_name + "_ROD";
        Section s;
        s.elset = git->second;
        s.material = "MAT1_" + std::to_string(p.mid);
        s.beam = true;
        s.where = src(p.where);
        s.beam_section.shape = "ROD";
        s.beam_section.dims = {p.A, p.J};
        s.beam_section.lumped_mass = deck_.coupmass <= 0;
        s.beam_section.nsm = p.nsm * deck_.wtmass;
        s.beam_section.compute_properties(s.where);
        mesh_.sections.push_back(s);
      }
      mesh_.element_sets[git->second].push_back(eidx);
      continue;
    }
    // Orientation vector v in basic (MSC QRG CBAR: X in GA's displacement system unless OFFT = B..).
    const GridDef& ga = grids_[static_cast<std::size_t>(gidx_.find(grids_of(e)[0]))];
    const BeamDef& bd = beams_[e.beam_def];
    Vec3 v = bd.v;
    if (bd.g0) {
      const int k = gidx_.find(*bd.g0);
      if (k < 0) fail(e.where, std::string(e.card) + " " + std::to_string(e.id) + ": orientation grid G0 " + std::to_string(*bd.g0) + " is not defined");
      v = sub(grids_[static_cast<std::size_t>(k)].basic, ga.basic);
    } else if (!bd.v_basic && ga.cd != 0) {
      const NodeFrame f = frame_at(cords_.at(ga.cd), ga.basic);
      Vec3 b{};
      for (int k = 0; k < 3; ++k)
        for (int d = 0; d < 3; ++d) b[d] += bd.v[k] * f.axes[k][d];
      v = b;
    }
    // Offsets WA, WB in basic (OFFT G: in GA's and GB's displacement systems); the element axis runs
    // between the offset points.
    const GridDef& gb = grids_[static_cast<std::size_t>(gidx_.find(grids_of(e)[1]))];
    auto to_basic = [&](const GridDef& g, const Vec3& w) {
      if (g.cd == 0 || norm(w) == 0) return w;
      const NodeFrame f = frame_at(cords_.at(g.cd), g.basic);
      Vec3 b{};
      for (int k = 0; k < 3; ++k)
        for (int d = 0; d < 3; ++d) b[d] += w[k] * f.axes[k][d];
      return b;
    };
    const Vec3 wa = to_basic(ga, bd.wa), wb = to_basic(gb, bd.wb);
    const double nv = norm(v);
    const Vec3 axis = sub(add(gb.basic, wb), add(ga.basic, wa));
    if (!(norm(axis) > 0))
      fail(e.where, std::string(e.card) + " " + std::to_string(e.id) + ": its offset ends A and B coincide (zero length)");
    if (!(nv > 0) || norm(cross(v, axis)) <= 1e-8 * nv * norm(axis))
      fail(e.where, std::string(e.card) + " " + std::to_string(e.id) + ": orientation vector is zero or parallel to the element axis");
    // Element y axis: v without its component along x (plane 1 = the (x, v) plane).
    const double ax = dot(v, axis) / dot(axis, axis);
    for (int d = 0; d < 3; ++d) v[d] -= ax * axis[d];
    const double ny = norm(v);
    for (auto& x : v) x /= ny;
    const auto key = std::make_tuple(p.pid, v, wa, wb, bd.pa, bd.pb);
    auto [git, fresh] = beam_groups.emplace(key, "");
    if (fresh) {
      git->second = pset_name + "_O" + std::to_string(beam_groups.size());
      Section s;
      s.elset = git->second;
      s.material = "MAT1_" + std::to_string(p.mid);
      s.beam = true;
      s.where = src(p.where);
      BeamSection& b = s.beam_section;
      b.shape = "GENERAL";
      b.dims = {p.A, p.I2, 0.0, p.I1, p.J}; // flexuq I11 = ∫ z² dA = Nastran I2, I22 = ∫ y² dA = Nastran I1
      b.n1 = v;
      b.lumped_mass = deck_.coupmass <= 0;
      // A property belongs to one card type (PBAR/PBARL: CBAR, PBEAM: CBEAM), so one section does.
      // CBAR's coupled mass is Nastran's own (no torsional inertia, axial ρAL/12 [5 1; 1 5]);
      // CBEAM's is the consistent beam mass (fe::beam_terms, docs/nastran.md).
      if (ecard == "CBAR") b.coupled_mass = BeamSection::CoupledMass::nastran_cbar;
      b.offset_a = wa;
      b.offset_b = wb;
      b.release_a = bd.pa;
      b.release_b = bd.pb;
      b.nsm = p.nsm * deck_.wtmass;
      b.compute_properties(s.where);
      mesh_.sections.push_back(s);
    }
    mesh_.element_sets[git->second].push_back(eidx);
  }
  if ((solids || shells) && deck_.coupmass <= 0)
    mesh_.warnings.push_back(std::string(solids && shells ? "solid and shell" : solids ? "solid" : "shell") +
                             " elements use the consistent (coupled) mass; Nastran's default "
                             "(PARAM,COUPMASS,-1) lumps it, so frequencies differ slightly from such a run (add "
                             "PARAM,COUPMASS,1 to the deck to compare like with like)");

  for (long mid : used_mats) {
    const MatDef& m = mats_.at(mid);
    Material out;
    out.name = "MAT1_" + std::to_string(mid);
    out.where = src(m.where);
    // MSC QRG MAT1: any two of E, G, NU give the third by G = E / (2 (1 + NU)).
    double E = 0, nu = 0;
    if (m.E && m.nu) {
      E = *m.E;
      nu = *m.nu;
      if (m.G && std::abs(1 - E / (2 * (1 + nu) * *m.G)) > 0.01)
        mesh_.warnings.push_back(at(m.where) + ": MAT1 " + std::to_string(mid) +
                                 ": E, G and NU are inconsistent (|1 - E/(2(1+NU)G)| > 0.01); E and NU are used");
    } else if (m.E && m.G) {
      E = *m.E;
      nu = E / (2 * *m.G) - 1;
    } else {
      nu = *m.nu;
      E = 2 * *m.G * (1 + nu);
    }
    out.E = E;
    out.nu = nu;
    if (m.rho) out.rho = *m.rho * deck_.wtmass; // PARAM,WTMASS scales the mass matrix
    mesh_.materials[out.name] = out;
  }
}

void BdfParser::build_sets() {
  const std::set<long> spoints(deck_.spoints.begin(), deck_.spoints.end());
  bool beams = false;
  for (auto t : mesh_.elem_type) beams = beams || !is_solid(t); // beams and shells: 6 DOFs per node
  // SPC/SPC1 and GRID PS components → Mesh::set_components (bit c = component c + 1). Solid grids
  // have no rotations: 4-6 on them are dropped (Nastran's AUTOSPC would hold them). Components are
  // in the grid's CD system: a CD whose axes are not the basic ones takes whole triples only
  // (123 and/or 456), which are the same in any frame.
  const unsigned node_bits = beams ? 63u : 7u;
  auto spc_mask = [&](std::size_t k, int comp, Loc where, const std::string& what) {
    unsigned m = 0;
    for (char ch : std::to_string(comp)) m |= 1u << (ch - '1');
    const long cd = grids_[k].cd;
    if (cd != 0) {
      const auto ax = frame_at(cords_.at(cd), grids_[k].basic).axes; // at the grid (CORD*C, CORD*S)
      bool basic = true;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) basic = basic && std::abs(ax[i][j] - (i == j ? 1.0 : 0.0)) < 1e-12;
      const unsigned t = m & 7u, r = (m >> 3) & 7u;
      if (!basic && ((t != 0 && t != 7u) || (beams && r != 0 && r != 7u)))
        fail(where, what + ": grid " + std::to_string(grids_[k].id) + " components " + std::to_string(comp) +
                        " are in its displacement system CD = " + std::to_string(cd) +
                        ", whose axes are not the basic ones; flexuq fixes single components in basic axes only "
                        "(give all of 123 and/or 456, or a grid with CD = 0)");
    }
    return m & node_bits;
  };
  for (const SetRef& r : set_refs_) {
    const int k = gidx_.find(r.grid);
    if (k < 0) {
      if (spoints.count(r.grid)) {
        if (r.set != "QSET") fail(r.where, r.set + ": scalar point " + std::to_string(r.grid) + " is only supported in the q-set");
        ++deck_.qset_spoints;
        continue;
      }
      fail(r.where, r.set + ": grid " + std::to_string(r.grid) + " is not defined");
    }
    const int node = node_of_grid_[static_cast<std::size_t>(k)];
    if (node < 0) continue; // a reference grid: BdfDeck keeps the entry
    if (r.set.rfind("SPC", 0) == 0) {
      const unsigned m = spc_mask(static_cast<std::size_t>(k), r.comp, r.where, "SPC set " + r.set.substr(3));
      if (m == 0) continue; // rotations of a solid grid only
      mesh_.set_components[r.set].emplace_back(node, m);
    }
    mesh_.node_sets[r.set].push_back(node);
  }
  for (std::size_t k = 0; k < grids_.size(); ++k)
    if (grids_[k].ps != 0 && node_of_grid_[k] >= 0) {
      const unsigned m = spc_mask(k, grids_[k].ps, grids_[k].where, "GRID PS");
      if (m == 0) continue;
      mesh_.node_sets["PS"].push_back(node_of_grid_[k]);
      mesh_.set_components["PS"].emplace_back(node_of_grid_[k], m);
    }
  for (std::size_t i = 0; i < deck_.rigids.size(); ++i) {
    auto& r = deck_.rigids[i];
    const int ref = gidx_.find(r.ref_grid);
    if (ref < 0)
      fail(rigid_loc_[i], std::string(r.rbe2 ? "RBE2 " : "RBE3 ") + std::to_string(r.eid) + ": reference grid " +
                              std::to_string(r.ref_grid) + " is not defined");
    r.ref_xyz = grids_[static_cast<std::size_t>(ref)].basic;
    if (r.rbe2 && std::find(rigid_nodes_[i].begin(), rigid_nodes_[i].end(), r.ref_grid) != rigid_nodes_[i].end())
      fail(rigid_loc_[i], "RBE2 " + std::to_string(r.eid) + ": reference grid " + std::to_string(r.ref_grid) +
                              " is also one of its dependent grids");
    std::vector<std::pair<int, double>> nw;
    for (std::size_t j = 0; j < rigid_nodes_[i].size(); ++j) {
      const long g = rigid_nodes_[i][j];
      const int k = gidx_.find(g);
      if (k < 0 || node_of_grid_[static_cast<std::size_t>(k)] < 0)
        fail(rigid_loc_[i], std::string(r.rbe2 ? "RBE2 " : "RBE3 ") + std::to_string(r.eid) + ": grid " +
                                std::to_string(g) + (k < 0 ? " is not defined" : " belongs to no element"));
      nw.emplace_back(node_of_grid_[static_cast<std::size_t>(k)], r.rbe2 ? 1.0 : rigid_weights_[i][j]);
    }
    std::sort(nw.begin(), nw.end());
    for (std::size_t j = 1; j < nw.size(); ++j)
      if (nw[j].first == nw[j - 1].first)
        fail(rigid_loc_[i], std::string(r.rbe2 ? "RBE2 " : "RBE3 ") + std::to_string(r.eid) + ": grid " +
                                std::to_string(mesh_.node_ids[static_cast<std::size_t>(nw[j].first)]) + " is listed twice");
    auto& set = mesh_.node_sets[(r.rbe2 ? "RBE2_" : "RBE3_") + std::to_string(r.eid)];
    for (auto [n, w] : nw) {
      set.push_back(n);
      if (!r.rbe2) r.weights.push_back(w);
    }
  }
  // A grid's DOFs may be dependent in one rigid element only (RBE2: its GMi; RBE3: its REFGRID), and an
  // RBE2's reference must be independent: a chain or a doubly dependent grid has no unique meaning in
  // flexuq's interfaces, which take each rigid element on its own (issue #40: accepted silently before).
  std::map<long, std::size_t> dependent_in; // grid → first rigid element where it is dependent
  const auto label = [&](std::size_t i) {
    return std::string(deck_.rigids[i].rbe2 ? "RBE2 " : "RBE3 ") + std::to_string(deck_.rigids[i].eid);
  };
  for (std::size_t i = 0; i < deck_.rigids.size(); ++i) {
    const auto& r = deck_.rigids[i];
    std::vector<long> dep = r.rbe2 ? rigid_nodes_[i] : std::vector<long>{r.ref_grid};
    dep.insert(dep.end(), rigid_um_[i].begin(), rigid_um_[i].end()); // RBE3 UM grids are dependent too
    // A dependent DOF cannot be a boundary DOF (Nastran: the m-set is not in the a-set).
    for (const long g : rigid_um_[i])
      for (const auto* set : {&deck_.bset, &deck_.aset})
        for (const auto& e : *set)
          if (e.grid == g)
            fail(rigid_loc_[i], label(i) + ": grid " + std::to_string(g) + " of its UM set is in the " +
                                    (set == &deck_.bset ? "b-set" : "a-set") + "; a dependent grid cannot be a boundary grid");
    for (const long g : dep) {
      const auto [it, fresh] = dependent_in.emplace(g, i);
      if (!fresh)
        fail(rigid_loc_[i], label(i) + ": grid " + std::to_string(g) + " is already dependent in " + label(it->second) +
                                " (" + at(rigid_loc_[it->second]) + "); a grid may be dependent in one rigid element only");
    }
  }
  for (std::size_t i = 0; i < deck_.rigids.size(); ++i) {
    const auto& r = deck_.rigids[i];
    if (!r.rbe2) continue;
    if (const auto it = dependent_in.find(r.ref_grid); it != dependent_in.end() && it->second != i)
      fail(rigid_loc_[i], label(i) + ": reference grid " + std::to_string(r.ref_grid) + " is a dependent grid of " +
                              label(it->second) + " (" + at(rigid_loc_[it->second]) +
                              "); chained rigid elements are not supported: merge them into one RBE2");
  }
}

int BdfParser::spring_node(long grid, long eid, const Loc& where, const char* card) const {
  const int k = gidx_.find(grid);
  if (k < 0) fail(where, std::string(card) + " " + std::to_string(eid) + " references grid " + std::to_string(grid) + ", which is not defined");
  const int node = node_of_grid_[static_cast<std::size_t>(k)];
  if (node < 0)
    fail(where, std::string(card) + " " + std::to_string(eid) + ": grid " + std::to_string(grid) +
                    " belongs to no element, so it has no stiffness of its own (ground a spring by leaving G2 blank; "
                    "a mass needs a grid of the structure)");
  return node;
}

void BdfParser::build_springs_and_masses() {
  if (springs_.empty() && masses_.empty()) return;
  // Element ids are one name space in Nastran: springs and masses may not reuse an element's id.
  std::map<long, Loc> ids;
  std::vector<long> elem_ids(mesh_.elem_ids.begin(), mesh_.elem_ids.end());
  std::sort(elem_ids.begin(), elem_ids.end());
  auto claim = [&](long id, const Loc& where, const char* card) {
    if (std::binary_search(elem_ids.begin(), elem_ids.end(), id))
      fail(where, std::string(card) + ": duplicate element id " + std::to_string(id) + " (an element has it)");
    const auto [it, fresh] = ids.emplace(id, where);
    if (!fresh) fail(where, std::string(card) + ": duplicate element id " + std::to_string(id) + " (first at " + at(it->second) + ")");
  };
  for (const auto& d : springs_) {
    const char* card = d.mass ? (d.pid ? "CMASS1" : "CMASS2") : d.pid ? "CELAS1" : "CELAS2";
    claim(d.id, d.where, card);
    ScalarSpring sp;
    sp.id = d.id;
    sp.k = d.k;
    if (d.pid) {
      const auto& table = d.mass ? pmass_ : pelas_;
      const char* need = d.mass ? "PMASS" : "PELAS";
      const auto it = table.find(d.pid);
      if (it == table.end())
        fail(d.where, std::string(card) + " " + std::to_string(d.id) + " references property " + std::to_string(d.pid) +
                          (props_.count(d.pid)    ? ", a " + props_.at(d.pid).card + " (a " + need + " is needed)"
                           : (d.mass ? pelas_ : pmass_).count(d.pid) ? std::string(", a ") + (d.mass ? "PELAS" : "PMASS") +
                                                                             " (a " + need + " is needed)"
                                                                       : ", which is not defined"));
      sp.k = it->second.first;
    }
    if (d.mass) sp.k *= deck_.wtmass; // PARAM,WTMASS scales every mass input
    sp.node_a = spring_node(d.grid[0], d.id, d.where, card);
    sp.comp_a = d.comp[0];
    if (d.grid[1] != 0) {
      sp.node_b = spring_node(d.grid[1], d.id, d.where, card);
      sp.comp_b = d.comp[1];
    }
    sp.where = src(d.where);
    (d.mass ? mesh_.scalar_masses : mesh_.springs).push_back(sp);
  }
  const bool solid = mesh_.dofs_per_node() == 3;
  bool dropped = false;
  for (const auto& d : masses_) {
    claim(d.id, d.where, "CONM2");
    PointMass pm;
    pm.id = d.id;
    pm.node = spring_node(d.grid, d.id, d.where, "CONM2");
    pm.where = src(d.where);
    const Vec3 xg = mesh_.coords[static_cast<std::size_t>(pm.node)];
    // Rotation from system CID to basic (rows: the system's axes in basic, at the grid).
    std::array<Vec3, 3> A{Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}};
    Vec3 off = d.x;
    if (d.cid == -1) {
      off = sub(d.x, xg);
    } else if (d.cid > 0) {
      const auto it = cords_.find(d.cid);
      if (it == cords_.end())
        fail(d.where, "CONM2 " + std::to_string(d.id) + " references coordinate system " + std::to_string(d.cid) +
                          ", which is not defined");
      A = frame_at(it->second, xg).axes;
      off = Vec3{0, 0, 0};
      for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 3; ++j) off[j] += d.x[k] * A[k][j];
    }
    // Inertia in CID: [[I11, −I21, −I31], [−I21, I22, −I32], [−I31, −I32, I33]] (MSC QRG CONM2);
    // in basic J = Aᵀ J_cid A. PARAM,WTMASS scales mass and inertia like every mass input.
    const double* I = d.inertia.data();
    const double Jc[3][3] = {{I[0], -I[1], -I[3]}, {-I[1], I[2], -I[4]}, {-I[3], -I[4], I[5]}};
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        double v = 0;
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 3; ++l) v += A[k][a] * Jc[k][l] * A[l][b];
        pm.inertia[a][b] = v * deck_.wtmass;
      }
    pm.m = d.m * deck_.wtmass;
    pm.offset = off;
    if (solid && (norm(off) > 0 || std::abs(I[0]) + std::abs(I[2]) + std::abs(I[5]) > 0)) {
      dropped = true;
      pm.offset = Vec3{0, 0, 0};
      pm.inertia = {};
    }
    mesh_.point_masses.push_back(pm);
  }
  if (dropped)
    mesh_.warnings.push_back("CONM2 offsets and rotary inertia are ignored on a solid mesh (its grids have no rotational "
                             "DOFs): only the mass M acts, at the grid");
}

void BdfParser::finish() {
  if (grids_.empty()) throw InputError(path_ + ": the deck has no GRID cards");
  resolve_coordinates();
  build_elements();
  build_springs_and_masses();
  build_sets();
  mesh_.autospc = deck_.autospc;
  if (!ignored_.empty()) {
    std::string w = "skipped bulk data cards that cannot change the model: ";
    for (std::size_t i = 0; i < ignored_.size(); ++i) w += (i ? ", " : "") + ignored_[i];
    mesh_.warnings.push_back(w);
  }
  if (!ignored_params_.empty()) {
    std::string w = "ignored PARAMs (flexuq reads COUPMASS, WTMASS, AUTOSPC, GRDPNT): ";
    for (std::size_t i = 0; i < ignored_params_.size(); ++i) w += (i ? ", " : "") + ignored_params_[i];
    mesh_.warnings.push_back(w);
  }
  if (deck_.method) (void)deck_.method_eigrl();
  detail::normalise_sets(mesh_);
  mesh_.validate();
}

} // namespace

const BdfDeck::Eigrl* BdfDeck::method_eigrl() const {
  if (method) {
    const auto it = eigrls.find(*method);
    if (it == eigrls.end())
      throw InputError("case control METHOD = " + std::to_string(*method) + " selects no EIGRL card of the deck");
    return &it->second;
  }
  return eigrls.size() == 1 ? &eigrls.begin()->second : nullptr;
}

Mesh read_bdf(const std::string& path, BdfDeck* deck) {
  BdfDeck local;
  return BdfParser(path, deck ? *deck : local).run();
}

bool is_bdf_path(const std::string& path) {
  const std::string ext = upper(std::filesystem::path(path).extension().string());
  return ext == ".BDF" || ext == ".DAT" || ext == ".NAS";
}

} // namespace flexuq::io
