// SPDX-License-Identifier: MIT
#pragma once
/// @file Campaign.hpp
/// @brief Sampling campaigns: the world is split into groups of `ranks_per_sample` ranks; groups
/// take samples dynamically (an atomic counter in an MPI window), evaluate the model on their own
/// sub-communicator, and append each finished sample to a journal (framed Boost.Serialization
/// records, flushed and fsync'ed) so a killed run resumes without redoing or losing anything.
/// Statistics, PCE and Sobol' indices are computed at the end from all records, in sample order,
/// so the results do not depend on the number of ranks or on interruptions.

#include "flexuq/io/Config.hpp"
#include "flexuq/io/Mesh.hpp"
#include "flexuq/uq/Distribution.hpp"

#include <Eigen/Dense>
#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace flexuq::campaign {

struct ParameterSpec {
  std::string name;
  uq::Distribution dist = uq::Distribution::normal(0, 1);
  std::string set; ///< element set the parameter acts on ("" = all)
};

/// The samples of a campaign: everything that defines them, and nothing that depends on ranks.
struct Plan {
  std::vector<ParameterSpec> params;
  std::string method = "monte-carlo"; ///< monte-carlo | lhs | sobol | collocation | pce
  std::string fit = "regression";     ///< regression | projection (pce, collocation)
  std::string sampling = "lhs";       ///< design of a regression PCE
  int order = -1;                     ///< PCE total degree; −1 = chosen by LOO up to max_order
  int max_order = 3;
  Eigen::MatrixXd germ;               ///< N × d
  Eigen::MatrixXd theta;              ///< N × d physical values
  std::vector<double> weights;        ///< quadrature weights (projection), else empty
  std::uint64_t seed = 42;
  int ranks_per_sample = 1;
  int checkpoint_every = 10;
  std::string output = "campaign.h5";
  std::string fingerprint;            ///< hash of everything that defines the samples and the model
  std::size_t size() const { return static_cast<std::size_t>(germ.rows()); }
};

/// Read parameters, method and campaign keys and generate the samples. Not collective.
Plan make_plan(const io::Config& cfg);

/// One finished sample, as persisted in the journal.
struct SampleRecord {
  std::uint64_t index = 0;
  int status = 0;             ///< 0 ok, 1 failed
  std::string reason;         ///< why it failed
  std::map<std::string, std::vector<double>> outputs;
  double seconds = 0;
  int group = 0;
};

/// Append-only journal of one group leader (framed records: magic, size, payload, checksum).
class Journal {
public:
  Journal(const std::string& path);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  void append(const SampleRecord& r); ///< written, flushed and fsync'ed before it returns
  /// Every complete record of every journal in @p dir (a torn last record is ignored).
  static std::vector<SampleRecord> read_all(const std::string& dir);

private:
  std::FILE* f_ = nullptr;
  std::string path_;
};

/// Run the campaign of @p cfg on @p comm (`flexuq campaign`). @note Collective.
void run_campaign(MPI_Comm comm, const io::Config& cfg, bool resume);

/// Statistics and PCE of all records, written to the result file (rank-local, call on one rank).
/// Node-field outputs (mode shapes): dims per name and the mesh they live on.
struct FieldInfo {
  std::map<std::string, std::vector<std::uint64_t>> dims;
  const io::Mesh* mesh = nullptr;
};
void write_results(const std::string& path, const Plan& plan, const std::vector<SampleRecord>& records,
                   const std::map<std::string, std::size_t>& output_sizes, bool final, const FieldInfo& fields = {});

} // namespace flexuq::campaign
