// SPDX-License-Identifier: MIT
#pragma once
/// @file Results.hpp
/// @brief The campaign's result file (layout in docs/hdf5-schema.md, "campaign"): samples, status,
/// per-sample outputs and, per output, the uq::OutputSummary of the successful samples. Written
/// from all journal records in sample order, so it depends neither on the rank count nor on
/// interruptions.

#include "flexuq/campaign/Journal.hpp"
#include "flexuq/campaign/Plan.hpp"
#include "flexuq/core/Model.hpp"
#include "flexuq/io/Hdf5File.hpp"
#include "flexuq/uq/Summary.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace flexuq::campaign {

/// Node-field outputs (mode shapes): dims per name, and who adds their display support (mesh,
/// XDMF) to the closed result file — the model, which knows the mesh (Model::write_field_support).
struct FieldInfo {
  std::map<std::string, std::vector<std::uint64_t>> dims;
  std::function<void(const std::string& path, const std::string& field, const std::string& mean_dataset)> support;
  /// Fields journaled as column factors of a base (Model::column_scaled_fields; set on rank 0).
  std::map<std::string, const std::vector<double>*> column_scaled;
};

/// Running mean and sum of squared deviations of a field output over the successful samples, in
/// sample order (Welford), so a field's statistics need one sample in memory at a time.
struct FieldMoments {
  std::vector<double> mean, m2;
  std::int64_t n = 0;
  /// A column-scaled field (FieldInfo::column_scaled): mean and m2 are those of the column factors
  /// (n values) and the field's are base[k]·mean[k mod n] and base[k]²·m2[k mod n], formed when
  /// written — the moments of N points of a 10⁷-entry field at the cost of N × n values.
  const std::vector<double>* base = nullptr;
  void add(const std::vector<double>& v);
};

/// Every record of the journal folder @p dir, in sample order (as Journal::read_all), decoded one
/// at a time: the field outputs named in @p fields are folded into @p moments (entries of the
/// expected size from successful samples) and dropped from the records returned, which keep the
/// small outputs. A stochastic body's per-point bases (30 × 75 MB at 300 k DOF) are never all in
/// memory. Rank-local.
std::vector<SampleRecord> read_records(const std::string& dir, const FieldInfo& fields,
                                       std::map<std::string, FieldMoments>& moments);

/// Statistics, PCE and Sobol' indices of all @p records, written to @p path (replaced). A field
/// output's mean and std come from @p moments (read_records); the records carry no fields.
/// Returns the summaries of the non-field outputs that have statistics. Rank-local: call on one rank.
std::map<std::string, uq::OutputSummary> write_results(const std::string& path, const Plan& plan,
                                                       const std::vector<SampleRecord>& records,
                                                       const std::map<std::string, std::size_t>& output_sizes,
                                                       bool final, const FieldInfo& fields,
                                                       const std::map<std::string, FieldMoments>& moments);

/// The same layout for a method that yields expansions instead of samples (stochastic Galerkin):
/// /parameters, the /samples attributes (total 0, final 1, @p method; no sample datasets), and per
/// output of @p summaries (uq::summarize_pce) /statistics/<name>/… and /pce/<name>/…, written by
/// the same code as write_results. Rank-local on @p f (opened on one rank).
void write_expansion_results(io::H5File& f, const std::vector<ParameterSpec>& params, const std::string& method,
                             const std::map<std::string, uq::OutputSummary>& summaries);

} // namespace flexuq::campaign
