# SPDX-License-Identifier: MIT
# Canonical bases (issue #38 leftover): the modes' sign rule of the geometry (an antisymmetric mode's tie,
# perturbed by ±1e-10, keeps its closed-form sign where the largest-entry rule flips) and the rigid null
# space of a support line in closed form, independent of row order and base rotation; 1 rank = 2 ranks.
flexuq_add_mpi_test(test_cms_canonical SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/canonical_basis_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 60)
