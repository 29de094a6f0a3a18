// SPDX-License-Identifier: MIT
#pragma once
/// @file Op4.hpp
/// @brief Nastran OUTPUT4 (.op4) matrix files: write (binary or ASCII; dense or bigmat sparse)
/// and read (binary little/big endian with 32- or 64-bit keys, ASCII; dense, non-bigmat sparse and
/// bigmat sparse; real single and double precision).
///
/// Layout, as Nastran's DMAP OUTPUT4 writes it (and pyNastran/pyYeti read it), per matrix:
/// - header: NCOL, NROW, FORM (1 square, 2 rectangular, 6 symmetric), TYPE (1 real single,
///   2 real double), NAME (8 characters); NROW < 0 marks the bigmat sparse layout.
///   Binary: one Fortran unformatted record (4-byte length markers) of 4 integers + the name;
///   ASCII: `(4I8,A8,A)` with the Fortran format of the numbers, here `1P,3E23.16`.
/// - one record per column with a non-zero: ICOL, IROW, NW, then the data.
///   Dense (IROW > 0): the values of rows IROW… (binary NW in 4-byte words, ASCII NW = values).
///   Sparse (IROW = 0): NW words of strings; each string is introduced by IS = IROW + 65536·(L+1)
///   (non-bigmat) or by the pair L+1, IROW (bigmat), L = words of the string.
/// - a closing record ICOL = NCOL+1, IROW = 1 with one value.
/// Binary files are written little-endian with 32-bit keys (Nastran on x86-64 Linux, pyYeti's
/// default); ASCII with 17 significant digits, so that a write → read round trip is bit-exact.

#include <cstdint>
#include <string>
#include <vector>

namespace flexuq::io {

/// A real matrix as stored in an OP4 file, dense column-major.
struct Op4Matrix {
  std::string name; ///< up to 8 characters, written upper-case
  int rows = 0, cols = 0;
  int form = 0;     ///< 0: choose on write (6 symmetric, 1 square, 2 rectangular)
  int type = 2;     ///< 1 real single, 2 real double (as read; always 2 on write)
  std::vector<double> data; ///< rows × cols, column-major

  Op4Matrix() = default;
  Op4Matrix(std::string n, int r, int c) : name(std::move(n)), rows(r), cols(c), data(std::size_t(r) * std::size_t(c), 0.0) {}
  double& operator()(int r, int c) { return data[std::size_t(c) * std::size_t(rows) + std::size_t(r)]; }
  double operator()(int r, int c) const { return data[std::size_t(c) * std::size_t(rows) + std::size_t(r)]; }
};

enum class Op4Format { binary, ascii };
enum class Op4Layout { dense, bigmat };

/// Write @p mats to @p path (overwritten). Throws flexuq::Error if the file cannot be written or a
/// name is longer than 8 characters.
void write_op4(const std::string& path, const std::vector<Op4Matrix>& mats, Op4Format format,
               Op4Layout layout = Op4Layout::dense);

/// Read every matrix of @p path. Throws flexuq::InputError naming the file, the matrix (number and
/// name) and the byte offset (binary) or line (ASCII) of anything malformed: a bad header, complex
/// types, a column or row out of range, a truncated record.
std::vector<Op4Matrix> read_op4(const std::string& path);

} // namespace flexuq::io
