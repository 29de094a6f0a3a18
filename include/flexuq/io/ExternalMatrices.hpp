// SPDX-License-Identifier: MIT
#pragma once
/// @file ExternalMatrices.hpp
/// @brief Matrices exported by another FE code, read entry by entry: MatrixMarket (coordinate or
/// array, real/integer, general or symmetric) with a DOF label file, Abaqus `*MATRIX GENERATE` /
/// `*MATRIX OUTPUT, FORMAT=MATRIX INPUT` text (.mtx: row node, row DOF, column node, column DOF,
/// value), PETSc binary (MatView on a binary viewer) and Nastran OP4.
///
/// The readers never hold a whole matrix: they stream the entries to a callback (twice, in
/// fe::MatrixComponent: once for the node graph, once to assemble the rows a rank owns); only OP4,
/// whose reader returns dense matrices, holds one matrix at a time.
///
/// DOF label file (docs/config.md, `model.matrices`): one line per matrix row, in row order,
/// `node_id component [x y z]` (blanks or commas; `#`, `%`, `!` and `**` start comments). The
/// components of a node are 1…3 (translations) or 1…6 (with rotations), each exactly once; a node
/// may give its coordinates on any of its lines (the same on all of them).

#include "flexuq/core/EnumNames.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace flexuq::io {

enum class MatrixFormat { matrix_market, abaqus, petsc, op4 };
/// The names of `model.matrices` formats (`format:`; the job-file parser matches them ignoring case);
/// "matrixmarket" and "mm" are other names of matrix-market.
inline constexpr EnumNames<MatrixFormat, 6> kMatrixFormatNames{{{{MatrixFormat::matrix_market, "matrix-market"},
                                                                 {MatrixFormat::abaqus, "abaqus"},
                                                                 {MatrixFormat::petsc, "petsc"},
                                                                 {MatrixFormat::op4, "op4"},
                                                                 {MatrixFormat::matrix_market, "matrixmarket"},
                                                                 {MatrixFormat::matrix_market, "mm"}}}};

/// The format of the matrix file @p path, from the file (when the job file names none): a PETSc
/// MAT_FILE_CLASSID in the first 4 bytes (or a `.bin`/`.petsc` name) → petsc, `.op4` → op4, a
/// `%%MatrixMarket` first line → matrix_market, else abaqus. Throws InputError naming @p path for a
/// file that cannot be opened.
MatrixFormat matrix_format(const std::string& path);

/// The DOFs of external matrices: row r of every matrix is component dof_comp[r] of node dof_node[r].
struct DofLabels {
  std::string source;                        ///< label file, or the Abaqus files it was read from
  std::vector<long> node_ids;                ///< in order of first appearance
  std::vector<std::array<double, 3>> coords; ///< per node (zeros without coordinates)
  bool has_coordinates = false;              ///< every node has coordinates
  int dofs_per_node = 0;                     ///< 3 or 6
  std::vector<int> dof_node;                 ///< per row: internal node index
  std::vector<int> dof_comp;                 ///< per row: component, 0-based
  /// Row of (node index, component 0-based): node_row[v * dofs_per_node + c].
  std::vector<std::int64_t> node_row;
  std::size_t rows() const { return dof_node.size(); }
};

/// Read a DOF label file. Throws InputError naming file and line: malformed line, duplicate
/// (node, component), component outside 1…6, a node without all of 1…dofs_per_node, nodes with
/// coordinates mixed with nodes without, conflicting coordinates.
DofLabels read_dof_labels(const std::string& path);

/// The DOFs of Abaqus .mtx files without a label file: every (node, DOF) that occurs, nodes in
/// ascending id order, no coordinates. Same checks as read_dof_labels.
DofLabels abaqus_dof_labels(const std::vector<std::string>& paths);

/// One matrix file of a model: path, format, and for OP4 the matrix name ("" = the first).
struct MatrixFile {
  std::string path;
  MatrixFormat format = MatrixFormat::matrix_market;
  std::string op4_name;
};

/// Header facts known before the entries: symmetric storage (each off-diagonal pair stored once,
/// the reader's caller mirrors it). Abaqus files are symmetric unless both triangles occur, which
/// only the entries tell: `symmetric` is then decided by the caller after a first pass.
struct MatrixHeader {
  std::int64_t rows = 0, cols = 0;
  bool symmetric = false;
};

/// Called per stored entry: 0-based rows of @p labels, value, and where (line of a text file,
/// 1-based entry number of a binary one).
using EntrySink = std::function<void(std::int64_t row, std::int64_t col, double value, long where)>;

/// Stream the entries of @p file to @p sink. Throws InputError naming file and line (entry) for a
/// malformed header or entry, a size that differs from the label file's row count, an index out
/// of range, a (node, DOF) the label file does not define, complex or pattern matrices.
MatrixHeader scan_matrix(const MatrixFile& file, const DofLabels& labels, const EntrySink& sink);

/// Write @p values (triplets, 0-based, the upper or lower triangle or both) as a MatrixMarket
/// coordinate file (17 significant digits: a write → read round trip is exact). Rank-local.
struct Triplet {
  std::int64_t row, col;
  double value;
};
void write_matrix_market(const std::string& path, std::int64_t n, const std::vector<Triplet>& values, bool symmetric,
                         const std::string& comment = "");

/// Write a DOF label file for @p labels (with coordinates when it has them). Rank-local.
void write_dof_labels(const std::string& path, const DofLabels& labels);

} // namespace flexuq::io
