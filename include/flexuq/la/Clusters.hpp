// SPDX-License-Identifier: MIT
#pragma once
/// @file Clusters.hpp
/// @brief Eigenvalue multiplets. Two neighbouring eigenvalues belong to one multiplet when their
/// relative gap is at most `cluster_tol`: |λ_j − λ_i| ≤ cluster_tol · max(|λ_i|, |λ_j|). A multiplet's
/// eigenspace has no preferred basis, so a set of modes is only meaningful with whole multiplets
/// ("multiplet completion"). The one definition used by `modes`, `reduce` and mode tracking.

#include <cstddef>
#include <vector>

namespace flexuq::la {

/// Whether @p a and @p b are one multiplet at relative tolerance @p cluster_tol.
bool same_cluster(double a, double b, double cluster_tol);

/// Per value: the size of its multiplet. @p values ascending; chains of neighbours form one multiplet.
std::vector<int> cluster_multiplicity(const std::vector<double>& values, double cluster_tol);

/// Per value: the index of its multiplet (0, 1, …; consecutive values of one multiplet share it).
/// @p values ascending.
std::vector<int> cluster_ids(const std::vector<double>& values, double cluster_tol);

/// Length of the shortest multiplet-complete prefix of @p values (ascending) holding at least
/// min(@p count, values.size()) values: the multiplet of value count − 1 is completed with the
/// values after it (the caller decides whether values beyond the computed ones could still belong
/// to it).
std::size_t complete_multiplets(const std::vector<double>& values, std::size_t count, double cluster_tol);

} // namespace flexuq::la
