// SPDX-License-Identifier: MIT
#include "flexuq/campaign/Results.hpp"

#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/uq/StochasticSpace.hpp"

#include <cmath>
#include <limits>

namespace flexuq::campaign {

namespace {

using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// @p m as a dataset of shape rows × cols (HDF5 is row-major, Eigen column-major by default).
void write_matrix(io::H5File& f, const std::string& dset, const Eigen::MatrixXd& m) {
  const RowMajor r = m;
  f.write_replicated(dset, {static_cast<std::uint64_t>(r.rows()), static_cast<std::uint64_t>(r.cols())}, r.data());
}

void write_vector(io::H5File& f, const std::string& dset, const std::vector<double>& v) {
  f.write_replicated(dset, {v.size()}, v.data());
}

/// A node field (aligned mode shapes): mean and std per entry, from its running moments. Per-sample
/// fields stay in the journal (they would dwarf everything else here).
void write_field(io::H5File& f, const std::string& name, std::size_t n_out, const std::vector<std::uint64_t>& dims,
                 const FieldMoments& m) {
  std::vector<double> mean, sd(n_out, 0.0);
  if (m.base && !m.mean.empty() && m.base->size() == n_out) {
    // Column-scaled: value[k] = base[k]·s_j(θ), so mean[k] = base[k]·mean(s_j), std[k] = |base[k]|·std(s_j).
    const std::size_t n = m.mean.size();
    mean.resize(n_out);
    for (std::size_t k = 0; k < n_out; ++k) {
      mean[k] = (*m.base)[k] * m.mean[k % n];
      sd[k] = m.n > 1 ? std::abs((*m.base)[k]) * std::sqrt(m.m2[k % n] / static_cast<double>(m.n - 1)) : 0.0;
    }
  } else {
    mean = m.mean;
    mean.resize(n_out, 0.0);
    for (std::size_t k = 0; k < n_out && k < m.m2.size(); ++k)
      sd[k] = m.n > 1 ? std::sqrt(m.m2[k] / static_cast<double>(m.n - 1)) : 0.0;
  }
  const std::string g = "/statistics/" + name;
  f.write_replicated(g + "/mean", dims, mean.data());
  f.write_replicated(g + "/std", dims, sd.data());
  f.write_attribute(g, "samples_used", m.n);
  f.write_attribute(g, "layout", std::string("nodes x dofs_per_node x tracked modes, input node order; each "
                                              "sample's modes aligned with the reference (Procrustes per multiplet)"));
}

void write_summary(io::H5File& f, const std::string& name, const uq::OutputSummary& s, std::size_t d) {
  const std::string g = "/statistics/" + name;
  if (!s.loo_orders.empty()) {
    write_vector(f, g + "/pce_loo_orders", s.loo_orders);
    write_vector(f, g + "/pce_loo", s.loo);
  }
  write_vector(f, g + "/mean", s.mean);
  write_vector(f, g + "/std", s.std);
  write_vector(f, g + "/skewness", s.skewness);
  write_vector(f, g + "/kurtosis", s.kurtosis);
  write_matrix(f, g + "/quantiles", s.quantiles);
  write_vector(f, g + "/quantile_levels", s.quantile_levels);
  write_matrix(f, g + "/pdf_grid", s.pdf_grid);
  write_matrix(f, g + "/pdf", s.pdf);
  f.write_attribute(g, "moments_from", s.moments_from);
  f.write_attribute(g, "pce", s.pce_note);
  if (!s.has_pce) return;
  write_matrix(f, g + "/sobol_first", s.sobol_first);
  write_matrix(f, g + "/sobol_total", s.sobol_total);
  const std::string pg = "/pce/" + name;
  write_matrix(f, pg + "/coefficients", s.pce.coefficients());
  const auto P = static_cast<std::size_t>(s.pce.coefficients().rows());
  std::vector<std::int64_t> mi(P * d);
  for (std::size_t t = 0; t < P; ++t)
    for (std::size_t i = 0; i < d; ++i) mi[t * d + i] = s.pce.basis()(static_cast<int>(t), static_cast<int>(i));
  f.write_replicated(pg + "/multi_indices", {P, d}, mi.data());
  f.write_attribute(pg, "fit", s.pce_note);
  f.write_attribute(pg, "order", static_cast<std::int64_t>(s.pce_order()));
}

void write_parameters(io::H5File& f, const std::vector<ParameterSpec>& params) {
  std::vector<std::string> names, dists;
  for (const auto& p : params) {
    names.push_back(p.name);
    dists.push_back(p.dist.describe());
  }
  f.write_strings("/parameters/names", names);
  f.write_strings("/parameters/distributions", dists);
}

} // namespace

void FieldMoments::add(const std::vector<double>& v) {
  if (n == 0) {
    mean.assign(v.size(), 0.0);
    m2.assign(v.size(), 0.0);
  }
  ++n;
  for (std::size_t k = 0; k < v.size(); ++k) {
    const double d = v[k] - mean[k];
    mean[k] += d / static_cast<double>(n);
    m2[k] += d * (v[k] - mean[k]);
  }
}

std::vector<SampleRecord> read_records(const std::string& dir, const FieldInfo& fields,
                                       std::map<std::string, FieldMoments>& moments) {
  std::vector<SampleRecord> records;
  for (const auto& where : Journal::locate(dir)) {
    records.push_back(Journal::read_at(where));
    auto& r = records.back();
    for (const auto& [name, dims] : fields.dims) {
      std::size_t n_out = 1;
      for (auto d : dims) n_out *= static_cast<std::size_t>(d);
      const auto cs = fields.column_scaled.find(name);
      if (cs != fields.column_scaled.end() && cs->second) {
        // Journaled as column factors: their moments, expanded with the base when written (write_field).
        const auto jt = r.outputs.find(column_scale_output(name));
        if (jt == r.outputs.end()) {
          r.outputs.erase(name); // a whole field from another build's journal: not mixed into the factors' moments
          continue;
        }
        if (r.status == 0 && !jt->second.empty() && dims.back() == jt->second.size() && cs->second->size() == n_out) {
          auto& m = moments[name];
          m.base = cs->second;
          m.add(jt->second);
        }
        r.outputs.erase(jt);
        continue;
      }
      const auto it = r.outputs.find(name);
      if (it == r.outputs.end()) continue;
      if (r.status == 0 && it->second.size() == n_out) moments[name].add(it->second);
      r.outputs.erase(it);
    }
  }
  return records;
}

void write_expansion_results(io::H5File& f, const std::vector<ParameterSpec>& params, const std::string& method,
                             const std::map<std::string, uq::OutputSummary>& summaries) {
  write_parameters(f, params);
  f.ensure_group("/samples");
  f.write_attribute("/samples", "completed", std::int64_t{0});
  f.write_attribute("/samples", "failed", std::int64_t{0});
  f.write_attribute("/samples", "total", std::int64_t{0});
  f.write_attribute("/samples", "final", std::int64_t{1});
  f.write_attribute("/samples", "method", method);
  f.ensure_group("/statistics");
  for (const auto& [name, s] : summaries) {
    f.ensure_group("/statistics/" + name);
    f.write_attribute("/statistics/" + name, "samples_used", std::int64_t{0});
    write_summary(f, name, s, params.size());
  }
}

std::map<std::string, uq::OutputSummary> write_results(const std::string& path, const Plan& plan,
                                                       const std::vector<SampleRecord>& records,
                                                       const std::map<std::string, std::size_t>& sizes, bool final,
                                                       const FieldInfo& fields,
                                                       const std::map<std::string, FieldMoments>& moments) {
  std::map<std::string, uq::OutputSummary> summaries;
  std::vector<std::pair<std::string, std::string>> field_means; // (field, dataset) written
  const std::size_t N = plan.size(), d = plan.params.size();
  {
    io::H5File f(MPI_COMM_SELF, path, io::H5File::Mode::create);
    write_parameters(f, plan.params);
    write_matrix(f, "/samples/germ", plan.germ);
    write_matrix(f, "/samples/parameters", plan.theta);
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
    std::int64_t n_ok = 0, n_failed = 0;
    for (auto s : status) {
      if (s == 0) ++n_ok;
      if (s == 1) ++n_failed;
    }
    f.ensure_group("/statistics");
    f.write_attribute("/samples", "completed", n_ok);
    f.write_attribute("/samples", "failed", n_failed);
    f.write_attribute("/samples", "total", static_cast<std::int64_t>(N));
    f.write_attribute("/samples", "final", static_cast<std::int64_t>(final ? 1 : 0));
    f.write_attribute("/samples", "method", plan.method);
    f.write_attribute("/samples", "fingerprint", plan.fingerprint);

    uq::StochasticSpace space;
    for (const auto& p : plan.params) space.add(p.name, p.dist);
    uq::SummaryOptions so;
    so.method = plan.method;
    so.pce = plan.pce;

    for (const auto& [name, n_out] : sizes) {
      const auto field = fields.dims.find(name);
      if (field != fields.dims.end()) {
        const auto m = moments.find(name); // none: no successful sample had the field
        write_field(f, name, n_out, field->second, m != moments.end() ? m->second : FieldMoments{});
        field_means.emplace_back(name, "/statistics/" + name + "/mean");
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
      // Projection needs every quadrature node; with failed nodes the summary falls back to regression.
      so.weights = ok_rows.size() == N ? plan.weights : std::vector<double>{};
      const auto s = uq::summarize(space, X, Y, so);
      write_summary(f, name, s, d);
      summaries.emplace(name, s);
    }
  }
  if (fields.support)
    for (const auto& [name, dataset] : field_means) fields.support(path, name, dataset);
  return summaries;
}

} // namespace flexuq::campaign
