// SPDX-License-Identifier: MIT
#pragma once
/// @file Hdf5File.hpp
/// @brief Parallel HDF5 file (MPI-IO driver, collective transfers) with the few operations flexuq
/// needs: datasets written as row blocks by each rank, replicated small datasets, attributes, and
/// reads. Every hid_t is owned by an RAII wrapper; every failure throws flexuq::Error.

#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace flexuq::io {

/// Owns one HDF5 identifier and closes it with the matching H5*close.
class H5Id {
public:
  using Closer = herr_t (*)(hid_t);
  H5Id() = default;
  H5Id(hid_t id, Closer close);
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  H5Id(H5Id&& o) noexcept;
  H5Id& operator=(H5Id&& o) noexcept;
  ~H5Id();
  hid_t get() const noexcept { return id_; }

private:
  hid_t id_ = -1;
  Closer close_ = nullptr;
};

class H5File {
public:
  enum class Mode { create, read, append };
  /// @note Collective on @p comm. Throws Error naming the path on failure.
  H5File(MPI_Comm comm, const std::string& path, Mode mode);
  H5File(const H5File&) = delete;
  H5File& operator=(const H5File&) = delete;
  H5File(H5File&&) noexcept = default;
  H5File& operator=(H5File&&) noexcept = default;

  const std::string& path() const { return path_; }
  MPI_Comm comm() const { return comm_; }
  hid_t id() const { return file_.get(); }

  /// Create a group and its parents if absent. @note Collective.
  void ensure_group(const std::string& group);
  bool exists(const std::string& object) const;
  /// Names of the links in group @p group, in HDF5's name order; empty when the group does not
  /// exist. Not collective.
  std::vector<std::string> members(const std::string& group) const;

  /// Write a dataset of shape @p dims (first dimension = rows) of which this rank holds rows
  /// [row_start, row_start+row_count) contiguous in @p data (row-major). @note Collective.
  void write_rows(const std::string& dset, const std::vector<std::uint64_t>& dims, std::uint64_t row_start,
                  std::uint64_t row_count, const double* data);
  void write_rows(const std::string& dset, const std::vector<std::uint64_t>& dims, std::uint64_t row_start,
                  std::uint64_t row_count, const std::int64_t* data);
  /// Write the block [start, start + count) (one entry per dimension) of dataset @p dset of shape
  /// @p dims, creating the dataset (and its groups) when it does not exist yet; @p data holds the
  /// block row-major. Lets a large dataset be written a piece at a time. A rank with nothing to
  /// write passes a zero count. @note Collective.
  void write_slab(const std::string& dset, const std::vector<std::uint64_t>& dims, const std::vector<std::uint64_t>& start,
                  const std::vector<std::uint64_t>& count, const double* data);
  /// Write a dataset every rank holds entirely (rank 0's copy is written). @note Collective.
  void write_replicated(const std::string& dset, const std::vector<std::uint64_t>& dims, const double* data);
  void write_replicated(const std::string& dset, const std::vector<std::uint64_t>& dims, const std::int64_t* data);
  void write_strings(const std::string& dset, const std::vector<std::string>& values);

  /// Attributes on a group or dataset (which must exist). @note Collective.
  void write_attribute(const std::string& object, const std::string& name, double value);
  void write_attribute(const std::string& object, const std::string& name, std::int64_t value);
  void write_attribute(const std::string& object, const std::string& name, const std::string& value);
  void write_attribute(const std::string& object, const std::string& name, const std::vector<double>& values);

  /// Shape of a dataset. Not collective.
  std::vector<std::uint64_t> shape(const std::string& dset) const;
  /// Read a whole dataset (every rank reads it). Not collective in HDF5 terms but every rank may call.
  std::vector<double> read_all(const std::string& dset) const;
  std::vector<std::int64_t> read_all_int(const std::string& dset) const;
  std::vector<std::string> read_strings(const std::string& dset) const;
  /// Read rows [row_start, row_start+row_count). @note Collective.
  std::vector<double> read_rows(const std::string& dset, std::uint64_t row_start, std::uint64_t row_count) const;
  double read_attribute_double(const std::string& object, const std::string& name) const;
  std::int64_t read_attribute_int(const std::string& object, const std::string& name) const;
  std::string read_attribute_string(const std::string& object, const std::string& name) const;

private:
  void write_rows_impl(const std::string& dset, const std::vector<std::uint64_t>& dims, std::uint64_t row_start,
                       std::uint64_t row_count, const void* data, hid_t mem_type, hid_t file_type);
  H5Id open_object(const std::string& object) const;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::string path_;
  H5Id file_;
};

} // namespace flexuq::io
