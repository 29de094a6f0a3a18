// SPDX-License-Identifier: MIT
#include "flexuq/campaign/Model.hpp"

#include "flexuq/campaign/ModeTracking.hpp"
#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/fe/ComponentConfig.hpp"
#include "flexuq/fe/Modes.hpp"
#include "flexuq/fe/ModesOutput.hpp"
#include "flexuq/io/Config.hpp"

#include <chrono>
#include <cmath>
#include <thread>
#include <limits>

namespace flexuq::campaign {

namespace {

// ---------------------------------------------------------------- analytic test functions ----
class AnalyticModel : public Model {
public:
  AnalyticModel(std::string fn, std::size_t dim, double threshold, double delay)
      : fn_(std::move(fn)), dim_(dim), threshold_(threshold), delay_(delay) {
    if (fn_ == "ishigami") FLEXUQ_REQUIRE(dim == 3, "model.function ishigami needs 3 parameters, got " << dim);
    if (fn_ == "oscillator") FLEXUQ_REQUIRE(dim == 2, "model.function oscillator needs 2 parameters (k, m), got " << dim);
  }
  std::map<std::string, std::size_t> output_sizes() const override {
    if (fn_ == "oscillator") return {{"omega2", 1}, {"omega", 1}};
    return {{"y", 1}};
  }
  Outputs evaluate(const std::vector<double>& x) override {
    // Test knob: pretend the model is expensive (kill-and-resume tests need time to kill).
    if (delay_ > 0) std::this_thread::sleep_for(std::chrono::duration<double>(delay_));
    if (fn_ == "ishigami") {
      // Ishigami & Homma: a = 7, b = 0.1 on [−π, π]³.
      return {{"y", {std::sin(x[0]) + 7.0 * std::pow(std::sin(x[1]), 2) + 0.1 * std::pow(x[2], 4) * std::sin(x[0])}}};
    }
    if (fn_ == "oscillator") {
      FLEXUQ_REQUIRE(x[1] > 0, "oscillator: mass must be positive, got " << x[1]);
      const double w2 = x[0] / x[1];
      return {{"omega2", {w2}}, {"omega", {std::sqrt(w2)}}};
    }
    double y = 0;
    for (std::size_t i = 0; i < x.size(); ++i) y += (i + 1.0) * x[i] + 0.5 * x[i] * x[i];
    if (fn_ == "failing") {
      // A deliberately failing model for tests: x0 above the threshold is "invalid input",
      // x0 below −threshold returns NaN (a diverged evaluation).
      FLEXUQ_REQUIRE(x[0] <= threshold_, "failing model: x0 = " << x[0] << " exceeds " << threshold_);
      if (x[0] < -threshold_) y = std::numeric_limits<double>::quiet_NaN();
    }
    return {{"y", {y}}};
  }

private:
  std::string fn_;
  std::size_t dim_;
  double threshold_;
  double delay_;
};

// ---------------------------------------------------------------- FE eigenfrequencies --------
class FeModel : public Model {
public:
  FeModel(MPI_Comm comm, const io::Config& cfg, const std::vector<std::string>& names,
          const std::map<std::string, std::string>& sets)
      : comm_(comm) {
    n_freq_ = cfg.get<int>("outputs.frequencies", 10);
    FLEXUQ_REQUIRE(n_freq_ >= 1, cfg.source() << ": outputs.frequencies must be at least 1");
    auto opts = fe::component_options(cfg);
    opts.keep_affine = true;
    comp_ = std::make_unique<fe::Component>(comm_.get(), fe::load_mesh(cfg), opts);
    nominal_.clear();
    for (const auto& g : comp_->groups()) nominal_.push_back(g.material);
    // Parameter → (kind, groups it acts on).
    for (const auto& name : names) {
      Target t;
      t.kind = kind_of(name, cfg);
      const auto it = sets.find(name);
      for (std::size_t g = 0; g < comp_->groups().size(); ++g) {
        if (it == sets.end() || comp_->groups()[g].material.name == "of element set " + io::upper(it->second))
          t.groups.push_back(static_cast<int>(g));
      }
      FLEXUQ_REQUIRE(!t.groups.empty(), cfg.source() << ": parameter " << name << " acts on element set '"
                                                     << (it == sets.end() ? "" : it->second)
                                                     << "', which has no material of its own: give it one under "
                                                        "model.materials."
                                                     << (it == sets.end() ? "" : it->second));
      targets_.push_back(t);
    }
    fe::ModeOptions mo;
    mo.count = n_freq_ + std::max(4, n_freq_ / 2); // margin for modes that swap order
    mo.constrained = comp_->has_fixed_nodes();
    mo.constraint_description = "the job's fixed sets";
    mo.progress = false;
    mo.tol = cfg.get<double>("modes.tol", 1e-10);
    solver_ = std::make_unique<fe::ModeSolver>(mo);
    mode_shapes_ = cfg.get<bool>("outputs.mode_shapes", false);
    if (mode_shapes_) layout_ = std::make_unique<fe::NaturalLayout>(*comp_);
  }

  std::map<std::string, std::vector<std::uint64_t>> field_dims() const override {
    if (!mode_shapes_) return {};
    return {{"mode_shapes",
             {comp_->mesh().num_nodes(), static_cast<std::uint64_t>(comp_->dofs().dofs_per_node()),
              static_cast<std::uint64_t>(n_freq_)}}};
  }
  const io::Mesh* mesh() const override { return &comp_->mesh(); }

  std::map<std::string, std::size_t> output_sizes() const override {
    std::map<std::string, std::size_t> s{{"frequencies", static_cast<std::size_t>(n_freq_)}, {"tracking_min_mac", 1}};
    if (mode_shapes_)
      s["mode_shapes"] = comp_->mesh().num_nodes() * static_cast<std::size_t>(comp_->dofs().dofs_per_node()) *
                         static_cast<std::size_t>(n_freq_);
    return s;
  }

  /// Solve at θ and keep the modes as the tracking reference.
  void set_reference(const std::vector<double>& theta) {
    apply(theta);
    auto m = solver_->solve(comp_->K(), comp_->M());
    FLEXUQ_REQUIRE(static_cast<int>(m.eigenvalues.size()) >= n_freq_,
                   "reference solve returned fewer than outputs.frequencies modes");
    ref_.clear();
    for (int j = 0; j < n_freq_; ++j) ref_.push_back(std::move(m.vectors[static_cast<std::size_t>(j)]));
    cluster_.assign(n_freq_, 0);
    for (int j = 1; j < n_freq_; ++j)
      cluster_[j] = cluster_[j - 1] + (m.multiplicity[j] > 1 && std::abs(m.eigenvalues[j] - m.eigenvalues[j - 1]) <=
                                                                 1e-6 * m.eigenvalues[j]
                                           ? 0
                                           : 1);
    M_ref_.reset();
    FLEXUQ_PETSC(MatDuplicate(comp_->M(), MAT_COPY_VALUES, M_ref_.out()));
  }

  Outputs evaluate(const std::vector<double>& theta) override {
    apply(theta);
    auto m = solver_->solve(comp_->K(), comp_->M());
    const int ns = static_cast<int>(m.eigenvalues.size());
    Eigen::MatrixXd C(n_freq_, ns);
    VecH w;
    FLEXUQ_PETSC(VecDuplicate(m.vectors[0].get(), w.out()));
    for (int k = 0; k < ns; ++k) {
      FLEXUQ_PETSC(MatMult(M_ref_.get(), m.vectors[k].get(), w.get()));
      PetscScalar nk = 0;
      FLEXUQ_PETSC(VecDot(w.get(), m.vectors[k].get(), &nk));
      for (int j = 0; j < n_freq_; ++j) {
        PetscScalar d = 0;
        FLEXUQ_PETSC(VecDot(w.get(), ref_[j].get(), &d));
        C(j, k) = PetscRealPart(d) / std::sqrt(PetscRealPart(nk));
      }
    }
    const auto tr = track_modes(C, cluster_, m.eigenvalues);
    Outputs out;
    auto& f = out["frequencies"];
    for (int j = 0; j < n_freq_; ++j) {
      const int s = tr.assignment[j];
      f.push_back(s < 0 ? std::numeric_limits<double>::quiet_NaN() : std::sqrt(m.eigenvalues[s]) / (2 * M_PI));
    }
    out["tracking_min_mac"] = {tr.min_mac};
    if (mode_shapes_) out["mode_shapes"] = aligned_shapes(C, tr, m);
    return out;
  }

  /// The sample's modes aligned with the reference: per multiplet, the orthogonal Procrustes
  /// rotation R = V Uᵀ of C_JS = U Σ Vᵀ maps the chosen sample modes onto the reference basis
  /// (for a single mode, R is the sign). Gathered in input node order on the group's rank 0.
  std::vector<double> aligned_shapes(const Eigen::MatrixXd& C, const TrackingResult& tr, const fe::ModeSet& m) {
    std::vector<VecH> aligned;
    int j = 0;
    while (j < n_freq_) {
      int k = j;
      while (k < n_freq_ && cluster_[k] == cluster_[j]) ++k;
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
    int size = 1, rank = 0;
    MPI_Comm_size(comm_.get(), &size);
    MPI_Comm_rank(comm_.get(), &rank);
    const int mine = static_cast<int>(block.size());
    std::vector<int> counts(size), displs(size);
    MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_.get());
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = total;
      total += counts[r];
    }
    std::vector<double> full(rank == 0 ? static_cast<std::size_t>(total) : 0);
    MPI_Gatherv(block.data(), mine, MPI_DOUBLE, full.data(), counts.data(), displs.data(), MPI_DOUBLE, 0, comm_.get());
    return full;
  }

private:
  struct Target {
    std::string kind;
    std::vector<int> groups;
  };
  static std::string kind_of(const std::string& name, const io::Config& cfg) {
    const std::string key = "parameters." + name + ".param";
    std::string k = cfg.has(key) ? cfg.get<std::string>(key) : name;
    FLEXUQ_REQUIRE(k == "E" || k == "nu" || k == "rho" || k == "G" || k == "C",
                   cfg.source() << ": parameter '" << name << "' must be one of E, nu, rho, G, C (or give param: E|nu|rho|G|C)");
    return k;
  }

  void apply(const std::vector<double>& theta) {
    std::vector<fe::IsoMaterial> mats = nominal_;
    std::vector<double> G(mats.size()), C(mats.size());
    std::vector<char> gc(mats.size(), 0);
    for (std::size_t g = 0; g < mats.size(); ++g) {
      G[g] = mats[g].G();
      C[g] = mats[g].E / (3 * (1 - 2 * mats[g].nu));
    }
    for (std::size_t p = 0; p < targets_.size(); ++p)
      for (int g : targets_[p].groups) {
        const auto& k = targets_[p].kind;
        if (k == "E") mats[g].E = theta[p];
        else if (k == "nu") mats[g].nu = theta[p];
        else if (k == "rho") mats[g].rho = theta[p];
        else if (k == "G") { G[g] = theta[p]; gc[g] = 1; }
        else if (k == "C") { C[g] = theta[p]; gc[g] = 1; }
      }
    for (std::size_t g = 0; g < mats.size(); ++g) {
      if (gc[g]) {
        FLEXUQ_REQUIRE(G[g] > 0 && C[g] > 0, "shear and bulk moduli must be positive (G = " << G[g] << ", C = " << C[g] << ")");
        mats[g].E = fe::youngs_from_shear_bulk(G[g], C[g]);
        mats[g].nu = fe::poisson_from_shear_bulk(G[g], C[g]);
      }
      mats[g] = fe::IsoMaterial::checked("material " + nominal_[g].name, mats[g].E, mats[g].nu, mats[g].rho);
    }
    comp_->set_materials(mats);
  }

  Comm comm_;
  int n_freq_ = 10;
  std::unique_ptr<fe::Component> comp_;
  std::vector<fe::IsoMaterial> nominal_;
  std::vector<Target> targets_;
  std::unique_ptr<fe::ModeSolver> solver_;
  std::vector<VecH> ref_;
  std::vector<int> cluster_;
  MatH M_ref_;
  bool mode_shapes_ = false;
  std::unique_ptr<fe::NaturalLayout> layout_;
};

} // namespace

std::unique_ptr<Model> make_model(MPI_Comm comm, const io::Config& cfg, const std::vector<std::string>& names,
                                  const std::map<std::string, std::string>& sets) {
  if (cfg.has("model.function")) {
    const auto fn = cfg.get<std::string>("model.function");
    FLEXUQ_REQUIRE(fn == "ishigami" || fn == "oscillator" || fn == "polynomial" || fn == "failing",
                   cfg.source() << ": unknown model.function '" << fn << "' (ishigami, oscillator, polynomial, failing)");
    return std::make_unique<AnalyticModel>(fn, names.size(), cfg.get<double>("model.threshold", 1.0),
                                           cfg.get<double>("model.delay_seconds", 0.0));
  }
  return std::make_unique<FeModel>(comm, cfg, names, sets);
}

void set_fe_reference(Model& m, const std::vector<double>& theta) {
  if (auto* fe = dynamic_cast<FeModel*>(&m)) fe->set_reference(theta);
}

} // namespace flexuq::campaign
