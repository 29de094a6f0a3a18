# SPDX-License-Identifier: MIT
# Floating-frame equations of motion from the invariants (M(ξ), Q_v, gravity, T) against a brute
# force on the full consistent mass of a small hex20 box.
flexuq_add_mpi_test(test_cms_floating_frame SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/floating_frame_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 120)
# cms::ReducedBody: /reduced round trip, documented layout, errors naming the dataset; its header and
# FloatingFrame.hpp compile without PETSc/SLEPc (checked by the preprocessor in the test).
flexuq_add_mpi_test(test_cms_reduced_body SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/reduced_body_test.cpp
                    LIBS flexuq_cms NP 1 2 LABELS cms TIMEOUT 60)
# The precompiled header (FLEXUQ_PCH) holds PETSc: it would trip that check.
set_target_properties(test_cms_reduced_body PROPERTIES DISABLE_PRECOMPILE_HEADERS ON)
