// SPDX-License-Identifier: MIT
// The discrete adjoint of the index-3 generalized-α scheme for the full and the reduced model
// (ident/Adjoint.hpp; seed 003 ch. 6, digest V17).
#include "flexuq/ident/Adjoint.hpp"

#include "flexuq/core/Error.hpp"
#include "flexuq/rom/ReducedConstraints.hpp"

#include <ctime>
#include <memory>
#include <optional>
#include <cmath>
#include <sstream>

namespace flexuq::ident {

namespace {

/// Processor time of this process (the timings are compared under a shared machine's load).
struct Clock {
  using time_point = std::clock_t;
  static time_point now() { return std::clock(); }
};
double seconds_since(Clock::time_point t0) { return static_cast<double>(Clock::now() - t0) / CLOCKS_PER_SEC; }

/// One system in the model's coordinates: the full one (x = q) or the reduced one (q̃ = V x + R0,
/// residual Vᵀ R, constraints Γᵀ C, multipliers Γ λ_l).
class Discrete {
public:
  Discrete(const mbs::System& sys, const rom::ReducedBasis* b) : sys_(sys), b_(b) {
    if (b) rc_.emplace(sys, b->V, b->gamma);
  }
  const mbs::System& system() const { return sys_; }
  int size() const { return b_ ? b_->r() : sys_.n(); }
  int rows() const { return b_ ? b_->l() : sys_.m(); }
  Vec q(const Vec& x) const { return b_ ? Vec(b_->V * x + b_->R0) : x; }
  Vec up(const Vec& x) const { return b_ ? Vec(b_->V * x) : x; }           ///< V x (rates)
  Vec down(const Vec& f) const { return b_ ? Vec(b_->V.transpose() * f) : f; } ///< Vᵀ f
  Vec lambda(const Vec& l) const { return b_ ? Vec(b_->gamma * l) : l; }
  Vec rows_down(const Vec& c) const { return b_ ? Vec(b_->gamma.transpose() * c) : c; }

  /// At the full-space state (q̃, q̃̇, q̃̈) = (@p qq, @p v, @p a): @p f = M q̃̈ + C_qᵀ(Γ)λ − Q (n, not yet
  /// projected) and @p g = (Γᵀ) C (the model's rows), from one pass over the constraint rows.
  void parts(const Vec& qq, const Vec& v, const Vec& a, const Vec& lam, double t, Vec& f, Vec& g) const {
    Vec ctl;
    if (rc_)
      rc_->residual(qq, t, lam, g, ctl); // Γᵀ C and C_qᵀΓλ_l contracted directly (rom/ReducedConstraints.hpp)
    else
      sys_.constraint_residual(qq, t, lam, ctl, g);
    f = sys_.mass_times(qq, a) + ctl - sys_.forces(qq, v, t);
  }
  /// R = M ẍ + Gᵀλ − Q in the model's coordinates (and, if @p g is given, the constraints g(x)).
  Vec residual(const Vec& x, const Vec& xd, const Vec& xdd, const Vec& lam, double t, Vec* g = nullptr) const {
    Vec f, ph;
    parts(q(x), up(xd), up(xdd), lam, t, f, ph);
    if (g) *g = std::move(ph);
    return down(f);
  }
  Mat jacobian(const Vec& x, double t) const {
    if (rc_) return rc_->jacobian(q(x), t); // Γᵀ C_q V without the m × n C_q
    return sys_.jacobian(q(x), t);
  }
  Mat mass(const Vec& x) const {
    const Mat mm = sys_.mass(q(x));
    if (!b_) return mm;
    return b_->V.transpose() * mm * b_->V;
  }
  Vec gamma(const Vec& x, const Vec& xd, double t) const { return rows_down(sys_.gamma(q(x), up(xd), t)); }
  /// R_x and R_ẋ by central differences: the reduced model column by column (V couples everything);
  /// the full one by groups of bodies (colouring()), whose columns touch disjoint rows.
  void partials(const Vec& x, const Vec& xd, const Vec& xdd, const Vec& lam, double t, Mat& rx, Mat& rv) const {
    const int n = size();
    rx = Mat::Zero(n, n);
    rv = Mat::Zero(n, n);
    const Vec q0 = q(x);
    // Only Q depends on ẋ.
    auto force = [&](const Vec& vv) { return Vec(-down(sys_.forces(q0, up(vv), t))); };
    if (b_) {
      // Columns V_i of the full-space state perturbed (q̃ ± e V_i, q̃̇ ± e V_i), the full-space residuals'
      // differences collected and projected by one product with Vᵀ.
      const int nf = sys_.n();
      const Vec vf = up(xd), af = up(xdd);
      Mat fx(nf, n), fv(nf, n);
      Vec fp, fm, g;
      for (int i = 0; i < n; ++i) {
        const auto vi = b_->V.col(i);
        const double e = 1e-6 * std::max(1.0, std::abs(x(i)));
        parts(Vec(q0 + e * vi), vf, af, lam, t, fp, g);
        parts(Vec(q0 - e * vi), vf, af, lam, t, fm, g);
        fx.col(i) = (fp - fm) / (2 * e);
        const double ev = 1e-6 * std::max(1.0, std::abs(xd(i)));
        fv.col(i) = (sys_.forces(q0, vf - ev * vi, t) - sys_.forces(q0, vf + ev * vi, t)) / (2 * ev);
      }
      rx.noalias() = b_->V.transpose() * fx;
      rv.noalias() = b_->V.transpose() * fv;
      return;
    }
    const auto& groups = colouring(x, xd, xdd, lam, t);
    for (const auto& grp : groups) {
      int width = 0;
      for (int b : grp) width = std::max(width, body_size(b));
      for (int j = 0; j < width; ++j) {
        Vec xp = x, xm = x, vp = xd, vm = xd, ex = Vec::Zero(n), evv = Vec::Zero(n);
        for (int b : grp) {
          if (j >= body_size(b)) continue;
          const int i = sys_.offset(b) + j;
          ex(i) = 1e-6 * std::max(1.0, std::abs(x(i)));
          evv(i) = 1e-6 * std::max(1.0, std::abs(xd(i)));
          xp(i) += ex(i);
          xm(i) -= ex(i);
          vp(i) += evv(i);
          vm(i) -= evv(i);
        }
        const Vec dr = residual(xp, xd, xdd, lam, t) - residual(xm, xd, xdd, lam, t);
        const Vec df = force(vp) - force(vm);
        for (int b : grp) {
          if (j >= body_size(b)) continue;
          const int i = sys_.offset(b) + j;
          for (int c : touched_[static_cast<std::size_t>(b)]) {
            const int o = sys_.offset(c), w = body_size(c);
            rx.block(o, i, w, 1) = dr.segment(o, w) / (2 * ex(i));
            rv.block(o, i, w, 1) = df.segment(o, w) / (2 * evv(i));
          }
        }
      }
    }
  }

private:
  int bodies() const { return static_cast<int>(sys_.bodies().size()); }
  int body_size(int b) const { return sys_.body_model(b).n_coordinates(); }
  /// Groups of bodies whose residual rows do not overlap: body b's coordinates change the rows of the
  /// bodies touched_[b], found by perturbing b's coordinates and rates at a generic state (a random
  /// offset to λ, so that no row's multiplier hides a coupling) and comparing the residual block by
  /// block (unchanged blocks are bit-for-bit equal: they are computed from the same numbers).
  const std::vector<std::vector<int>>& colouring(const Vec& x, const Vec& xd, const Vec& xdd, const Vec& lam,
                                                 double t) const {
    if (!groups_.empty()) return groups_;
    const int nb = bodies();
    const Vec lr = lam + Vec::Constant(lam.size(), 1.0) + Vec::LinSpaced(lam.size(), 0.1, 0.9);
    const Vec r0 = residual(x, xd, xdd, lr, t);
    touched_.assign(static_cast<std::size_t>(nb), {});
    for (int b = 0; b < nb; ++b) {
      Vec xp = x, vp = xd;
      for (int j = 0; j < body_size(b); ++j) {
        xp(sys_.offset(b) + j) += 1e-3 * (1 + 0.1 * j);
        vp(sys_.offset(b) + j) += 1e-3 * (1 + 0.1 * j);
      }
      const Vec r1 = residual(xp, vp, xdd, lr, t);
      for (int c = 0; c < nb; ++c) {
        const int o = sys_.offset(c), w = body_size(c);
        if (c == b || r1.segment(o, w) != r0.segment(o, w)) touched_[static_cast<std::size_t>(b)].push_back(c);
      }
    }
    std::vector<std::vector<char>> rows_of; // per group: the row blocks its bodies touch
    for (int b = 0; b < nb; ++b) {
      std::size_t g = 0;
      for (; g < groups_.size(); ++g) {
        bool free = true;
        for (int c : touched_[static_cast<std::size_t>(b)]) free = free && !rows_of[g][static_cast<std::size_t>(c)];
        if (free) break;
      }
      if (g == groups_.size()) {
        groups_.emplace_back();
        rows_of.emplace_back(static_cast<std::size_t>(nb), 0);
      }
      groups_[g].push_back(b);
      for (int c : touched_[static_cast<std::size_t>(b)]) rows_of[g][static_cast<std::size_t>(c)] = 1;
    }
    return groups_;
  }

  const mbs::System& sys_;
  const rom::ReducedBasis* b_;
  mutable std::optional<rom::ReducedConstraints> rc_; ///< the reduced model's constraint operators (work arrays)
  mutable std::vector<std::vector<int>> groups_;
  mutable std::vector<std::vector<int>> touched_;
};

/// The state y_k = (x, ẋ, ẍ, a, λ) at one time.
struct StepState {
  Vec x, xd, xdd, acc, lam;
};

/// The consistent initial positions and velocities of @p sys (sets its active rows). The full model:
/// mbs::Integrator::initialise. The reduced one needs only (q_0, q̇_0) of the full model (its own
/// (ẍ_0, λ_0) come from the reduced saddle system, initial_state()), so not the full (q̈, λ) solve nor
/// its regularity test (a full-pivoting LU of the (n + m) saddle matrix, 14 % of a reduced gradient
/// that takes 2 p + 1 of them): initialise's first half, mbs::Integrator::assemble (rows' selection,
/// minimum-norm Newton assembly, normalisation, the dropped rows' check, velocity projection). Every
/// reduced run here (cost, the p ± δ systems) starts so.
mbs::State assembled(mbs::System& sys, const Problem& pr) {
  mbs::SolverOptions o = pr.solver;
  o.stabilized = false;
  mbs::Integrator integ(sys, o);
  mbs::State s;
  if (!pr.basis) {
    integ.initialise(s);
    return s;
  }
  integ.assemble(s);
  FLEXUQ_REQUIRE(static_cast<int>(pr.basis->rows.size()) == sys.m() && pr.basis->n() == sys.n(),
                 "identification: the reduced model was built for " << pr.basis->n() << " coordinates and "
                 << pr.basis->rows.size() << " active rows; the system at these parameters has " << sys.n()
                 << " and " << sys.m());
  return s;
}

/// The initial state y_0 in the model's coordinates from the full (q_0, q̇_0) of assembled(): the
/// reduction x_0 = Vᵀ(q_0 − R0), ẋ_0 = Vᵀq̇_0 and (ẍ_0, λ_0) from the model's own saddle system.
StepState initial_state(const Discrete& d, const mbs::State& s, const Problem& pr) {
  StepState y;
  y.x = pr.basis ? Vec(pr.basis->V.transpose() * (s.q - pr.basis->R0)) : s.q;
  y.xd = d.down(s.v);
  const int n = d.size(), l = d.rows();
  Mat a = Mat::Zero(n + l, n + l);
  a.topLeftCorner(n, n) = d.mass(y.x);
  const Mat g = d.jacobian(y.x, s.t);
  a.topRightCorner(n, l) = g.transpose();
  a.bottomLeftCorner(l, n) = g;
  Vec rhs(n + l);
  rhs.head(n) = -d.residual(y.x, y.xd, Vec::Zero(n), Vec::Zero(l), s.t);
  rhs.tail(l) = d.gamma(y.x, y.xd, s.t);
  Eigen::FullPivLU<Mat> lu(a);
  FLEXUQ_REQUIRE(lu.isInvertible(), "identification: the " << (pr.basis ? "reduced " : "")
                                    << "saddle system of the initial accelerations is singular");
  const Vec z = lu.solve(rhs);
  y.xdd = z.head(n);
  y.lam = z.tail(l);
  y.acc = y.xdd;
  return y;
}

/// A system at one parameter vector with its model in the model's coordinates and its initial state
/// (heap-held: the Discrete refers to the system).
struct Model {
  mbs::System sys;
  std::optional<Discrete> d;
  StepState y0;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  Model(const Problem& pr, const Vec& p) : sys(pr.make(p)) {
    const mbs::State s = assembled(sys, pr);
    d.emplace(sys, pr.basis);
    y0 = initial_state(*d, s, pr);
  }
};

/// One run of the scheme on the model @p d from @p y0, storing every state.
Trajectory forward(const Discrete& d, const Problem& pr, const StepState& y0, Evaluation& ev) {
  const mbs::NewmarkCoefficients k = mbs::newmark_coefficients(pr.solver);
  const int nsteps = pr.steps(), n = d.size(), l = d.rows();
  const double h = pr.solver.step, c = k.c(), bq = k.beta * h * h * c, bv = k.gamma * h * c;
  Trajectory tr;
  tr.x.resize(n, nsteps + 1);
  tr.xd.resize(n, nsteps + 1);
  tr.xdd.resize(n, nsteps + 1);
  tr.acc.resize(n, nsteps + 1);
  tr.lambda.resize(l, nsteps + 1);
  tr.t.resize(static_cast<std::size_t>(nsteps) + 1);
  StepState y = y0;
  auto store = [&](int kk, const StepState& s, double t) {
    tr.x.col(kk) = s.x;
    tr.xd.col(kk) = s.xd;
    tr.xdd.col(kk) = s.xdd;
    tr.acc.col(kk) = s.acc;
    tr.lambda.col(kk) = s.lam;
    tr.t[static_cast<std::size_t>(kk)] = t;
  };
  store(0, y, pr.solver.start);
  Eigen::PartialPivLU<Mat> lu;
  bool have = false;
  for (int step = 0; step < nsteps; ++step) {
    const double t1 = pr.solver.start + (step + 1) * h;
    const Vec qa = y.x + h * y.xd + h * h * (0.5 - k.beta) * y.acc;
    const Vec va = y.xd + h * (1 - k.gamma) * y.acc;
    const Vec dd = (k.af * y.xdd - k.am * y.acc) / (1 - k.am);
    StepState s;
    s.xdd = y.xdd;
    s.lam = y.lam;
    auto update = [&] {
      s.acc = c * s.xdd + dd;
      s.x = qa + k.beta * h * h * s.acc;
      s.xd = va + k.gamma * h * s.acc;
    };
    update();
    auto rebuild = [&] {
      Mat rx, rv;
      d.partials(s.x, s.xd, s.xdd, s.lam, t1, rx, rv);
      Mat a = Mat::Zero(n + l, n + l);
      a.topLeftCorner(n, n) = d.mass(s.x) + bq * rx + bv * rv;
      const Mat g = d.jacobian(s.x, t1);
      a.topRightCorner(n, l) = g.transpose();
      a.bottomLeftCorner(l, n) = g;
      lu.compute(a);
      have = true;
      ++ev.matrices;
    };
    if (!have) rebuild();
    double prev = -1;
    bool done = false;
    for (int it = 0; it < 60 && !done; ++it) {
      Vec rhs(n + l);
      Vec g;
      rhs.head(n) = -d.residual(s.x, s.xd, s.xdd, s.lam, t1, &g);
      rhs.tail(l) = -g / bq;
      const Vec dz = lu.solve(rhs);
      s.xdd += dz.head(n);
      s.lam += dz.tail(l);
      update();
      ++ev.newton_iterations;
      const double size = bq * dz.head(n).lpNorm<Eigen::Infinity>();
      if (size <= pr.newton_tol * std::max(1.0, s.x.lpNorm<Eigen::Infinity>())) done = true;
      else if (prev >= 0 && size > 0.25 * prev) rebuild(); // slow contraction: a fresh matrix at the iterate
      prev = size;
    }
    if (!done) {
      std::ostringstream os;
      os << "identification: Newton did not converge at t = " << t1 << " (" << (pr.basis ? "reduced" : "full")
         << " model)";
      throw Error(os.str());
    }
    y = s;
    store(step + 1, y, t1);
  }
  return tr;
}

double cost_of(const Discrete& d, const Problem& pr, const Trajectory& tr, std::vector<Vec>* gx,
               std::vector<Vec>* gv) {
  const mbs::System& sys = d.system();
  const double h = pr.solver.step;
  double j = 0;
  const auto cols = tr.x.cols();
  if (gx) {
    gx->assign(static_cast<std::size_t>(cols), Vec::Zero(d.size()));
    gv->assign(static_cast<std::size_t>(cols), Vec::Zero(d.size()));
  }
  for (Eigen::Index kk = 1; kk < cols; ++kk) {
    const Vec q = d.q(tr.x.col(kk)), v = d.up(tr.xd.col(kk));
    Vec sq = Vec::Zero(sys.n()), sv = Vec::Zero(sys.n());
    for (std::size_t i = 0; i < pr.signals.size(); ++i) {
      Vec dq, dv;
      const double val = signal_value(sys, pr.signals[i], q, v, gx ? &dq : nullptr, gx ? &dv : nullptr);
      const double r = val - pr.measured(kk, static_cast<Eigen::Index>(i));
      const double w = pr.signals[i].weight;
      j += 0.5 * h * w * r * r;
      if (gx) {
        sq += h * w * r * dq;
        sv += h * w * r * dv;
      }
    }
    if (gx) {
      (*gx)[static_cast<std::size_t>(kk)] = d.down(sq);
      (*gv)[static_cast<std::size_t>(kk)] = d.down(sv);
    }
  }
  return j;
}

} // namespace

double signal_value(const mbs::System& sys, const Signal& s, const Vec& q, const Vec& v, Vec* dq, Vec* dv) {
  const int o = sys.offset(s.body);
  if (dq) {
    *dq = Vec::Zero(sys.n());
    *dv = Vec::Zero(sys.n());
  }
  const int kind = static_cast<int>(s.kind);
  if (kind <= 2) {
    if (dq) (*dq)(o + kind) = 1;
    return q(o + kind);
  }
  if (kind <= 5) {
    if (dv) (*dv)(o + kind - 3) = 1;
    return v(o + kind - 3);
  }
  const mbs::Vec4 p = q.segment<4>(o + 3);
  if (s.kind == SignalKind::angle) {
    // θ = 2 atan2(s, e0), s = a·e
    const double sn = s.axis.dot(p.tail<3>()), e0 = p(0), r2 = sn * sn + e0 * e0;
    if (dq) {
      (*dq)(o + 3) = -2 * sn / r2;
      dq->segment<3>(o + 4) = 2 * e0 / r2 * s.axis;
    }
    return 2 * std::atan2(sn, e0);
  }
  // a·ω = 2 aᵀE(p)ṗ = −2 aᵀE(ṗ)p
  const mbs::Vec4 pd = v.segment<4>(o + 3);
  if (dq) {
    dv->segment<4>(o + 3) = 2 * (s.axis.transpose() * mbs::e_matrix(p)).transpose();
    dq->segment<4>(o + 3) = -2 * (s.axis.transpose() * mbs::e_matrix(pd)).transpose();
  }
  return 2 * s.axis.dot(mbs::e_matrix(p) * pd);
}

int Problem::steps() const {
  const double span = solver.end - solver.start;
  const double nn = span / solver.step;
  const long k = std::lround(nn);
  FLEXUQ_REQUIRE_OPTION(k >= 1 && std::abs(nn - static_cast<double>(k)) <= 1e-9 * nn, "solver.step",
                        "{} = " << solver.step << " must divide the run's length " << span
                                << " (the identification runs fixed steps)");
  return static_cast<int>(k);
}

void Problem::validate() const {
  FLEXUQ_REQUIRE_OPTION(solver.scheme == mbs::Scheme::hht || solver.scheme == mbs::Scheme::generalized_alpha,
                        "solver.type", "{}: the identification's adjoint is that of hht or generalized-alpha");
  FLEXUQ_REQUIRE_OPTION(!solver.adaptive, "solver.adaptive", "{}: the identification runs fixed steps");
  FLEXUQ_REQUIRE_OPTION(!signals.empty(), "signals", "{}: at least one signal is needed");
  const int n = steps();
  FLEXUQ_REQUIRE_OPTION(measured.rows() == n + 1 && measured.cols() == static_cast<Eigen::Index>(signals.size()),
                        "measured", "{}: " << measured.rows() << " × " << measured.cols() << " values, expected "
                                           << n + 1 << " times × " << signals.size() << " signals");
}

Evaluation cost(const Problem& pr, const Vec& p) {
  pr.validate();
  Evaluation ev;
  const auto t0 = Clock::now();
  const Model m(pr, p);
  ev.trajectory = forward(*m.d, pr, m.y0, ev);
  ev.cost = cost_of(*m.d, pr, ev.trajectory, nullptr, nullptr);
  ev.forward_seconds = seconds_since(t0);
  return ev;
}

Mat simulate_signals(const Problem& pr, const Vec& p) {
  Problem q = pr;
  q.signals = pr.signals;
  const int n = pr.steps();
  q.measured = Mat::Zero(n + 1, static_cast<Eigen::Index>(pr.signals.size()));
  const Evaluation ev = cost(q, p);
  mbs::System sys = pr.make(p);
  assembled(sys, pr); // the active rows
  const Discrete d(sys, pr.basis);
  Mat out(n + 1, static_cast<Eigen::Index>(pr.signals.size()));
  for (int kk = 0; kk <= n; ++kk) {
    const Vec qq = d.q(ev.trajectory.x.col(kk)), v = d.up(ev.trajectory.xd.col(kk));
    for (std::size_t i = 0; i < pr.signals.size(); ++i)
      out(kk, static_cast<Eigen::Index>(i)) = signal_value(sys, pr.signals[i], qq, v);
  }
  return out;
}

Evaluation cost_and_gradient(const Problem& pr, const Vec& p) {
  pr.validate();
  Evaluation ev;
  auto t0 = Clock::now();
  const Model base(pr, p);
  const Discrete& d = *base.d;
  ev.trajectory = forward(d, pr, base.y0, ev);
  const Trajectory& tr = ev.trajectory;
  std::vector<Vec> cx, cv;
  ev.cost = cost_of(d, pr, tr, &cx, &cv);
  ev.forward_seconds = seconds_since(t0);
  t0 = Clock::now();

  // The systems at p ± δ e_i (their residuals give ∂R/∂p, their initial states ∂y_0/∂p), each with its
  // model (a reduced one sets up its constraint operators) once, not per step.
  const auto np = p.size();
  std::vector<std::unique_ptr<Model>> plus, minus;
  std::vector<double> delta;
  for (Eigen::Index i = 0; i < np; ++i) {
    const double e = pr.fd_step * std::max(std::abs(p(i)), 1e-3);
    Vec pp = p, pm = p;
    pp(i) += e;
    pm(i) -= e;
    plus.push_back(std::make_unique<Model>(pr, pp));
    minus.push_back(std::make_unique<Model>(pr, pm));
    delta.push_back(e);
  }
  const mbs::NewmarkCoefficients k = mbs::newmark_coefficients(pr.solver);
  const int nsteps = pr.steps(), n = d.size(), l = d.rows();
  const double h = pr.solver.step, c = k.c(), bq = k.beta * h * h * c, bv = k.gamma * h * c;
  const double a1 = k.af / (1 - k.am), a2 = -k.am / (1 - k.am);
  Vec grad = Vec::Zero(np);
  // Adjoints of y_{k+1}: x̄, ẋ̄, ā, ẍ̄ (the cost's own terms at k+1 included).
  Vec xb = cx[static_cast<std::size_t>(nsteps)], vb = cv[static_cast<std::size_t>(nsteps)];
  Vec ab = Vec::Zero(n), xddb = Vec::Zero(n);
  for (int kk = nsteps; kk >= 1; --kk) {
    const double t1 = tr.t[static_cast<std::size_t>(kk)];
    const Vec x = tr.x.col(kk), xd = tr.xd.col(kk), xdd = tr.xdd.col(kk), lam = tr.lambda.col(kk);
    Mat rx, rv;
    d.partials(x, xd, xdd, lam, t1, rx, rv);
    Mat a = Mat::Zero(n + l, n + l);
    a.topLeftCorner(n, n) = d.mass(x) + bq * rx + bv * rv;
    const Mat g = d.jacobian(x, t1);
    a.topRightCorner(n, l) = g.transpose();
    a.bottomLeftCorner(l, n) = g;
    ++ev.matrices;
    // z = (ẍ_{k+1}, λ_{k+1}); y_{k+1} depends on ẍ_{k+1} through a_{k+1} = c ẍ + d.
    Vec zb = Vec::Zero(n + l);
    zb.head(n) = xddb + c * (ab + k.beta * h * h * xb + k.gamma * h * vb);
    const Vec mu = a.transpose().partialPivLu().solve(zb);
    const Vec mr = mu.head(n), mg = mu.tail(l);
    // Parameters: −μᵀ ∂F/∂p, F = (R, g/bq), R = Vᵀ f: μ_Rᵀ R = (V μ_R)ᵀ f, so the full-space state and
    // V μ_R once per step and per system one pass giving f and g, no projection.
    {
      const Vec qq = d.q(x), vv = d.up(xd), aa = d.up(xdd), wr = d.up(mr);
      Vec fp, fm, gp, gm;
      for (Eigen::Index i = 0; i < np; ++i) {
        const auto ii = static_cast<std::size_t>(i);
        plus[ii]->d->parts(qq, vv, aa, lam, t1, fp, gp);
        minus[ii]->d->parts(qq, vv, aa, lam, t1, fm, gm);
        grad(i) -= (wr.dot(fp - fm) + mg.dot(gp - gm) / bq) / (2 * delta[ii]);
      }
    }
    // −F̃_yᵀ μ enters as the adjoints of x_{k+1}, ẋ_{k+1} at fixed z.
    const Vec qb = xb - (rx.transpose() * mr + g.transpose() * mg / bq);
    const Vec vvb = vb - rv.transpose() * mr;
    const Vec atot = ab + k.beta * h * h * qb + k.gamma * h * vvb; // on a_{k+1} at fixed ẍ_{k+1}
    Vec xbn = qb, vbn = h * qb + vvb;
    Vec abn = h * h * (0.5 - k.beta) * qb + h * (1 - k.gamma) * vvb + a2 * atot;
    Vec xddbn = a1 * atot;
    const auto km = static_cast<std::size_t>(kk - 1);
    if (kk - 1 >= 1) {
      xbn += cx[km];
      vbn += cv[km];
    }
    xb = xbn;
    vb = vbn;
    ab = abn;
    xddb = xddbn;
  }
  // The initial state's dependence on p.
  for (Eigen::Index i = 0; i < np; ++i) {
    const auto ii = static_cast<std::size_t>(i);
    const double e2 = 2 * delta[ii];
    const StepState &yp = plus[ii]->y0, &ym = minus[ii]->y0;
    grad(i) += xb.dot((yp.x - ym.x) / e2) + vb.dot((yp.xd - ym.xd) / e2) + ab.dot((yp.acc - ym.acc) / e2) +
               xddb.dot((yp.xdd - ym.xdd) / e2);
  }
  ev.gradient = grad;
  ev.adjoint_seconds = seconds_since(t0);
  return ev;
}

} // namespace flexuq::ident
