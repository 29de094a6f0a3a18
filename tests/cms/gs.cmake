# SPDX-License-Identifier: MIT
# The generalised superelement algebra (Wevers 2024 ch. 3; digest tests S1–S7): the Ψ/Υ split of every
# CMS basis, Z/T, M_GS/K_GS at the undeformed state, the position-level frame and local interface DOFs.
flexuq_add_mpi_test(test_cms_superelement SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/superelement_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 120)
