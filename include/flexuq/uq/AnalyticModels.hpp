// SPDX-License-Identifier: MIT
#pragma once
/// @file AnalyticModels.hpp
/// @brief Closed-form test models for campaigns (no FE, no communication): their statistics and
/// Sobol' indices are known exactly, so they test the sampling, PCE and journal machinery.
///  - ishigami (3 parameters): y = sin x1 + 7 sin² x2 + 0.1 x3⁴ sin x1 (Ishigami & Homma, a = 7, b = 0.1);
///  - oscillator (k, m): ω² = k/m and ω;
///  - polynomial (any d): y = Σ_i (i+1) x_i + x_i²/2;
///  - failing (any d): the polynomial, but x1 > threshold throws InputError ("invalid input") and
///    x1 < −threshold returns NaN (a diverged evaluation).

#include "flexuq/core/Model.hpp"

#include <memory>
#include <string>

namespace flexuq::uq {

/// True for the names above.
bool is_analytic_model(const std::string& function);

/// The analytic model @p function for @p dim parameters. Throws OptionError (option "function") for an
/// unknown name or a wrong number of parameters.
std::unique_ptr<Model> make_analytic_model(const std::string& function, std::size_t dim, double threshold = 1.0);

} // namespace flexuq::uq
