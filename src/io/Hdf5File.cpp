// SPDX-License-Identifier: MIT
#include "flexuq/io/Hdf5File.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/io/InputFile.hpp"
#include "flexuq/io/Limits.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>

namespace flexuq::io {

namespace {
void check(herr_t e, const std::string& what, const std::string& path) {
  if (e < 0) throw Error("HDF5: " + what + " failed for '" + path + "'");
}
hid_t check_id(hid_t id, const std::string& what, const std::string& path) {
  if (id < 0) throw Error("HDF5: " + what + " failed for '" + path + "'");
  return id;
}
std::vector<hsize_t> to_h(const std::vector<std::uint64_t>& d) { return {d.begin(), d.end()}; }
} // namespace

H5Id::H5Id(hid_t id, Closer close) : id_(id), close_(close) {}
H5Id::H5Id(H5Id&& o) noexcept : id_(std::exchange(o.id_, -1)), close_(o.close_) {}
H5Id& H5Id::operator=(H5Id&& o) noexcept {
  std::swap(id_, o.id_);
  std::swap(close_, o.close_);
  return *this;
}
H5Id::~H5Id() {
  if (id_ >= 0 && close_) (void)close_(id_);
}

H5File::H5File(MPI_Comm comm, const std::string& path, Mode mode) : comm_(comm), path_(path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); // errors become exceptions, not stack dumps
  H5Id fapl(check_id(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate", path), H5Pclose);
  check(H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL), "H5Pset_fapl_mpio", path);
  hid_t f = -1;
  if (mode != Mode::create) { // an input: through the one checked path (io/InputFile.hpp), before MPI-IO opens it
    // (a FIFO would block every rank in the open, a device is read for ever)
    const InputCheck in = inspect_input(path);
    if (in.problem == InputProblem::special)
      throw InputError("cannot read '" + path + "': it " + in.reason + ": give the path of an HDF5 file");
  }
  if (mode == Mode::create)
    f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  else
    f = H5Fopen(path.c_str(), mode == Mode::read ? H5F_ACC_RDONLY : H5F_ACC_RDWR, fapl.get());
  if (f < 0 && mode == Mode::read) { // an input: say what is wrong with it, not with a folder
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw InputError("cannot read '" + path + "': no such file");
    if (S_ISDIR(st.st_mode)) throw InputError("cannot read '" + path + "': it is a directory, not an HDF5 file");
    throw InputError("cannot read '" + path + "': not an HDF5 file or truncated (" + std::to_string(st.st_size) +
                     " bytes; or another job is writing it)");
  }
  if (f < 0)
    throw Error(std::string("cannot ") + (mode == Mode::create ? "create" : "open") + " HDF5 file '" + path +
                "' (check the folder exists and is writable, and that no other job holds it open)");
  file_ = H5Id(f, H5Fclose);
}

void H5File::ensure_group(const std::string& group) {
  std::string cur;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    const std::size_t next = group.find('/', pos + 1);
    cur = group.substr(0, next);
    pos = next;
    if (cur.empty() || cur == "/") continue;
    if (H5Lexists(file_.get(), cur.c_str(), H5P_DEFAULT) > 0) continue;
    H5Id g(check_id(H5Gcreate2(file_.get(), cur.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "create group " + cur,
                    path_),
           H5Gclose);
  }
}

bool H5File::exists(const std::string& object) const {
  // Check each path component, as H5Lexists requires the parents to exist.
  std::size_t pos = 0;
  while (true) {
    const std::size_t next = object.find('/', pos + 1);
    const std::string cur = object.substr(0, next);
    if (!cur.empty() && cur != "/" && H5Lexists(file_.get(), cur.c_str(), H5P_DEFAULT) <= 0) return false;
    if (next == std::string::npos) return true;
    pos = next;
  }
}

void H5File::write_rows_impl(const std::string& dset, const std::vector<std::uint64_t>& dims, std::uint64_t row_start,
                             std::uint64_t row_count, const void* data, hid_t mem_type, hid_t file_type) {
  const auto slash = dset.find_last_of('/');
  if (slash != std::string::npos && slash > 0) ensure_group(dset.substr(0, slash));
  auto hd = to_h(dims);
  H5Id space(check_id(H5Screate_simple(static_cast<int>(hd.size()), hd.data(), nullptr), "H5Screate", path_), H5Sclose);
  H5Id ds(check_id(H5Dcreate2(file_.get(), dset.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   "create dataset " + dset, path_),
          H5Dclose);
  if (std::accumulate(hd.begin(), hd.end(), hsize_t{1}, std::multiplies<>()) == 0) return; // empty dataset
  std::vector<hsize_t> start(hd.size(), 0), count = hd;
  start[0] = row_start;
  count[0] = row_count;
  const bool empty = row_count == 0 || std::accumulate(hd.begin(), hd.end(), hsize_t{1}, std::multiplies<>()) == 0;
  if (empty)
    check(H5Sselect_none(space.get()), "H5Sselect_none", path_);
  else
    check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
          "select hyperslab of " + dset, path_);
  H5Id mem(check_id(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), "H5Screate", path_),
           H5Sclose);
  if (empty) check(H5Sselect_none(mem.get()), "H5Sselect_none", path_);
  H5Id dxpl(check_id(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate", path_), H5Pclose);
  check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio", path_);
  check(H5Dwrite(ds.get(), mem_type, mem.get(), space.get(), dxpl.get(), empty ? nullptr : data),
        "write dataset " + dset, path_);
}

void H5File::write_slab(const std::string& dset, const std::vector<std::uint64_t>& dims,
                        const std::vector<std::uint64_t>& start, const std::vector<std::uint64_t>& count,
                        const double* data) {
  FLEXUQ_REQUIRE(start.size() == dims.size() && count.size() == dims.size(),
                 path_ << ": " << dset << ": a block needs one start and one count per dimension");
  auto hd = to_h(dims);
  H5Id ds;
  if (exists(dset)) {
    FLEXUQ_REQUIRE(shape(dset) == dims, path_ << ": " << dset << " exists with another shape");
    ds = H5Id(check_id(H5Dopen2(file_.get(), dset.c_str(), H5P_DEFAULT), "open dataset " + dset, path_), H5Dclose);
  } else {
    const auto slash = dset.find_last_of('/');
    if (slash != std::string::npos && slash > 0) ensure_group(dset.substr(0, slash));
    H5Id space(check_id(H5Screate_simple(static_cast<int>(hd.size()), hd.data(), nullptr), "H5Screate", path_), H5Sclose);
    ds = H5Id(check_id(H5Dcreate2(file_.get(), dset.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT),
                       "create dataset " + dset, path_),
              H5Dclose);
  }
  H5Id space(check_id(H5Dget_space(ds.get()), "H5Dget_space", path_), H5Sclose);
  std::vector<hsize_t> st(start.begin(), start.end()), ct(count.begin(), count.end());
  bool empty = false;
  for (std::size_t k = 0; k < hd.size(); ++k) {
    FLEXUQ_REQUIRE(start[k] + count[k] <= dims[k], path_ << ": " << dset << ": block outside the dataset in dimension " << k);
    empty = empty || count[k] == 0;
  }
  if (empty)
    check(H5Sselect_none(space.get()), "H5Sselect_none", path_);
  else
    check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, st.data(), nullptr, ct.data(), nullptr),
          "select hyperslab of " + dset, path_);
  std::vector<hsize_t> mct = ct;
  for (auto& x : mct) x = std::max<hsize_t>(x, 1);
  H5Id mem(check_id(H5Screate_simple(static_cast<int>(mct.size()), mct.data(), nullptr), "H5Screate", path_), H5Sclose);
  if (empty) check(H5Sselect_none(mem.get()), "H5Sselect_none", path_);
  H5Id dxpl(check_id(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate", path_), H5Pclose);
  check(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio", path_);
  check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, mem.get(), space.get(), dxpl.get(), empty ? nullptr : data),
        "write dataset " + dset, path_);
}

void H5File::write_rows(const std::string& dset, const std::vector<std::uint64_t>& dims, std::uint64_t row_start,
                        std::uint64_t row_count, const double* data) {
  write_rows_impl(dset, dims, row_start, row_count, data, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE);
}
void H5File::write_rows(const std::string& dset, const std::vector<std::uint64_t>& dims, std::uint64_t row_start,
                        std::uint64_t row_count, const std::int64_t* data) {
  write_rows_impl(dset, dims, row_start, row_count, data, H5T_NATIVE_INT64, H5T_STD_I64LE);
}

void H5File::write_replicated(const std::string& dset, const std::vector<std::uint64_t>& dims, const double* data) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  write_rows(dset, dims, 0, rank == 0 && !dims.empty() ? dims[0] : 0, data);
}
void H5File::write_replicated(const std::string& dset, const std::vector<std::uint64_t>& dims,
                              const std::int64_t* data) {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  write_rows(dset, dims, 0, rank == 0 && !dims.empty() ? dims[0] : 0, data);
}

void H5File::write_strings(const std::string& dset, const std::vector<std::string>& values) {
  std::size_t width = 1;
  for (const auto& v : values) width = std::max(width, v.size() + 1);
  std::vector<char> buf(values.size() * width, '\0');
  for (std::size_t i = 0; i < values.size(); ++i) values[i].copy(buf.data() + i * width, values[i].size());
  H5Id type(check_id(H5Tcopy(H5T_C_S1), "H5Tcopy", path_), H5Tclose);
  check(H5Tset_size(type.get(), width), "H5Tset_size", path_);
  check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "H5Tset_strpad", path_);
  // Messages (failure reasons, labels) may hold non-ASCII characters (§, θ, …): declare UTF-8, of which ASCII is a
  // subset, so that h5py's .asstr() and other readers decode them.
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset", path_);
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  write_rows_impl(dset, {values.size()}, 0, rank == 0 ? values.size() : 0, buf.data(), type.get(), type.get());
}

std::vector<std::string> H5File::members(const std::string& group) const {
  std::vector<std::string> out;
  if (!exists(group)) return out;
  H5Id g(check_id(H5Gopen2(file_.get(), group.c_str(), H5P_DEFAULT), "open group " + group, path_), H5Gclose);
  H5G_info_t info;
  check(H5Gget_info(g.get(), &info), "H5Gget_info " + group, path_);
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t len = H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    FLEXUQ_REQUIRE(len >= 0, path_ << ": cannot list " << group);
    std::string name(static_cast<std::size_t>(len) + 1, '\0');
    H5Lget_name_by_idx(g.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
    name.resize(static_cast<std::size_t>(len));
    out.push_back(std::move(name));
  }
  return out;
}

H5Id H5File::open_object(const std::string& object) const {
  return H5Id(check_id(H5Oopen(file_.get(), object.c_str(), H5P_DEFAULT), "open " + object, path_), H5Oclose);
}

namespace {
void write_attr(hid_t obj, const std::string& name, hid_t type, hid_t space, const void* data, const std::string& path) {
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  H5Id a(check_id(H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "create attribute " + name, path),
         H5Aclose);
  check(H5Awrite(a.get(), type, data), "write attribute " + name, path);
}
} // namespace

void H5File::write_attribute(const std::string& object, const std::string& name, double value) {
  H5Id obj = open_object(object);
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  write_attr(obj.get(), name, H5T_NATIVE_DOUBLE, space.get(), &value, path_);
}
void H5File::write_attribute(const std::string& object, const std::string& name, std::int64_t value) {
  H5Id obj = open_object(object);
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  write_attr(obj.get(), name, H5T_NATIVE_INT64, space.get(), &value, path_);
}
void H5File::write_attribute(const std::string& object, const std::string& name, const std::string& value) {
  H5Id obj = open_object(object);
  H5Id space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), value.size() + 1);
  write_attr(obj.get(), name, type.get(), space.get(), value.c_str(), path_);
}
void H5File::write_attribute(const std::string& object, const std::string& name, const std::vector<double>& values) {
  H5Id obj = open_object(object);
  hsize_t n = values.size();
  H5Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  write_attr(obj.get(), name, H5T_NATIVE_DOUBLE, space.get(), values.data(), path_);
}

std::vector<std::uint64_t> H5File::shape(const std::string& dset) const {
  H5Id ds(check_id(H5Dopen2(file_.get(), dset.c_str(), H5P_DEFAULT), "open dataset " + dset, path_), H5Dclose);
  H5Id space(H5Dget_space(ds.get()), H5Sclose);
  const int nd = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> d(static_cast<std::size_t>(std::max(nd, 0)));
  H5Sget_simple_extent_dims(space.get(), d.data(), nullptr);
  return {d.begin(), d.end()};
}

namespace {
/// Entries of a dataset of shape @p d, times @p bytes each, checked for overflow and against the
/// memory available before anything is allocated (a file's dims may be anything: issue #11).
std::uint64_t checked_entries(const std::vector<std::uint64_t>& d, std::uint64_t bytes, const std::string& path,
                              const std::string& dset) {
  std::int64_t n = 1;
  for (auto x : d) {
    const auto next = x > static_cast<std::uint64_t>(INT64_MAX) ? std::nullopt : limits::mul(n, static_cast<std::int64_t>(x));
    if (!next || !limits::mul(*next, static_cast<std::int64_t>(bytes)))
      throw InputError(path + ": dataset " + dset + " is too large to read (its dimensions overflow 64 bits)");
    n = *next;
  }
  limits::require_memory(static_cast<double>(n) * static_cast<double>(bytes), path + ": reading dataset " + dset);
  return static_cast<std::uint64_t>(n);
}

template <class T>
std::vector<T> read_whole(hid_t file, const std::string& dset, hid_t mem_type, const std::string& path,
                          std::uint64_t n) {
  H5Id ds(check_id(H5Dopen2(file, dset.c_str(), H5P_DEFAULT), "open dataset " + dset, path), H5Dclose);
  std::vector<T> out(n);
  check(H5Dread(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), "read dataset " + dset, path);
  return out;
}
} // namespace

std::vector<double> H5File::read_all(const std::string& dset) const {
  const auto n = checked_entries(shape(dset), sizeof(double), path_, dset);
  return read_whole<double>(file_.get(), dset, H5T_NATIVE_DOUBLE, path_, n);
}
std::vector<std::int64_t> H5File::read_all_int(const std::string& dset) const {
  const auto n = checked_entries(shape(dset), sizeof(std::int64_t), path_, dset);
  return read_whole<std::int64_t>(file_.get(), dset, H5T_NATIVE_INT64, path_, n);
}

std::vector<std::string> H5File::read_strings(const std::string& dset) const {
  H5Id ds(check_id(H5Dopen2(file_.get(), dset.c_str(), H5P_DEFAULT), "open dataset " + dset, path_), H5Dclose);
  H5Id type(H5Dget_type(ds.get()), H5Tclose);
  const std::size_t width = H5Tget_size(type.get());
  const auto n = checked_entries({shape(dset).at(0)}, std::max<std::size_t>(width, 1), path_, dset);
  std::vector<char> buf(n * width);
  check(H5Dread(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), "read " + dset, path_);
  std::vector<std::string> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = std::string(buf.data() + i * width, strnlen(buf.data() + i * width, width));
  return out;
}

std::vector<double> H5File::read_rows(const std::string& dset, std::uint64_t row_start, std::uint64_t row_count) const {
  H5Id ds(check_id(H5Dopen2(file_.get(), dset.c_str(), H5P_DEFAULT), "open dataset " + dset, path_), H5Dclose);
  H5Id space(H5Dget_space(ds.get()), H5Sclose);
  const auto d = shape(dset);
  FLEXUQ_REQUIRE(!d.empty(), path_ << ": dataset " << dset << " is a scalar; rows need at least one dimension");
  std::vector<hsize_t> start(d.size(), 0), count(d.begin(), d.end());
  start[0] = row_start;
  count[0] = row_count;
  const std::uint64_t n = checked_entries({count.begin(), count.end()}, sizeof(double), path_, dset);
  std::vector<double> out(n);
  std::uint64_t total = 1;
  for (auto x : d) total *= x; // no overflow: checked_entries of these dims passed when they were written
  if (total == 0) return out; // nothing stored: a collective read of an unallocated dataset fails
  FLEXUQ_REQUIRE(row_start <= d[0] && row_count <= d[0] - row_start,
                 path_ << ": rows " << row_start << " + " << row_count << " of dataset " << dset << " are past its "
                       << d[0] << " rows");
  if (n == 0) {
    H5Sselect_none(space.get());
  } else {
    check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr), "select",
          path_);
  }
  H5Id mem(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
  if (n == 0) H5Sselect_none(mem.get());
  H5Id dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
  check(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, mem.get(), space.get(), dxpl.get(), n ? out.data() : nullptr),
        "read rows of " + dset, path_);
  return out;
}

double H5File::read_attribute_double(const std::string& object, const std::string& name) const {
  H5Id obj = open_object(object);
  H5Id a(check_id(H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT), "open attribute " + name, path_), H5Aclose);
  double v = 0;
  check(H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v), "read attribute " + name, path_);
  return v;
}
std::int64_t H5File::read_attribute_int(const std::string& object, const std::string& name) const {
  H5Id obj = open_object(object);
  H5Id a(check_id(H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT), "open attribute " + name, path_), H5Aclose);
  std::int64_t v = 0;
  check(H5Aread(a.get(), H5T_NATIVE_INT64, &v), "read attribute " + name, path_);
  return v;
}
std::string H5File::read_attribute_string(const std::string& object, const std::string& name) const {
  H5Id obj = open_object(object);
  H5Id a(check_id(H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT), "open attribute " + name, path_), H5Aclose);
  H5Id type(H5Aget_type(a.get()), H5Tclose);
  std::string s(H5Tget_size(type.get()), '\0');
  check(H5Aread(a.get(), type.get(), s.data()), "read attribute " + name, path_);
  return s.c_str();
}

} // namespace flexuq::io
