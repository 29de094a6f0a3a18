// SPDX-License-Identifier: MIT
// Sample runs:
//   mpirun -n 4 build/bin/flexuq campaign configs/crank-uq.yaml            # 4 ranks, 2 per sample
//   mpirun -n 4 build/bin/flexuq campaign configs/crank-uq.yaml --resume   # after a kill / time-out
#include "flexuq/campaign/Campaign.hpp"

#include "flexuq/campaign/Model.hpp"
#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Error.hpp"
#include "flexuq/core/Log.hpp"
#include "flexuq/core/Signals.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/io/MeshOutput.hpp"
#include "flexuq/uq/Kde.hpp"
#include "flexuq/uq/MultiIndexSet.hpp"
#include "flexuq/uq/Pce.hpp"
#include "flexuq/uq/Quadrature.hpp"
#include "flexuq/uq/RunningStats.hpp"
#include "flexuq/uq/Sampler.hpp"
#include "flexuq/uq/StochasticSpace.hpp"

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/archive/text_iarchive.hpp>
#include <boost/archive/text_oarchive.hpp>
#include <boost/serialization/map.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace boost::serialization {
template <class Archive> void serialize(Archive& ar, flexuq::campaign::SampleRecord& r, const unsigned int /*version*/) {
  ar& r.index& r.status& r.reason& r.outputs& r.seconds& r.group;
}
} // namespace boost::serialization

namespace flexuq::campaign {

namespace {

constexpr std::uint32_t kMagic = 0x46585152; // "FXQR"

std::uint64_t fnv1a(const char* p, std::size_t n) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ull;
  }
  return h;
}

uq::Distribution parse_distribution(const io::Config& c, const std::string& key) {
  const std::string d = c.get<std::string>(key + ".dist");
  auto num = [&](const char* k) { return c.get<double>(key + "." + k); };
  auto has = [&](const char* k) { return c.has(key + "." + k); };
  if (d == "normal") return uq::Distribution::normal(num("mean"), num("std"));
  if (d == "lognormal") {
    // Moment-matched from mean and std (seed 000: the table's "mean/std" are those of the
    // log-normal variable itself), or given by the parameters of the underlying normal.
    if (has("mu_ln")) return uq::Distribution::lognormal(num("mu_ln"), num("sigma_ln"));
    return uq::Distribution::lognormal_from_moments(num("mean"), num("std"));
  }
  if (d == "uniform") return uq::Distribution::uniform(num("low"), num("high"));
  if (d == "beta") return uq::Distribution::beta(num("alpha"), num("beta"), num("low"), num("high"));
  if (d == "gamma") return uq::Distribution::gamma(num("shape"), num("scale"), has("loc") ? num("loc") : 0.0);
  if (d == "truncated_normal")
    return uq::Distribution::truncated_normal(num("mean"), num("std"), num("low"), num("high"));
  throw InputError(c.source() + ": " + key + ".dist '" + d +
                   "' is not one of normal, lognormal, uniform, beta, gamma, truncated_normal");
}

uq::SamplingMethod sampling_method(const std::string& m, const std::string& src) {
  if (m == "monte-carlo") return uq::SamplingMethod::MonteCarlo;
  if (m == "lhs") return uq::SamplingMethod::LatinHypercube;
  if (m == "sobol") return uq::SamplingMethod::Sobol;
  throw InputError(src + ": sampling '" + m + "' is not one of monte-carlo, lhs, sobol");
}

std::string node_text(const YAML::Node& n) {
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

void make_dirs(const std::string& d) { ::mkdir(d.c_str(), 0755); }

} // namespace

// ------------------------------------------------------------------------------------ plan ----
Plan make_plan(const io::Config& c) {
  Plan p;
  FLEXUQ_REQUIRE(c.has("parameters"), c.source() << ": a campaign needs a 'parameters' section");
  std::ostringstream fp;
  for (const auto& kv : c.node("parameters")) {
    ParameterSpec s;
    s.name = kv.first.as<std::string>();
    s.dist = parse_distribution(c, "parameters." + s.name);
    if (c.has("parameters." + s.name + ".set")) s.set = c.get<std::string>("parameters." + s.name + ".set");
    c.mark_used("parameters." + s.name);
    p.params.push_back(s);
    fp << s.name << ":" << s.dist.describe() << "@" << s.set << ";";
  }
  const int d = static_cast<int>(p.params.size());
  FLEXUQ_REQUIRE(d >= 1, c.source() << ": 'parameters' is empty");
  p.method = c.get<std::string>("method.type", "monte-carlo");
  p.seed = c.get<std::uint64_t>("campaign.seed", 42);
  p.ranks_per_sample = c.get<int>("campaign.ranks_per_sample", 1);
  p.checkpoint_every = c.get<int>("campaign.checkpoint_every", 10);
  p.output = c.get<std::string>("output", "campaign.h5");
  FLEXUQ_REQUIRE(p.ranks_per_sample >= 1, c.source() << ": campaign.ranks_per_sample must be >= 1");
  FLEXUQ_REQUIRE(p.checkpoint_every >= 1, c.source() << ": campaign.checkpoint_every must be >= 1");
  uq::StochasticSpace space;
  for (const auto& s : p.params) space.add(s.name, s.dist);

  // PCE settings (pce and collocation; sampling methods use them for the Sobol' surrogate).
  if (c.has("method.pce.order")) {
    const auto o = c.node("method.pce.order").as<std::string>();
    p.order = o == "auto" ? -1 : std::stoi(o);
  }
  p.max_order = c.get<int>("method.pce.max_order", p.order > 0 ? p.order : 3);
  p.fit = c.get<std::string>("method.pce.fit", p.method == "collocation" ? "projection" : "regression");
  p.sampling = c.get<std::string>("method.pce.sampling", "lhs");
  FLEXUQ_REQUIRE(p.fit == "regression" || p.fit == "projection",
                 c.source() << ": method.pce.fit must be regression or projection, got '" << p.fit << "'");
  FLEXUQ_REQUIRE(p.max_order >= 1 && p.max_order <= 12, c.source() << ": method.pce.max_order must be in [1, 12]");

  const bool sampling_type = p.method == "monte-carlo" || p.method == "lhs" || p.method == "sobol";
  if (sampling_type || (p.method == "pce" && p.fit == "regression")) {
    const std::string how = sampling_type ? p.method : p.sampling;
    const int P = uq::MultiIndexSet::total_degree_size(d, p.order > 0 ? p.order : p.max_order);
    const int n_default = sampling_type ? 100 : 2 * P + 1;
    const int n = c.get<int>("method.samples", n_default);
    FLEXUQ_REQUIRE(n >= 2, c.source() << ": method.samples must be at least 2");
    uq::Sampler sampler(sampling_method(how, c.source()), d, p.seed, static_cast<std::uint64_t>(n));
    p.germ = space.germ_from_uniform(sampler.samples(0, static_cast<std::uint64_t>(n)));
    fp << "sampling:" << how << ":" << n << ":" << p.seed << ";";
  } else if (p.method == "pce" || p.method == "collocation") {
    // Projection on a quadrature rule: Smolyak sparse grid (default) or tensor Gauss.
    const std::string grid = c.get<std::string>("method.pce.grid", "sparse");
    uq::Quadrature q;
    if (grid == "sparse") {
      const int level = c.get<int>("method.pce.level", p.max_order);
      q = space.sparse_grid(level);
      fp << "sparse:" << level << ";";
    } else if (grid == "tensor") {
      const int n = c.get<int>("method.pce.points", p.max_order + 1);
      q = space.gauss_rule(n);
      fp << "tensor:" << n << ";";
    } else {
      throw InputError(c.source() + ": method.pce.grid must be sparse or tensor, got '" + grid + "'");
    }
    p.fit = "projection";
    p.germ = q.points;
    p.weights.assign(q.weights.data(), q.weights.data() + q.weights.size());
  } else {
    throw InputError(c.source() + ": method.type '" + p.method +
                     "' is not one of monte-carlo, lhs, sobol, collocation, pce");
  }
  p.theta = space.from_germ(p.germ);
  fp << "method:" << p.method << ":" << p.fit << ":" << p.order << ":" << p.max_order << ";";
  fp << "model:" << node_text(c.root()["model"]) << ";outputs:" << node_text(c.root()["outputs"]);
  const std::string s = fp.str();
  std::ostringstream h;
  h << std::hex << fnv1a(s.data(), s.size());
  p.fingerprint = h.str();
  return p;
}

// --------------------------------------------------------------------------------- journal ----
Journal::Journal(const std::string& path) : path_(path) {
  f_ = std::fopen(path.c_str(), "ab");
  if (!f_) throw Error("cannot open campaign journal '" + path + "' for appending");
}
Journal::~Journal() {
  if (f_) std::fclose(f_);
}

void Journal::append(const SampleRecord& r) {
  std::ostringstream os(std::ios::binary);
  {
    boost::archive::binary_oarchive ar(os, boost::archive::no_header);
    ar << r;
  }
  const std::string payload = os.str();
  const std::uint64_t size = payload.size(), sum = fnv1a(payload.data(), payload.size());
  bool ok = std::fwrite(&kMagic, sizeof kMagic, 1, f_) == 1 && std::fwrite(&size, sizeof size, 1, f_) == 1 &&
            std::fwrite(payload.data(), 1, payload.size(), f_) == payload.size() &&
            std::fwrite(&sum, sizeof sum, 1, f_) == 1;
  ok = ok && std::fflush(f_) == 0 && ::fsync(::fileno(f_)) == 0;
  if (!ok) throw Error("cannot write campaign journal '" + path_ + "' (disk full?)");
}

std::vector<SampleRecord> Journal::read_all(const std::string& dir) {
  std::vector<SampleRecord> out;
  DIR* dp = ::opendir(dir.c_str());
  if (!dp) return out;
  std::vector<std::string> files;
  while (dirent* e = ::readdir(dp)) {
    const std::string n = e->d_name;
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".rec") == 0) files.push_back(dir + "/" + n);
  }
  ::closedir(dp);
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    while (true) {
      std::uint32_t magic = 0;
      std::uint64_t size = 0, sum = 0;
      if (!in.read(reinterpret_cast<char*>(&magic), sizeof magic) || magic != kMagic) break;
      if (!in.read(reinterpret_cast<char*>(&size), sizeof size) || size > (1ull << 32)) break;
      std::string payload(size, '\0');
      if (!in.read(payload.data(), static_cast<std::streamsize>(size))) break;
      if (!in.read(reinterpret_cast<char*>(&sum), sizeof sum) || sum != fnv1a(payload.data(), payload.size())) break;
      std::istringstream is(payload, std::ios::binary);
      boost::archive::binary_iarchive ar(is, boost::archive::no_header);
      SampleRecord r;
      ar >> r;
      out.push_back(std::move(r));
    }
  }
  // One record per sample (a sample can appear twice only if a run died between finishing and
  // the scheduler noticing; keep the first).
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  out.erase(std::unique(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.index == b.index; }),
            out.end());
  return out;
}

// ----------------------------------------------------------------------------- statistics ----
void write_results(const std::string& path, const Plan& plan, const std::vector<SampleRecord>& records,
                   const std::map<std::string, std::size_t>& sizes, bool final, const FieldInfo& fields) {
  const std::size_t N = plan.size(), d = plan.params.size();
  io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::create);
  std::vector<std::string> names;
  for (const auto& p : plan.params) names.push_back(p.name);
  f.write_strings("/parameters/names", names);
  std::vector<std::string> dists;
  for (const auto& p : plan.params) dists.push_back(p.dist.describe());
  f.write_strings("/parameters/distributions", dists);
  std::vector<double> rowmajor(N * d);
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < d; ++j) rowmajor[i * d + j] = plan.germ(i, j);
  f.write_replicated("/samples/germ", {N, d}, rowmajor.data());
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < d; ++j) rowmajor[i * d + j] = plan.theta(i, j);
  f.write_replicated("/samples/parameters", {N, d}, rowmajor.data());
  if (!plan.weights.empty()) f.write_replicated("/samples/weights", {N}, plan.weights.data());
  std::vector<std::int64_t> status(N, 2); // 2 = not run
  std::vector<std::string> reasons(N);
  std::vector<double> seconds(N, 0.0);
  for (const auto& r : records) {
    status[r.index] = r.status;
    reasons[r.index] = r.reason;
    seconds[r.index] = r.seconds;
  }
  f.write_replicated("/samples/status", {N}, status.data());
  f.write_strings("/samples/failure_reason", reasons);
  f.write_replicated("/samples/seconds", {N}, seconds.data());
  long long n_ok = 0, n_failed = 0;
  for (auto s : status) (s == 0 ? n_ok : (s == 1 ? n_failed : n_ok)) += (s == 2 ? 0 : 1);
  f.ensure_group("/statistics");
  f.write_attribute("/samples", "completed", static_cast<std::int64_t>(n_ok));
  f.write_attribute("/samples", "failed", static_cast<std::int64_t>(n_failed));
  f.write_attribute("/samples", "total", static_cast<std::int64_t>(N));
  f.write_attribute("/samples", "final", static_cast<std::int64_t>(final ? 1 : 0));
  f.write_attribute("/samples", "method", plan.method);
  f.write_attribute("/samples", "fingerprint", plan.fingerprint);

  uq::StochasticSpace space;
  for (const auto& p : plan.params) space.add(p.name, p.dist);
  const std::vector<double> levels{0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99};

  for (const auto& [name, n_out] : sizes) {
    const auto field = fields.dims.find(name);
    if (field != fields.dims.end()) {
      // A node field (aligned mode shapes): mean and std per entry, in sample order (Welford),
      // with the mesh and an XDMF of the mean so ParaView shows it. Per-sample fields stay in the
      // journal (they would dwarf everything else here).
      std::vector<double> mean(n_out, 0.0), m2(n_out, 0.0);
      std::int64_t n = 0;
      for (const auto& r : records) {
        if (r.status != 0) continue;
        const auto it = r.outputs.find(name);
        if (it == r.outputs.end() || it->second.size() != n_out) continue;
        ++n;
        for (std::size_t k = 0; k < n_out; ++k) {
          const double d = it->second[k] - mean[k];
          mean[k] += d / static_cast<double>(n);
          m2[k] += d * (it->second[k] - mean[k]);
        }
      }
      std::vector<double> sd(n_out, 0.0);
      for (std::size_t k = 0; k < n_out; ++k) sd[k] = n > 1 ? std::sqrt(m2[k] / static_cast<double>(n - 1)) : 0.0;
      const std::string g = "/statistics/" + name;
      f.write_replicated(g + "/mean", field->second, mean.data());
      f.write_replicated(g + "/std", field->second, sd.data());
      f.write_attribute(g, "samples_used", n);
      f.write_attribute(g, "layout", std::string("nodes x dofs_per_node x tracked modes, input node order; each "
                                                  "sample's modes aligned with the reference (Procrustes per multiplet)"));
      if (fields.mesh && !f.exists("/mesh")) {
        io::write_mesh(f, *fields.mesh);
        io::XdmfNodeField x{g + "/mean", static_cast<std::size_t>(field->second[1]),
                            static_cast<std::size_t>(field->second[2]), "mean_" + name, {}};
        io::write_xdmf_beside(path, *fields.mesh, x);
      }
      continue;
    }
    // Outputs of every sample (NaN where failed or not run), in sample order.
    std::vector<double> all(N * n_out, std::numeric_limits<double>::quiet_NaN());
    std::vector<std::size_t> ok_rows;
    for (const auto& r : records) {
      if (r.status != 0) continue;
      const auto it = r.outputs.find(name);
      if (it == r.outputs.end() || it->second.size() != n_out) continue;
      std::copy(it->second.begin(), it->second.end(), all.begin() + static_cast<std::ptrdiff_t>(r.index * n_out));
      ok_rows.push_back(r.index);
    }
    f.write_replicated("/outputs/" + name, {N, n_out}, all.data());
    const std::string g = "/statistics/" + name;
    f.ensure_group(g);
    f.write_attribute(g, "samples_used", static_cast<std::int64_t>(ok_rows.size()));
    if (ok_rows.size() < 2) continue;
    Eigen::MatrixXd Y(ok_rows.size(), n_out), X(ok_rows.size(), d);
    for (std::size_t r = 0; r < ok_rows.size(); ++r) {
      for (std::size_t k = 0; k < n_out; ++k) Y(r, k) = all[ok_rows[r] * n_out + k];
      X.row(r) = plan.germ.row(ok_rows[r]);
    }
    // --- PCE ---
    uq::Pce pce;
    bool have_pce = false;
    std::string pce_note;
    try {
      if (plan.fit == "projection" && ok_rows.size() == N) {
        const int p = plan.order > 0 ? plan.order : plan.max_order;
        uq::Quadrature q;
        q.points = plan.germ;
        q.weights = Eigen::Map<const Eigen::VectorXd>(plan.weights.data(), static_cast<Eigen::Index>(N));
        pce = uq::Pce::fit_projection(space.families(), uq::MultiIndexSet::total_degree(static_cast<int>(d), p), q, Y);
        have_pce = true;
        pce_note = "projection";
      } else {
        // Regression (also the fallback when quadrature nodes failed): order by LOO.
        uq::OrderSelection sel;
        const int pmin = plan.order > 0 ? plan.order : 1, pmax = plan.order > 0 ? plan.order : plan.max_order;
        if (uq::MultiIndexSet::total_degree_size(static_cast<int>(d), pmin) < static_cast<int>(ok_rows.size())) {
          pce = uq::Pce::fit_regression_select_order(space.families(), X, Y, pmin, pmax, &sel);
          have_pce = true;
          pce_note = "regression";
          std::vector<double> o(sel.orders.begin(), sel.orders.end());
          f.write_replicated(g + "/pce_loo_orders", {o.size()}, o.data());
          f.write_replicated(g + "/pce_loo", {sel.loo.size()}, sel.loo.data());
        }
      }
    } catch (const Error& e) {
      pce_note = std::string("no PCE: ") + e.what();
    }
    // --- moments, quantiles, pdf: from the PCE surrogate for pce/collocation, else from samples ---
    const bool surrogate = have_pce && (plan.method == "pce" || plan.method == "collocation");
    Eigen::MatrixXd S = Y;
    if (surrogate) {
      uq::Sampler mc(uq::SamplingMethod::MonteCarlo, static_cast<int>(d), plan.seed + 7777, 0);
      S = pce.evaluate(space.germ_from_uniform(mc.samples(0, 100000)));
    }
    std::vector<double> mean(n_out), stdv(n_out), skew(n_out), kurt(n_out), quant(levels.size() * n_out), grid(200 * n_out),
        pdf(200 * n_out);
    for (std::size_t k = 0; k < n_out; ++k) {
      // Stable one-pass moments merged block by block in sample order (Pébay), so the result does
      // not depend on how samples were spread over ranks.
      uq::RunningStats total;
      for (Eigen::Index b = 0; b < S.rows(); b += 64) {
        uq::RunningStats blk;
        for (Eigen::Index r = b; r < std::min<Eigen::Index>(S.rows(), b + 64); ++r) blk.add(S(r, k));
        total.merge(blk);
      }
      mean[k] = total.mean();
      stdv[k] = total.std();
      skew[k] = total.skewness();
      kurt[k] = total.kurtosis();
      if (surrogate) { // exact moments of the expansion for mean and std
        mean[k] = pce.mean()(static_cast<Eigen::Index>(k));
        stdv[k] = std::sqrt(pce.variance()(static_cast<Eigen::Index>(k)));
      }
      std::vector<double> col(S.col(static_cast<Eigen::Index>(k)).data(), S.col(static_cast<Eigen::Index>(k)).data() + S.rows());
      const auto q = uq::sample_quantiles(col, levels);
      for (std::size_t l = 0; l < levels.size(); ++l) quant[l * n_out + k] = q[l];
      const double lo = total.min(), hi = total.max(), pad = 0.1 * (hi - lo + 1e-300);
      Eigen::VectorXd gr = Eigen::VectorXd::LinSpaced(200, lo - pad, hi + pad);
      Eigen::VectorXd dens = stdv[k] > 0 ? uq::kde_gaussian(S.col(static_cast<Eigen::Index>(k)), gr)
                                         : Eigen::VectorXd::Zero(200);
      for (int i = 0; i < 200; ++i) {
        grid[static_cast<std::size_t>(i) * n_out + k] = gr[i];
        pdf[static_cast<std::size_t>(i) * n_out + k] = dens[i];
      }
    }
    f.write_replicated(g + "/mean", {n_out}, mean.data());
    f.write_replicated(g + "/std", {n_out}, stdv.data());
    f.write_replicated(g + "/skewness", {n_out}, skew.data());
    f.write_replicated(g + "/kurtosis", {n_out}, kurt.data());
    f.write_replicated(g + "/quantiles", {levels.size(), n_out}, quant.data());
    f.write_replicated(g + "/quantile_levels", {levels.size()}, levels.data());
    f.write_replicated(g + "/pdf_grid", {200, n_out}, grid.data());
    f.write_replicated(g + "/pdf", {200, n_out}, pdf.data());
    f.write_attribute(g, "moments_from", std::string(surrogate ? "pce surrogate (1e5 points; mean/std exact)" : "samples"));
    f.write_attribute(g, "pce", pce_note);
    if (have_pce) {
      const Eigen::MatrixXd s1 = pce.sobol_first(), st = pce.sobol_total(); // d × n_out
      std::vector<double> a(d * n_out), b(d * n_out);
      for (std::size_t i = 0; i < d; ++i)
        for (std::size_t k = 0; k < n_out; ++k) {
          a[i * n_out + k] = s1(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k));
          b[i * n_out + k] = st(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k));
        }
      f.write_replicated(g + "/sobol_first", {d, n_out}, a.data());
      f.write_replicated(g + "/sobol_total", {d, n_out}, b.data());
      const auto& C = pce.coefficients();
      const std::size_t P = static_cast<std::size_t>(C.rows());
      std::vector<double> coef(P * n_out);
      std::vector<std::int64_t> mi(P * d);
      for (std::size_t t = 0; t < P; ++t) {
        for (std::size_t k = 0; k < n_out; ++k) coef[t * n_out + k] = C(static_cast<Eigen::Index>(t), static_cast<Eigen::Index>(k));
        for (std::size_t i = 0; i < d; ++i) mi[t * d + i] = pce.basis()(static_cast<int>(t), static_cast<int>(i));
      }
      f.write_replicated("/pce/" + name + "/coefficients", {P, n_out}, coef.data());
      f.write_replicated("/pce/" + name + "/multi_indices", {P, d}, mi.data());
      f.write_attribute("/pce/" + name, "fit", pce_note);
      int order = 0;
      for (int t = 0; t < pce.basis().size(); ++t) order = std::max(order, pce.basis().degree(t));
      f.write_attribute("/pce/" + name, "order", static_cast<std::int64_t>(order));
    }
  }
}

// ------------------------------------------------------------------------------------- run ----
void run_campaign(MPI_Comm comm_in, const io::Config& cfg, bool resume) {
  Comm world(comm_in);
  MPI_Comm wc = world.get();
  signals::StopOnSignal stop_guard; // SIGUSR1/SIGTERM: finish the samples in flight, checkpoint, exit 75
  const int rank = world.rank(), size = world.size();
  const Plan plan = make_plan(cfg);
  std::vector<std::string> names;
  std::map<std::string, std::string> sets;
  std::vector<double> theta_mean;
  for (const auto& p : plan.params) {
    names.push_back(p.name);
    if (!p.set.empty()) sets[p.name] = p.set;
    theta_mean.push_back(p.dist.mean());
  }
  FLEXUQ_REQUIRE(size % plan.ranks_per_sample == 0 || size < plan.ranks_per_sample,
                 "campaign.ranks_per_sample = " << plan.ranks_per_sample << " does not divide the " << size
                                                << " ranks (the last group would be smaller)");
  const int rps = std::min(plan.ranks_per_sample, size);
  int group_index = 0;
  Comm group = world.split_groups(rps, &group_index);
  const bool leader = group.rank() == 0;
  const int n_groups = size / rps;

  // The model on this group's communicator; FE models solve the reference (parameter means) once.
  auto model = make_model(group.get(), cfg, names, sets);
  cfg.check_all_used();
  const auto sizes = model->output_sizes();
  const FieldInfo fields{model->field_dims(), model->mesh()};

  const std::string dir = plan.output + ".journal";
  const std::string state_path = dir + "/state.txt";
  // --- state: fingerprint and run counter (rank 0), checked on resume ---
  std::string err;
  int run_id = 0;
  int lock_fd = -1;
  std::vector<SampleRecord> done;
  if (rank == 0) {
    std::ifstream st(state_path);
    if (st) {
      std::string fp;
      int runs = 0;
      {
        boost::archive::text_iarchive ar(st);
        ar >> fp >> runs;
      }
      if (!resume)
        err = "results of an earlier run of this campaign exist in " + dir +
              " (" + std::to_string(Journal::read_all(dir).size()) +
              " samples): run with --resume to continue it, or remove that folder to start afresh";
      else if (fp != plan.fingerprint)
        err = "the job changed since the interrupted run (samples or model differ: fingerprint " + plan.fingerprint +
              " vs " + fp + "); restore the job file or remove " + dir + " to start afresh";
      run_id = runs;
      if (err.empty()) done = Journal::read_all(dir);
    } else if (resume) {
      err = "--resume: nothing to resume in " + dir + " (no earlier run of this job)";
    }
    if (err.empty()) {
      make_dirs(dir);
      // One run at a time per campaign: a lock held by rank 0 for the whole run (released by the
      // kernel if the job dies), so a resume cannot race with ranks of a run that is still alive.
      lock_fd = ::open((dir + "/lock").c_str(), O_CREAT | O_RDWR, 0644);
      if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX | LOCK_NB) != 0)
        err = "another run of this campaign is still active (" + dir +
              "/lock is held); wait for it to end or kill all of its ranks before --resume";
    }
    if (err.empty()) {
      std::ofstream out(state_path);
      boost::archive::text_oarchive ar(out);
      const int runs = run_id + 1;
      ar << plan.fingerprint << runs;
    }
  }
  broadcast(wc, err);
  FLEXUQ_REQUIRE(err.empty(), err);
  MPI_Bcast(&run_id, 1, MPI_INT, 0, wc);
  // Pending sample indices (same list on every rank).
  std::vector<char> is_done(plan.size(), 0);
  long long n_done = static_cast<long long>(done.size());
  {
    std::vector<std::uint64_t> idx;
    for (const auto& r : done) idx.push_back(r.index);
    long long n = static_cast<long long>(idx.size());
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, wc);
    idx.resize(static_cast<std::size_t>(n));
    if (n) MPI_Bcast(idx.data(), static_cast<int>(n), MPI_UINT64_T, 0, wc);
    for (auto i : idx) is_done[i] = 1;
    n_done = n;
  }
  std::vector<std::uint64_t> pending;
  for (std::size_t i = 0; i < plan.size(); ++i)
    if (!is_done[i]) pending.push_back(i);
  log::info(wc, "flexuq campaign: " + std::to_string(plan.size()) + " samples (" + plan.method + ", " +
                    std::to_string(plan.params.size()) + " parameters), " + std::to_string(n_groups) + " group(s) of " +
                    std::to_string(rps) + " rank(s)" +
                    (n_done ? ", resuming: " + std::to_string(n_done) + " already done" : ""));

  set_fe_reference(*model, theta_mean);

  // --- dynamic scheduling: an atomic counter in an MPI window on rank 0 ---
  long long* counter = nullptr;
  MPI_Win win;
  FLEXUQ_MPI(MPI_Win_allocate(rank == 0 ? sizeof(long long) : 0, sizeof(long long), MPI_INFO_NULL, wc, &counter, &win));
  if (rank == 0) *counter = 0;
  MPI_Barrier(wc);
  std::unique_ptr<Journal> journal;
  if (leader)
    journal = std::make_unique<Journal>(dir + "/run" + std::to_string(run_id) + "-group" + std::to_string(group_index) + ".rec");
  log::Progress progress(wc, "campaign", static_cast<long long>(pending.size()), 2.0);
  const auto t_start = std::chrono::steady_clock::now();
  long long mine = 0, failed_here = 0;
  while (true) {
    long long pos = 0;
    if (leader) {
      // A stop signal pushes the counter past the end: every group stops after its sample in flight.
      const bool stop = signals::stop_requested() != 0;
      const long long one = stop ? static_cast<long long>(pending.size()) + 1 : 1;
      FLEXUQ_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
      FLEXUQ_MPI(MPI_Fetch_and_op(&one, &pos, MPI_LONG_LONG, 0, 0, MPI_SUM, win));
      FLEXUQ_MPI(MPI_Win_unlock(0, win));
      if (stop) pos = static_cast<long long>(pending.size());
    }
    MPI_Bcast(&pos, 1, MPI_LONG_LONG, 0, group.get());
    if (pos >= static_cast<long long>(pending.size())) break;
    const std::uint64_t i = pending[static_cast<std::size_t>(pos)];
    SampleRecord rec;
    rec.index = i;
    rec.group = group_index;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<double> th(plan.theta.cols());
    for (Eigen::Index j = 0; j < plan.theta.cols(); ++j) th[j] = plan.theta(static_cast<Eigen::Index>(i), j);
    try {
      rec.outputs = model->evaluate(th);
      for (const auto& [k, v] : rec.outputs)
        for (double x : v)
          if (!std::isfinite(x)) throw Error("output '" + k + "' is not finite (NaN or Inf)");
    } catch (const std::exception& e) {
      rec.status = 1;
      rec.reason = e.what();
      rec.outputs.clear();
      ++failed_here;
    }
    rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (leader) {
      journal->append(rec);
      if (rec.status) {
        std::fprintf(stderr, "flexuq campaign: sample %llu failed: %s\n", static_cast<unsigned long long>(i),
                     rec.reason.c_str());
      }
    }
    ++mine;
    if (rank == 0) {
      progress.update(std::max(0LL, pos + 1 - (n_groups - 1)));
      if (mine % plan.checkpoint_every == 0) {
        // Checkpoint: a readable partial result file from every journal written so far.
        write_results(plan.output, plan, Journal::read_all(dir), sizes, false, fields);
      }
    }
  }
  journal.reset();
  MPI_Win_free(&win);
  MPI_Barrier(wc);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  const long long failed = allreduce_sum(wc, leader ? failed_here : 0LL);
  const long long evaluated = allreduce_sum(wc, leader ? mine : 0LL);
  const bool complete = n_done + evaluated == static_cast<long long>(plan.size());
  if (!complete) signals::mark_stopped_early(); // only a stop signal ends the loop early
  if (rank == 0) {
    const auto records = Journal::read_all(dir);
    write_results(plan.output, plan, records, sizes, complete, fields);
    long long total_failed = 0;
    for (const auto& r : records) total_failed += r.status != 0;
    std::ostringstream os;
    os << "  evaluated " << evaluated << " sample(s) in " << std::fixed << std::setprecision(2) << elapsed << " s ("
       << (evaluated ? elapsed * n_groups / static_cast<double>(evaluated) : 0.0) << " s per sample per group); "
       << records.size() << "/" << plan.size() << " done, " << total_failed << " failed (" << failed
       << " in this run)\n";
    io::H5File f(MPI_COMM_SELF, plan.output, io::H5File::Mode::read);
    for (const auto& [name, n] : sizes) {
      const std::string g = "/statistics/" + name;
      if (!f.exists(g + "/mean") || fields.dims.count(name)) continue;
      const auto mean = f.read_all(g + "/mean"), sd = f.read_all(g + "/std");
      os << "  " << name << ":";
      for (std::size_t k = 0; k < std::min<std::size_t>(n, 10); ++k)
        os << " " << std::setprecision(6) << std::defaultfloat << mean[k] << " ± " << std::setprecision(3) << sd[k] << (k + 1 < std::min<std::size_t>(n, 10) ? "," : "");
      os << "\n";
    }
    os << "  results: " << plan.output << " (journal: " << dir << ")";
    if (!complete)
      os << "\n  stopped on " << signals::signal_name(signals::stop_requested()) << " after the samples in flight: partial "
         << "results; run again with --resume to finish (exit status " << signals::kExitResumable << ")";
    if (lock_fd >= 0) ::close(lock_fd);
    std::printf("%s\n", os.str().c_str());
    std::fflush(stdout);
  }
}

} // namespace flexuq::campaign
