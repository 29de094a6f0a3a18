// SPDX-License-Identifier: MIT
#pragma once
/// @file BodyFile.hpp
/// @brief The body file (what `flexuq reduce` and `flexuq body-at` write, what `flexuq simulate`
/// reads): the one place that knows its layout (docs/hdf5-schema.md, sections `/reduced`, `/mesh`,
/// "Stochastic reduced body", "POD body"). Every other module reads and writes a body file through
/// this class and holds no dataset path of it:
/// - `/reduced`: the value cms::ReducedBody (K̄, M̄, labels, kinds, interface points, invariants,
///   floating frame, check-out), the basis rows (distributed or replicated), the stress modes, the
///   attributes `flexuq body-at` adds;
/// - `/mesh` as stored in a body file (written by io::write_mesh, the writer of every result's mesh;
///   read back as BodyMesh), its node ids and node sets;
/// - `/stochastic_body`: cms::StochasticBody, the expansions written by row blocks, the fitted
///   points, the Galerkin solve's datasets, and the POD body (cms::PodBody, its basis, spectra and
///   per-point tables).
/// No PETSc, no SLEPc: HDF5, MPI and Eigen only. A BodyFile opens a file or borrows an open io::H5File
/// (which may hold result layouts besides, e.g. the campaign statistics of a stochastic body).

#include "flexuq/cms/PodBody.hpp"
#include "flexuq/cms/ReducedBody.hpp"
#include "flexuq/cms/StochasticBody.hpp"
#include "flexuq/io/Hdf5File.hpp"

#include <Eigen/Dense>
#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace flexuq::io {
struct Mesh;
}

namespace flexuq::cms {

/// `/mesh` of a body file as stored (replicated, input node order, 0-based node indices).
struct BodyMesh {
  struct Elements {
    std::uint64_t nodes_per_element = 0;
    std::vector<std::int64_t> connectivity; ///< `/mesh/topology/<type>`, row-major (elements × nodes_per_element)
    std::vector<std::int64_t> ids;          ///< `/mesh/element_ids/<type>`
  };
  std::vector<double> geometry;                 ///< nodes × 3, row-major
  std::vector<std::int64_t> node_ids;           ///< labels of the input file
  std::map<std::string, Elements> elements;     ///< per element type name (tet4, hex20, beam2, …)
  std::vector<std::int64_t> topology_mixed;     ///< XDMF "Mixed" stream
  std::int64_t num_elements = 0;                ///< attribute `num_elements`
  std::string source;                           ///< attribute `source`
  std::map<std::string, std::vector<std::int64_t>> node_sets;
  std::size_t num_nodes() const { return node_ids.size(); }
};

/// Node coordinates and labels of a body file's mesh.
struct BodyMeshNodes {
  Eigen::MatrixXd coords;         ///< nodes × 3
  std::vector<std::int64_t> ids;  ///< node labels
};

/// The mesh's XDMF stream and cell count (what an animation of the body shows).
struct BodyMeshTopology {
  std::vector<std::int64_t> mixed;
  std::int64_t num_elements = 0;
};

class BodyFile {
public:
  using Mode = io::H5File::Mode;
  /// Open @p path on @p comm. @note Collective.
  BodyFile(MPI_Comm comm, const std::string& path, Mode mode = Mode::read);
  /// Borrow an open file (reads and writes).
  explicit BodyFile(io::H5File& f);
  /// Borrow an open file for reading only (the writers throw Error).
  explicit BodyFile(const io::H5File& f);
  BodyFile(const BodyFile&) = delete;
  BodyFile& operator=(const BodyFile&) = delete;

  const std::string& path() const { return file().path(); }
  const io::H5File& file() const { return *read_; }
  /// The file for the result layouts beside the body (campaign statistics, `/run`). Throws Error
  /// when the file was borrowed read-only.
  io::H5File& file_for_writing();

  // ---- what the file holds
  bool has_reduced() const;       ///< `/reduced/K`: a `flexuq reduce` / `body-at` result
  bool has_basis() const;         ///< `/reduced/basis`
  bool has_stress_modes() const;  ///< `/reduced/stress_modes`
  bool has_mesh() const;          ///< `/mesh`
  bool has_mesh_topology() const; ///< `/mesh/topology_mixed` (something to draw)
  bool is_stochastic() const;     ///< `/stochastic_body`
  bool is_pod() const;            ///< `/stochastic_body/pod/K_terms`: a POD body

  // ---- /reduced
  /// The value (no basis). InputError naming the file and dataset when something is missing or
  /// misshapen. @note Collective on the file.
  ReducedBody read_reduced() const;
  /// Every `/reduced` dataset and attribute of @p b except the basis. Same values on every rank.
  /// @note Collective.
  void write_reduced(const ReducedBody& b);
  /// A POD body-at file written before the POD invariants existed: `/reduced/K`, `M`,
  /// `checkout/free_free_reduced_hz` and the attribute `method` only.
  void write_reduced_matrices(const Eigen::MatrixXd& K, const Eigen::MatrixXd& M, const std::vector<double>& free_free_hz,
                              const std::string& method);
  /// The attributes `flexuq body-at` adds to `/reduced`: the body file it evaluated, θ and (not for a
  /// POD body) the germ ξ.
  void write_body_at_source(const std::string& source, const std::vector<double>& parameters,
                            const std::vector<double>* germ = nullptr);

  // ---- /reduced/basis (nodes × dofs per node × columns, input node order)
  /// Its shape; InputError naming the file when it is absent.
  std::vector<std::uint64_t> basis_shape() const;
  /// basis_shape, checked against @p nodes and @p columns (at least @p min_dofs_per_node per node):
  /// InputError "<file>: /reduced/basis is not nodes x dofs per node x <columns> columns".
  std::vector<std::uint64_t> basis_shape(std::uint64_t nodes, std::uint64_t columns, std::uint64_t min_dofs_per_node = 1) const;
  /// The whole basis on every rank (row-major). Not collective.
  std::vector<double> read_basis() const;
  /// Rows (nodes) [first, first + count), dofs per node × columns each. @note Collective.
  std::vector<double> read_basis_rows(std::uint64_t first, std::uint64_t count) const;
  /// Write the basis of shape @p dims of which this rank holds the nodes [first, first + count).
  /// @note Collective.
  void write_basis(const std::vector<std::uint64_t>& dims, std::uint64_t first, std::uint64_t count, const double* data);
  /// Write a basis every rank holds whole (rank 0's copy). @note Collective.
  void write_basis(const std::vector<std::uint64_t>& dims, const double* data);
  /// The `.xdmf` beside @p h5_path showing the basis columns on @p mesh (field `basis_vector`).
  /// Not collective: call on one rank.
  static void write_basis_xdmf(const std::string& h5_path, const io::Mesh& mesh, std::uint64_t dofs_per_node,
                               std::uint64_t columns);

  // ---- /reduced/stress_modes (nodes × 6 × columns, attribute `components`)
  /// Checked against @p nodes and @p columns: InputError "<file>: /reduced/stress_modes is not
  /// nodes x 6 x <columns> columns".
  std::vector<double> read_stress_modes(std::uint64_t nodes, std::uint64_t columns) const;
  /// @p components: the order of the six stress components (fe::kStressComponents). @note Collective.
  void write_stress_modes(std::uint64_t nodes, std::uint64_t columns, const std::vector<double>& S,
                          const std::string& components);

  // ---- /mesh
  /// io::write_mesh: the body's mesh as every result file holds it. @note Collective.
  void write_mesh(const io::Mesh& mesh);
  /// Copy `/mesh` of @p src here unchanged (body-at). Returns false when the copy failed; true when
  /// copied or when @p src has no mesh.
  bool copy_mesh_from(const BodyFile& src);
  /// All of `/mesh`. InputError naming the file when it has no mesh.
  BodyMesh read_mesh() const;
  /// Coordinates and node labels. InputError "<file>: /mesh/geometry or /mesh/node_ids is missing"
  /// when absent, "... does not match ..." when their sizes differ.
  BodyMeshNodes read_mesh_nodes() const;
  std::vector<double> read_mesh_geometry() const; ///< nodes × 3, row-major
  std::vector<std::int64_t> read_node_ids() const;
  BodyMeshTopology read_mesh_topology() const;
  std::vector<std::string> node_set_names() const; ///< HDF5 name order; empty without node sets
  bool has_node_set(const std::string& name) const;
  std::vector<std::int64_t> read_node_set(const std::string& name) const;
  /// read_node_set, every index checked to lie in [0, @p nodes): InputError naming the set.
  std::vector<std::int64_t> read_node_set(const std::string& name, std::uint64_t nodes) const;

  // ---- /stochastic_body
  /// `/stochastic_body` and `/reduced` (StochasticBody::read). InputError "missing … (not a
  /// stochastic body file …)" without it. @note Collective on the file.
  StochasticBody read_stochastic() const;
  /// Everything of @p b under `/stochastic_body` (the nominal body goes to write_reduced).
  void write_stochastic(const StochasticBody& b);
  /// Rows [first, first + count) of quantity @p name's expansion: @p coefficients P × (count · the
  /// entries per row), row-major; @p loo and @p loo_rms (count · entries per row) or null. The
  /// datasets have the shape of StochasticBody::write (@p dims: the quantity's shape).
  void write_expansion_rows(const std::string& name, std::uint64_t P, const std::vector<std::uint64_t>& dims,
                            std::uint64_t first, std::uint64_t count, const double* coefficients, const double* loo,
                            const double* loo_rms);
  /// `/stochastic_body/points/{index, germ, K, M}` of the successful points.
  void write_stochastic_points(const StochasticSamples& s);
  /// The group of the Galerkin solve (`reduce.stochastic.method: galerkin`), for the solve's
  /// attribute writer shared with the campaign's `/galerkin`.
  static std::string stochastic_galerkin_group();
  /// Its eigenvalue coefficients (P × modes), multi-indices and the attributes of the operator.
  void write_stochastic_galerkin(const Eigen::MatrixXd& eigenvalue_coefficients, const uq::MultiIndexSet& basis,
                                 std::int64_t operator_terms, std::int64_t constraint_pcg_iterations,
                                 double constraint_residual);

  // ---- /stochastic_body/pod
  PodBody read_pod() const;
  void write_pod(const PodBody& b);
  std::vector<std::uint64_t> pod_basis_shape() const;
  std::vector<double> read_pod_basis() const;
  /// V (nodes × dofs per node × r), replicated. @note Collective.
  void write_pod_basis(const std::vector<std::uint64_t>& dims, const double* data);
  /// Sample indices of the snapshot points.
  void write_pod_points(const std::vector<std::int64_t>& index);
  /// One family (`boundary`, `internal`): its normalised spectrum, snapshots and kept rank, lost energy.
  void write_pod_family(const std::string& family, const Eigen::VectorXd& sigma, std::int64_t snapshots,
                        std::int64_t rank, double energy_lost);
  void write_pod_truncation(const std::string& truncation);
  /// A per-point table @p name (N × m, row-major), e.g. `pod_free_free_frequencies`.
  void write_pod_point_table(const std::string& name, std::uint64_t N, std::uint64_t m, const double* values);
  /// The attributes of the projection: rank of V, affine check, free-free differences against CB.
  void write_pod_summary(std::int64_t rank, double affine_check, double max_free_free_relative_difference,
                         double max_free_free_above_cb);

private:
  io::H5File& writer();
  std::unique_ptr<io::H5File> own_;
  const io::H5File* read_ = nullptr;
  io::H5File* write_ = nullptr;
};

} // namespace flexuq::cms
