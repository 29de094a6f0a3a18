// SPDX-License-Identifier: MIT
#include "flexuq/fe/FrequencyModel.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/fe/ModeTracking.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/fe/ModesFile.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/MeshOutput.hpp"

#include <cmath>
#include <limits>

namespace flexuq::fe {

namespace {
std::unique_ptr<Component> affine_component(MPI_Comm comm, io::Mesh mesh, ComponentOptions component) {
  component.keep_affine = true;
  return std::make_unique<Component>(comm, std::move(mesh), component);
}
ComponentUpdate material_update(const Component& c, const std::vector<MaterialParameter>& parameters) {
  auto params = std::make_shared<const MaterialParametrisation>(c, parameters);
  return [params](Component& comp, const std::vector<double>& theta) { params->apply(comp, theta); };
}
} // namespace

FrequencyModel::FrequencyModel(MPI_Comm comm, io::Mesh mesh, ComponentOptions component, FrequencyModelOptions options)
    : FrequencyModel(comm, affine_component(comm, std::move(mesh), std::move(component)), nullptr, std::move(options)) {
  update_ = material_update(*comp_, opt_.parameters);
}

FrequencyModel::FrequencyModel(MPI_Comm comm, std::unique_ptr<Component> component, ComponentUpdate update,
                               FrequencyModelOptions options)
    : comm_(comm), opt_(std::move(options)), comp_(std::move(component)), update_(std::move(update)) {
  FLEXUQ_REQUIRE_OPTION(opt_.frequencies >= 1, "frequencies", "{} must be at least 1");
  ModeOptions mo;
  mo.count = opt_.frequencies + std::max(4, opt_.frequencies / 2); // margin for modes that swap order
  mo.constrained = comp_->has_fixed_nodes();
  mo.constraint_description = "the job's fixed sets";
  mo.progress = false;
  mo.tol = opt_.tol;
  solver_ = std::make_unique<ModeSolver>(mo);
  if (opt_.mode_shapes) layout_ = std::make_unique<NaturalLayout>(*comp_);
}

FrequencyModel::~FrequencyModel() = default;

std::map<std::string, std::vector<std::uint64_t>> FrequencyModel::field_dims() const {
  if (!opt_.mode_shapes) return {};
  return {{"mode_shapes",
           {comp_->mesh().num_nodes(), static_cast<std::uint64_t>(comp_->dofs().dofs_per_node()),
            static_cast<std::uint64_t>(opt_.frequencies)}}};
}

std::map<std::string, std::size_t> FrequencyModel::output_sizes() const {
  const auto n = static_cast<std::size_t>(opt_.frequencies);
  std::map<std::string, std::size_t> s{{"frequencies", n}, {"tracking_min_mac", 1}};
  if (opt_.mode_shapes)
    s["mode_shapes"] = comp_->mesh().num_nodes() * static_cast<std::size_t>(comp_->dofs().dofs_per_node()) * n;
  return s;
}

void FrequencyModel::write_field_support(const std::string& result_path, const std::string& field,
                                         const std::string& mean_dataset) const {
  const auto dims = field_dims().at(field);
  {
    io::H5File f(MPI_COMM_SELF, result_path, io::H5File::Mode::append);
    if (f.exists("/mesh")) return;
    io::write_mesh(f, comp_->mesh());
  }
  io::XdmfNodeField x{mean_dataset, static_cast<std::size_t>(dims[1]), static_cast<std::size_t>(dims[2]),
                      "mean_" + field, {}};
  io::write_xdmf_beside(result_path, comp_->mesh(), x);
}

void FrequencyModel::prepare(const std::vector<double>& nominal) {
  update_(*comp_, nominal);
  auto m = solver_->solve(comp_->K(), comp_->M());
  const int n = opt_.frequencies;
  FLEXUQ_REQUIRE_OPTION(static_cast<int>(m.eigenvalues.size()) >= n, "frequencies",
                        "reference solve returned fewer than {} modes");
  ref_.clear();
  for (int j = 0; j < n; ++j) ref_.push_back(std::move(m.vectors[static_cast<std::size_t>(j)]));
  cluster_.assign(n, 0);
  for (int j = 1; j < n; ++j)
    cluster_[j] = cluster_[j - 1] +
                  (m.multiplicity[j] > 1 && std::abs(m.eigenvalues[j] - m.eigenvalues[j - 1]) <= 1e-6 * m.eigenvalues[j] ? 0 : 1);
  M_ref_.reset();
  FLEXUQ_PETSC(MatDuplicate(comp_->M(), MAT_COPY_VALUES, M_ref_.out()));
}

Outputs FrequencyModel::evaluate(const std::vector<double>& theta) {
  FLEXUQ_REQUIRE(!ref_.empty(), "FrequencyModel::evaluate before prepare (no reference modes)");
  const int n = opt_.frequencies;
  update_(*comp_, theta);
  auto m = solver_->solve(comp_->K(), comp_->M());
  const int ns = static_cast<int>(m.eigenvalues.size());
  Eigen::MatrixXd C(n, ns);
  VecH w;
  FLEXUQ_PETSC(VecDuplicate(m.vectors[0].get(), w.out()));
  for (int k = 0; k < ns; ++k) {
    FLEXUQ_PETSC(MatMult(M_ref_.get(), m.vectors[k].get(), w.get()));
    PetscScalar nk = 0;
    FLEXUQ_PETSC(VecDot(w.get(), m.vectors[k].get(), &nk));
    for (int j = 0; j < n; ++j) {
      PetscScalar d = 0;
      FLEXUQ_PETSC(VecDot(w.get(), ref_[j].get(), &d));
      C(j, k) = PetscRealPart(d) / std::sqrt(PetscRealPart(nk));
    }
  }
  const auto tr = track_modes(C, cluster_, m.eigenvalues);
  Outputs out;
  auto& f = out["frequencies"];
  for (int j = 0; j < n; ++j) {
    const int s = tr.assignment[j];
    f.push_back(s < 0 ? std::numeric_limits<double>::quiet_NaN() : std::sqrt(m.eigenvalues[s]) / (2 * M_PI));
  }
  out["tracking_min_mac"] = {tr.min_mac};
  if (opt_.mode_shapes) out["mode_shapes"] = aligned_shapes(C, tr, m);
  return out;
}

/// The sample's modes aligned with the reference: per multiplet, the orthogonal Procrustes
/// rotation R = V Uᵀ of C_JS = U Σ Vᵀ maps the chosen sample modes onto the reference basis
/// (for a single mode, R is the sign). Gathered in input node order on the group's rank 0.
std::vector<double> FrequencyModel::aligned_shapes(const Eigen::MatrixXd& C, const TrackingResult& tr, const ModeSet& m) {
  const int n = opt_.frequencies;
  std::vector<VecH> aligned;
  int j = 0;
  while (j < n) {
    int k = j;
    while (k < n && cluster_[k] == cluster_[j]) ++k;
    std::vector<int> S;
    for (int r = j; r < k; ++r) S.push_back(tr.assignment[r]);
    Eigen::MatrixXd Cjs(k - j, static_cast<Eigen::Index>(S.size()));
    for (int r = j; r < k; ++r)
      for (std::size_t c = 0; c < S.size(); ++c) Cjs(r - j, static_cast<Eigen::Index>(c)) = S[c] < 0 ? 0.0 : C(r, S[c]);
    const Eigen::MatrixXd R = procrustes_rotation(Cjs); // |S| × |J|
    for (int r = j; r < k; ++r) {
      VecH v;
      FLEXUQ_PETSC(VecDuplicate(ref_[0].get(), v.out()));
      FLEXUQ_PETSC(VecZeroEntries(v.get()));
      for (std::size_t c = 0; c < S.size(); ++c)
        if (S[c] >= 0) FLEXUQ_PETSC(VecAXPY(v.get(), R(static_cast<Eigen::Index>(c), r - j), m.vectors[S[c]].get()));
      aligned.push_back(std::move(v));
    }
    j = k;
  }
  std::vector<Vec> raw;
  for (const auto& v : aligned) raw.push_back(v.get());
  const auto block = layout_->gather(raw);
  const int size = comm_.size(), rank = comm_.rank();
  const int mine = static_cast<int>(block.size());
  std::vector<int> counts(size), displs(size);
  FLEXUQ_MPI(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_.get()));
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<double> full(rank == 0 ? static_cast<std::size_t>(total) : 0);
  FLEXUQ_MPI(MPI_Gatherv(block.data(), mine, MPI_DOUBLE, full.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                         comm_.get()));
  return full;
}

} // namespace flexuq::fe
