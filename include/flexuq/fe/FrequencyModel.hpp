// SPDX-License-Identifier: MIT
#pragma once
/// @file FrequencyModel.hpp
/// @brief The FE model a campaign samples: θ → material parametrisation → K(θ), M(θ) → the lowest
/// eigenfrequencies, each tracked to a reference mode (MAC per multiplet, fe/ModeTracking.hpp), and
/// optionally the mode shapes aligned with the reference (Procrustes per multiplet).
///
/// Outputs: "frequencies" (Hz, one per tracked reference mode, NaN if no sample mode was found),
/// "tracking_min_mac" (the smallest captured share over the reference modes), and with mode_shapes
/// the node field "mode_shapes" (nodes × dofs per node × modes, input node order).
///
/// Reproducibility: one ModeSolver is kept for all evaluations (MUMPS redoes only the numeric
/// factorization); its start vector is reset before every solve (fe/Modes.cpp), so evaluate(θ)
/// depends on θ alone — bit-identical whatever was evaluated before on the same object.

#include "flexuq/core/Comm.hpp"
#include "flexuq/core/Model.hpp"
#include "flexuq/fe/Component.hpp"
#include "flexuq/fe/MaterialParametrisation.hpp"

#include <Eigen/Dense>

#include <functional>
#include <memory>

namespace flexuq::fe {

class ModeSolver;
class NaturalLayout;
struct ModeSet;
struct TrackingResult;

struct FrequencyModelOptions {
  int frequencies = 10;     ///< outputs.frequencies: reference modes tracked
  double tol = 1e-10;       ///< modes.tol: eigensolver relative residual
  bool mode_shapes = false; ///< outputs.mode_shapes: also the aligned shapes (a node field)
  std::vector<MaterialParameter> parameters; ///< in the campaign's parameter order
};

/// θ → K(θ), M(θ) of the component, in place. @note Collective on the component's communicator.
using ComponentUpdate = std::function<void(Component&, const std::vector<double>&)>;

class FrequencyModel final : public Model {
public:
  /// Assemble the component (affine terms kept) on @p comm; θ acts through the material
  /// parametrisation of options.parameters. @note Collective.
  FrequencyModel(MPI_Comm comm, io::Mesh mesh, ComponentOptions component, FrequencyModelOptions options);
  /// A component built already (e.g. fe::make_matrix_component on @p comm) and the map θ → K, M
  /// (options.parameters is not used). @note Collective.
  FrequencyModel(MPI_Comm comm, std::unique_ptr<Component> component, ComponentUpdate update,
                 FrequencyModelOptions options);
  ~FrequencyModel() override;

  std::map<std::string, std::size_t> output_sizes() const override;
  std::map<std::string, std::vector<std::uint64_t>> field_dims() const override;
  /// The mesh under /mesh and an .xdmf of @p mean_dataset beside @p result_path.
  void write_field_support(const std::string& result_path, const std::string& field,
                           const std::string& mean_dataset) const override;
  /// Solve at @p nominal and keep those modes as the tracking reference. @note Collective.
  void prepare(const std::vector<double>& nominal) override;
  Outputs evaluate(const std::vector<double>& theta) override;

  const Component& component() const { return *comp_; }

private:
  std::vector<double> aligned_shapes(const Eigen::MatrixXd& C, const TrackingResult& tr, const ModeSet& m);

  Comm comm_;
  FrequencyModelOptions opt_;
  std::unique_ptr<Component> comp_;
  ComponentUpdate update_;
  std::unique_ptr<ModeSolver> solver_;
  std::vector<VecH> ref_;
  std::vector<int> cluster_;
  MatH M_ref_;
  std::unique_ptr<NaturalLayout> layout_;
};

} // namespace flexuq::fe
