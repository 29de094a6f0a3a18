// SPDX-License-Identifier: MIT
#pragma once
/// @file TextScan.hpp
/// @brief Private helpers shared by the mesh readers: whole-file loading, a line cursor that counts
/// lines, field splitting without allocation, number parsing with std::from_chars, and a
/// label → index lookup for sparse node/element labels.

#include "flexuq/io/Mesh.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace flexuq::io::detail {

/// Whole contents of @p path, or nullopt with the reason in @p why ("cannot be opened", "is a
/// directory", "is not a regular file", or that it does not fit in memory: limits::require_memory).
std::optional<std::string> load_text(const std::string& path, std::string* why = nullptr);

/// A file's text mapped read-only into memory (mmap): no zero-filled buffer and no copy, which is
/// most of the cost of loading a large deck. Move-only; unmaps on destruction.
class MappedText {
public:
  MappedText() = default;
  MappedText(MappedText&& o) noexcept;
  MappedText& operator=(MappedText&& o) noexcept;
  MappedText(const MappedText&) = delete;
  MappedText& operator=(const MappedText&) = delete;
  ~MappedText();
  std::string_view view() const { return {data_, size_}; }

private:
  friend std::optional<MappedText> map_text(const std::string& path, std::string* why);
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

/// As load_text, mapped instead of read (the mesh readers' large files).
std::optional<MappedText> map_text(const std::string& path, std::string* why = nullptr);

/// The canonical form of @p path for include-cycle checks (std::filesystem::weakly_canonical,
/// non-throwing): a name the file system refuses (too long, bad characters) is returned as it is,
/// so the reader reports "cannot open" instead of an escaped filesystem_error (found by fuzz_bdf).
std::string canonical_path(const std::string& path);

/// Where a line is: index into IncludeStack::files() and 1-based line number (64-bit, as
/// LineCursor::line_number()).
struct Loc {
  int file = 0;
  long line = 0;
};

/// The include machinery shared by the mesh readers (Nastran INCLUDE, Abaqus *INCLUDE): the files
/// read so far (for locations), the include chain being read (for cycles), relative names and the
/// messages for a file that cannot be read, with map_text's reason ("is a directory", "is too
/// large: …") instead of a bare "cannot open".
class IncludeStack {
public:
  /// A file mapped and pushed on the include chain; pop() when its text is done.
  struct Opened {
    MappedText text;
    int file = 0; ///< the index for Loc::file
  };
  /// Map @p path, included at @p from (nullptr for the main file) by @p directive ("INCLUDE",
  /// "*INCLUDE"). Throws InputError located at @p from: an include cycle, or why it cannot be read.
  Opened push(const std::string& path, const Loc* from, const char* directive);
  void pop() { open_.pop_back(); }
  /// @p name as written in an include directive at @p from: relative to that file's folder.
  std::string resolve(const std::string& name, Loc from) const;
  const std::string& file(int id) const { return files_[static_cast<std::size_t>(id)]; }
  /// "crank.inp:123"
  std::string at(Loc l) const { return file(l.file) + ":" + std::to_string(l.line); }
  /// The line clamped to int (SourceLocation keeps an int).
  SourceLocation source(Loc l) const;

private:
  std::vector<std::string> files_; ///< every file read, index = Loc::file
  std::vector<std::string> open_;  ///< canonical paths of the include chain being read
};

/// Walks a text buffer line by line; strips a trailing '\r'. Line numbers start at 1.
class LineCursor {
public:
  explicit LineCursor(std::string_view text) : text_(text) {}
  /// Next line into @p line; false at the end of the text.
  bool next(std::string_view& line);
  /// 64-bit: a file of more than 2^31 lines (≥ 2 GB of short lines) must not overflow the count.
  long line_number() const { return line_; }
  /// Bytes not yet returned by next(): what the rest of the file can hold (header count checks).
  std::size_t remaining() const { return pos_ < text_.size() ? text_.size() - pos_ : 0; }

private:
  std::string_view text_;
  std::size_t pos_ = 0;
  long line_ = 0;
};

std::string_view trim(std::string_view s);
/// Split @p s at @p delim into trimmed fields (reuses @p out's storage).
void split_on(std::string_view s, char delim, std::vector<std::string_view>& out);
/// Split @p s at runs of blanks/tabs.
void split_blanks(std::string_view s, std::vector<std::string_view>& out);

/// Whole-field integer parse; false if @p s is not exactly an integer (a leading '+' is allowed).
bool parse_long(std::string_view s, long& v);
/// Whole-field floating-point parse; accepts a leading '+' and Fortran 'D' exponents.
bool parse_double(std::string_view s, double& v);

/// Sparse label → internal index lookup: a dense table when the labels are compact, a hash map
/// otherwise.
class LabelIndex {
public:
  /// Build from labels in internal order. Returns the position of the first label that repeats an
  /// earlier one, or -1 if all are distinct.
  long build(const std::vector<long>& labels);
  /// Internal index of @p label, or -1.
  int find(long label) const;

private:
  long lo_ = 0;
  std::vector<int> dense_;
  std::unordered_map<long, int> sparse_;
  bool use_dense_ = true;
};

/// Sort and de-duplicate every set of @p mesh.
void normalise_sets(Mesh& mesh);
/// Add a warning to @p mesh if some nodes are used by no element (they would carry no stiffness).
void warn_unused_nodes(Mesh& mesh);

} // namespace flexuq::io::detail
