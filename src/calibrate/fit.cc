#include "calibrate/fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace podsim::calibrate {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kCollinear = 1e-4;  // relative distance of a column to the kept span
constexpr int kMaxIterations = 60;

// One parameter of the fit: a knob, or a harness's offset in microseconds.
struct Param {
  bool is_knob = true;
  Knob knob = Knob::kIciLinkEfficiency;
  size_t harness = 0;
  std::string name() const;
};

class Problem {
 public:
  Problem(const Predictor& p, const FitOptions& o, const std::vector<std::string>& harnesses)
      : predictor_(p), start_(o.start) {
    const auto& rows = p.rows().rows;
    harness_of_.assign(rows.size(), -1);
    for (size_t i = 0; i < rows.size(); ++i) {
      for (size_t h = 0; h < harnesses.size(); ++h) {
        if (rows[i].harness == harnesses[h])
          harness_of_[i] = static_cast<int>(h);
      }
    }
  }

  // Holds the knobs of `theta` as fixed values: before a parameter leaves
  // the fit, so it keeps its value.
  void hold(const std::vector<Param>& ps, const VectorXd& theta) { start_ = knobs(ps, theta); }
  double measured(size_t i) const { return predictor_.rows().rows[i].measured_us; }
  int harness_of(size_t i) const { return harness_of_[i]; }

  config::CalibrationSpec knobs(const std::vector<Param>& ps, const VectorXd& theta) const {
    config::CalibrationSpec c = start_;
    for (size_t j = 0; j < ps.size(); ++j) {
      if (ps[j].is_knob)
        set_knob(c, ps[j].knob, from_parameter(ps[j].knob, theta[static_cast<Eigen::Index>(j)]));
    }
    return c;
  }

  double offset(const std::vector<Param>& ps, const VectorXd& theta, size_t row) const {
    for (size_t j = 0; j < ps.size(); ++j) {
      if (!ps[j].is_knob && static_cast<int>(ps[j].harness) == harness_of_[row])
        return theta[static_cast<Eigen::Index>(j)];
    }
    return 0;
  }

  // Predicted microseconds of the rows in `use`.
  VectorXd predict(const std::vector<Param>& ps, const VectorXd& theta,
                   const std::vector<size_t>& use) const {
    const config::CalibrationSpec c = knobs(ps, theta);
    VectorXd out(static_cast<Eigen::Index>(use.size()));
    for (size_t r = 0; r < use.size(); ++r)
      out[static_cast<Eigen::Index>(r)] = predictor_.predict(use[r], c) + offset(ps, theta, use[r]);
    return out;
  }

  VectorXd residuals(const VectorXd& predicted, const std::vector<size_t>& use) const {
    VectorXd r(predicted.size());
    for (size_t k = 0; k < use.size(); ++k) {
      const double m = measured(use[k]);
      r[static_cast<Eigen::Index>(k)] = (predicted[static_cast<Eigen::Index>(k)] - m) / m;
    }
    return r;
  }

  // d residual / d parameter, by forward differences for knobs (backwards
  // at the ceiling) and exactly for offsets.
  MatrixXd jacobian(const std::vector<Param>& ps, const VectorXd& theta,
                    const std::vector<size_t>& use, const VectorXd& predicted) const {
    MatrixXd J =
        MatrixXd::Zero(static_cast<Eigen::Index>(use.size()), static_cast<Eigen::Index>(ps.size()));
    for (size_t j = 0; j < ps.size(); ++j) {
      const auto jj = static_cast<Eigen::Index>(j);
      if (!ps[j].is_knob) {
        for (size_t k = 0; k < use.size(); ++k) {
          if (harness_of_[use[k]] == static_cast<int>(ps[j].harness))
            J(static_cast<Eigen::Index>(k), jj) = 1.0 / measured(use[k]);
        }
        continue;
      }
      double h = parameter_step(ps[j].knob);
      if (theta[jj] + h > parameter_ceiling(ps[j].knob))
        h = -h;
      VectorXd moved = theta;
      moved[jj] += h;
      const config::CalibrationSpec c = knobs(ps, moved);
      for (size_t k = 0; k < use.size(); ++k) {
        if (!moves(ps[j].knob, predictor_.rows().rows[use[k]].kind))
          continue;
        const double t = predictor_.predict(use[k], c) + offset(ps, moved, use[k]);
        J(static_cast<Eigen::Index>(k), jj) =
            (t - predicted[static_cast<Eigen::Index>(k)]) / h / measured(use[k]);
      }
    }
    return J;
  }

 private:
  const Predictor& predictor_;
  config::CalibrationSpec start_;  // the knobs not fitted (or no longer)
  std::vector<int> harness_of_;
};

std::string Param::name() const {
  return is_knob ? std::string(knob_name(knob)) : "harness offset";
}

double floor_of(const Param& p) {
  return p.is_knob ? parameter_floor(p.knob) : 0.0;
}
double ceiling_of(const Param& p) {
  return p.is_knob ? parameter_ceiling(p.knob) : 1e9;
}

// Levenberg-Marquardt within the bounds. Returns the iterations taken.
int solve(const Problem& pb, const std::vector<Param>& ps, VectorXd& theta,
          const std::vector<size_t>& use) {
  VectorXd pred = pb.predict(ps, theta, use);
  VectorXd r = pb.residuals(pred, use);
  double cost = r.squaredNorm();
  double lambda = 1e-6;
  int it = 0;
  for (; it < kMaxIterations; ++it) {
    const MatrixXd J = pb.jacobian(ps, theta, use, pred);
    const MatrixXd A = J.transpose() * J;
    const VectorXd g = J.transpose() * r;
    bool improved = false;
    for (int tries = 0; tries < 12 && !improved; ++tries) {
      MatrixXd damped = A;
      for (Eigen::Index d = 0; d < A.rows(); ++d)
        damped(d, d) += lambda * std::max(A(d, d), 1e-12);
      VectorXd step = damped.ldlt().solve(-g);
      VectorXd next = theta + step;
      for (size_t j = 0; j < ps.size(); ++j) {
        const auto jj = static_cast<Eigen::Index>(j);
        next[jj] = std::clamp(next[jj], floor_of(ps[j]), ceiling_of(ps[j]));
      }
      const VectorXd next_pred = pb.predict(ps, next, use);
      const VectorXd next_r = pb.residuals(next_pred, use);
      const double next_cost = next_r.squaredNorm();
      if (next_cost <= cost) {
        const double change = (next - theta).norm() / std::max(1.0, theta.norm());
        const double gain = cost - next_cost;
        theta = next;
        pred = next_pred;
        r = next_r;
        cost = next_cost;
        lambda = std::max(lambda / 10, 1e-12);
        improved = true;
        if (change < 1e-12 || gain <= 1e-15 * std::max(cost, 1e-30))
          return it + 1;
      } else {
        lambda *= 10;
      }
    }
    if (!improved)
      return it + 1;  // no step lowers the cost: a minimum within the bounds
  }
  return it;
}

// Which of `candidates` the rows in `use` identify, in order: indices kept,
// and for each dropped one the names it cannot be told from.
std::vector<size_t> identifiable(const MatrixXd& J, std::map<size_t, std::string>* dropped,
                                 const std::vector<Param>& ps) {
  std::vector<size_t> kept;
  std::vector<VectorXd> basis;
  for (Eigen::Index j = 0; j < J.cols(); ++j) {
    VectorXd v = J.col(j);
    const double norm = v.norm();
    if (norm == 0) {
      if (dropped)
        (*dropped)[static_cast<size_t>(j)] = "";
      continue;
    }
    v /= norm;
    for (int pass = 0; pass < 2; ++pass) {
      for (const VectorXd& b : basis)
        v -= b.dot(v) * b;
    }
    if (v.norm() > kCollinear) {
      basis.push_back(v / v.norm());
      kept.push_back(static_cast<size_t>(j));
      continue;
    }
    if (dropped) {
      // Name the kept parameters that share rows with it.
      std::string with;
      for (const size_t k : kept) {
        if (J.col(j).cwiseProduct(J.col(static_cast<Eigen::Index>(k))).cwiseAbs().sum() > 0)
          with.append(with.empty() ? "" : ", ").append(ps[k].name());
      }
      (*dropped)[static_cast<size_t>(j)] = with;
    }
  }
  return kept;
}

std::vector<size_t> all_but(size_t n, size_t skip) {
  std::vector<size_t> use;
  for (size_t i = 0; i < n; ++i) {
    if (i != skip)
      use.push_back(i);
  }
  return use;
}

}  // namespace

std::string_view to_string(KnobFit::Status status) {
  switch (status) {
    case KnobFit::Status::kFitted:
      return "fitted";
    case KnobFit::Status::kAtBound:
      return "at its bound";
    case KnobFit::Status::kNotIdentified:
      return "not identified";
    case KnobFit::Status::kNoRows:
      return "no rows";
    case KnobFit::Status::kNotAsked:
      return "not fitted";
  }
  return "?";
}

FitResult fit(const Predictor& predictor, const FitOptions& options) {
  const auto& rows = predictor.rows().rows;
  std::vector<std::string> harnesses;
  for (const Row& row : rows) {
    if (!row.harness.empty() &&
        std::find(harnesses.begin(), harnesses.end(), row.harness) == harnesses.end())
      harnesses.push_back(row.harness);
  }
  Problem pb(predictor, options, harnesses);

  FitResult out;
  out.knob_fits.resize(kKnobCount);
  // Candidates in identification order: efficiencies, harness offsets, costs.
  std::vector<Param> candidates;
  for (const Knob k : kAllKnobs) {
    KnobFit& kf = out.knob_fits[static_cast<size_t>(k)];
    kf.knob = k;
    kf.value = knob_value(options.start, k);
    for (size_t i = 0; i < rows.size(); ++i) {
      if (moves(k, rows[i].kind))
        kf.rows.push_back(i);
    }
    const bool asked =
        options.knobs.empty() ||
        std::find(options.knobs.begin(), options.knobs.end(), k) != options.knobs.end();
    if (!asked) {
      kf.status = KnobFit::Status::kNotAsked;
    } else if (kf.rows.empty()) {
      kf.status = KnobFit::Status::kNoRows;
    } else {
      kf.status = KnobFit::Status::kFitted;
      candidates.push_back(Param{true, k, 0});
    }
    if (k == Knob::kHbmEfficiency) {
      for (size_t h = 0; h < harnesses.size(); ++h)
        candidates.push_back(Param{false, k, h});
    }
  }

  std::vector<size_t> every(rows.size());
  for (size_t i = 0; i < every.size(); ++i)
    every[i] = i;
  VectorXd theta0(static_cast<Eigen::Index>(candidates.size()));
  for (size_t j = 0; j < candidates.size(); ++j) {
    theta0[static_cast<Eigen::Index>(j)] =
        candidates[j].is_knob
            ? to_parameter(candidates[j].knob, knob_value(options.start, candidates[j].knob))
            : 0.0;
  }
  {
    const VectorXd pred0 = pb.predict(candidates, theta0, every);
    const MatrixXd J0 = pb.jacobian(candidates, theta0, every, pred0);
    std::map<size_t, std::string> dropped;
    const std::vector<size_t> kept = identifiable(J0, &dropped, candidates);
    std::vector<Param> ps;
    VectorXd theta(static_cast<Eigen::Index>(kept.size()));
    for (size_t j = 0; j < kept.size(); ++j) {
      ps.push_back(candidates[kept[j]]);
      theta[static_cast<Eigen::Index>(j)] = theta0[static_cast<Eigen::Index>(kept[j])];
    }
    for (const auto& [j, with] : dropped) {
      const Param& p = candidates[j];
      if (!p.is_knob)
        continue;  // a harness whose rows other parameters already explain
      KnobFit& kf = out.knob_fits[static_cast<size_t>(p.knob)];
      kf.status = KnobFit::Status::kNotIdentified;
      kf.reason = with.empty() ? "no row's time depends on it at the starting point"
                               : "the rows cannot tell it from " + with;
    }
    if (ps.empty())
      throw std::runtime_error("no knob to fit: no row's time depends on any knob asked for");

    // Fit; a parameter that ends on a bound is fixed there and the rest refitted.
    while (true) {
      out.iterations += solve(pb, ps, theta, every);
      bool fixed_one = false;
      for (size_t j = 0; j < ps.size(); ++j) {
        const auto jj = static_cast<Eigen::Index>(j);
        if (!ps[j].is_knob)
          continue;
        const bool at_floor = theta[jj] <= parameter_floor(ps[j].knob);
        const bool at_ceiling = theta[jj] >= parameter_ceiling(ps[j].knob);
        if (!at_floor && !at_ceiling)
          continue;
        KnobFit& kf = out.knob_fits[static_cast<size_t>(ps[j].knob)];
        kf.status = KnobFit::Status::kAtBound;
        kf.reason = at_floor ? "the rows ask for less than none of this loss; held at ideal"
                             : "held at the loader's limit";
        kf.value = from_parameter(ps[j].knob, theta[jj]);
        VectorXd rest(theta.size() - 1);
        for (Eigen::Index a = 0, b = 0; a < theta.size(); ++a) {
          if (a != jj)
            rest[b++] = theta[a];
        }
        pb.hold(ps, theta);
        ps.erase(ps.begin() + static_cast<std::ptrdiff_t>(j));
        theta = rest;
        fixed_one = true;
        break;
      }
      if (!fixed_one || ps.empty())
        break;
    }

    out.parameters = ps.size();
    out.knobs = pb.knobs(ps, theta);
    const VectorXd pred = pb.predict(ps, theta, every);
    const VectorXd r = pb.residuals(pred, every);
    out.rms_residual = std::sqrt(r.squaredNorm() / static_cast<double>(rows.size()));
    const MatrixXd J = pb.jacobian(ps, theta, every, pred);
    const size_t dof = rows.size() > ps.size() ? rows.size() - ps.size() : 0;
    MatrixXd cov;
    if (dof > 0 && !ps.empty()) {
      const double s2 = r.squaredNorm() / static_cast<double>(dof);
      cov = (J.transpose() * J).inverse() * s2;
    }
    for (size_t j = 0; j < ps.size(); ++j) {
      const auto jj = static_cast<Eigen::Index>(j);
      std::optional<double> sigma;
      if (cov.size() > 0)
        sigma = std::sqrt(std::max(cov(jj, jj), 0.0));
      if (ps[j].is_knob) {
        KnobFit& kf = out.knob_fits[static_cast<size_t>(ps[j].knob)];
        kf.value = from_parameter(ps[j].knob, theta[jj]);
        if (sigma) {
          // An efficiency e = 1 / p: sigma_e = sigma_p / p^2.
          kf.uncertainty =
              parameter_floor(ps[j].knob) == 1.0 ? *sigma / (theta[jj] * theta[jj]) : *sigma;
        }
      } else {
        HarnessFit hf;
        hf.harness = harnesses[ps[j].harness];
        hf.offset_us = theta[jj];
        hf.uncertainty_us = sigma;
        for (size_t i = 0; i < rows.size(); ++i) {
          if (rows[i].harness == hf.harness)
            hf.rows.push_back(i);
        }
        out.harnesses.push_back(hf);
      }
    }
    for (size_t h = 0; h < harnesses.size(); ++h) {
      const bool fitted =
          std::any_of(out.harnesses.begin(), out.harnesses.end(),
                      [&](const HarnessFit& f) { return f.harness == harnesses[h]; });
      if (!fitted) {
        HarnessFit hf;
        hf.harness = harnesses[h];
        for (size_t i = 0; i < rows.size(); ++i) {
          if (rows[i].harness == hf.harness)
            hf.rows.push_back(i);
        }
        out.harnesses.push_back(hf);
      }
    }

    out.rows.resize(rows.size());
    double loo_sum = 0;
    size_t loo_count = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      RowFit& rf = out.rows[i];
      rf.measured_us = rows[i].measured_us;
      rf.predicted_us = pred[static_cast<Eigen::Index>(i)];
      rf.residual = r[static_cast<Eigen::Index>(i)];
      if (!options.leave_one_out)
        continue;
      const std::vector<size_t> use = all_but(rows.size(), i);
      MatrixXd Ji(static_cast<Eigen::Index>(use.size()), J.cols());
      for (size_t k = 0; k < use.size(); ++k)
        Ji.row(static_cast<Eigen::Index>(k)) = J.row(static_cast<Eigen::Index>(use[k]));
      const std::vector<size_t> kept_i = identifiable(Ji, nullptr, ps);
      if (kept_i.size() < ps.size()) {
        std::string alone;
        for (size_t j = 0, k = 0; j < ps.size(); ++j) {
          if (k < kept_i.size() && kept_i[k] == j) {
            ++k;
            continue;
          }
          alone.append(alone.empty() ? "" : ", ").append(ps[j].name());
        }
        rf.leave_one_out_note = "the other rows cannot identify " + alone;
        continue;
      }
      VectorXd theta_i = theta;
      solve(pb, ps, theta_i, use);
      const double p = pb.predict(ps, theta_i, {i})[0];
      rf.leave_one_out_us = p;
      const double e = (p - rf.measured_us) / rf.measured_us;
      loo_sum += e * e;
      ++loo_count;
    }
    if (loo_count > 0)
      out.rms_leave_one_out = std::sqrt(loo_sum / static_cast<double>(loo_count));
  }
  // Knobs not fitted keep the start's values.
  for (KnobFit& kf : out.knob_fits) {
    if (kf.status != KnobFit::Status::kFitted && kf.status != KnobFit::Status::kAtBound)
      kf.value = knob_value(out.knobs, kf.knob);
  }
  return out;
}

}  // namespace podsim::calibrate
