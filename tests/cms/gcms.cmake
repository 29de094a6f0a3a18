# SPDX-License-Identifier: MIT
# Generalized component mode synthesis (seed 001): exact algebraic checks (digest §8.1) and the
# free-free bar physics checks (§8.2) on a small hex20 mesh.
flexuq_add_mpi_test(test_cms_gcms SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gcms_algebra_test.cpp
                    ${CMAKE_CURRENT_SOURCE_DIR}/gcms_bar_test.cpp
                    LIBS flexuq_cms NP 1 2 LABELS cms TIMEOUT 300)
