# SPDX-License-Identifier: MIT
# Component-mode synthesis bases (seed 002 digest §8.2 C1–C11), reduced-body invariants, check-out.
flexuq_add_mpi_test(test_cms_cb SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cb_bases_test.cpp
                    LIBS flexuq_cms NP 1 2 LABELS cms TIMEOUT 300)
target_include_directories(test_cms_cb PRIVATE ${PROJECT_SOURCE_DIR}/tests/fe)
flexuq_add_mpi_test(test_cms_cb_job SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cb_reduce_job_test.cpp
                    LIBS flexuq_app NP 1 2 LABELS cms TIMEOUT 300)
flexuq_add_mpi_test(test_cms_cb_mixed SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cb_mixed_test.cpp
                    LIBS flexuq_app NP 1 2 LABELS cms TIMEOUT 300)
target_include_directories(test_cms_cb_mixed PRIVATE ${PROJECT_SOURCE_DIR}/tests/fe)
