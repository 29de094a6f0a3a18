# SPDX-License-Identifier: MIT
# Generalized component mode synthesis (seed 001): exact algebraic identities of
# Zwölfer & Gerstmayr's basis (Sect. 2.1, Eqs. 1–28) and free-free bar physics checks (the bars of Sect. 5) on a small hex20 mesh.
flexuq_add_mpi_test(test_cms_gcms SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gcms_algebra_test.cpp
                    ${CMAKE_CURRENT_SOURCE_DIR}/gcms_bar_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 300)
# Seed 001 B12: the E1 bar (60 mm square, 900 mm, hex20), its repeated B1 pair: in-plane cosines,
# cosine removal 9 of 18, σ-rank deficiency 3 on 2 x 2 and 4 x 4 sections.
flexuq_add_mpi_test(test_cms_gcms_e1 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gcms_e1_bar_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 120)
# Seed 001 B13: GCMS of an asymmetric solid (the project's crank, configs/crank.inp, 12 free-free modes).
flexuq_add_mpi_test(test_cms_gcms_crank SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gcms_crank_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 120)
