// SPDX-License-Identifier: MIT
#pragma once
/// @file Handle.hpp
/// @brief Move-only RAII handles for PETSc and SLEPc objects.

#include <petscksp.h>
#include <petscsf.h>
#include <petscviewer.h>
#include <slepceps.h>
#include <slepcbv.h>
#include <slepcsvd.h>

#include <utility>

namespace flexuq {

/// @brief Owns one PETSc/SLEPc object; destroys it on scope exit. Move-only (no double destroy):
/// moves are written with std::exchange, never defaulted. `get()` is the escape hatch to the C API,
/// `out()` is for creation calls (`MatCreate(comm, h.out())`).
template <class T, PetscErrorCode (*Destroy)(T*)>
class Handle {
public:
  Handle() = default;
  /// Take ownership of @p h. With @p add_reference, the caller keeps its own reference too.
  explicit Handle(T h, bool add_reference = false) : h_(h) {
    if (h_ && add_reference) (void)PetscObjectReference(reinterpret_cast<PetscObject>(h_));
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Handle() { reset(); }

  T get() const noexcept { return h_; }
  /// For creation calls; destroys any object held before.
  T* out() noexcept {
    reset();
    return &h_;
  }
  T release() noexcept { return std::exchange(h_, nullptr); }
  explicit operator bool() const noexcept { return h_ != nullptr; }
  void reset() noexcept {
    if (h_) {
      PetscBool finalized = PETSC_FALSE;
      (void)PetscFinalized(&finalized);
      if (!finalized) (void)Destroy(&h_);
      h_ = nullptr;
    }
  }

private:
  T h_ = nullptr;
};

using MatH = Handle<Mat, MatDestroy>;
using VecH = Handle<Vec, VecDestroy>;
using KspH = Handle<KSP, KSPDestroy>;
using IsH = Handle<IS, ISDestroy>;
using ScatterH = Handle<VecScatter, VecScatterDestroy>;
using ViewerH = Handle<PetscViewer, PetscViewerDestroy>;
using PartitioningH = Handle<MatPartitioning, MatPartitioningDestroy>;
using EpsH = Handle<EPS, EPSDestroy>;
using BvH = Handle<BV, BVDestroy>;
using SvdH = Handle<SVD, SVDDestroy>;
using SfH = Handle<PetscSF, PetscSFDestroy>;

} // namespace flexuq
