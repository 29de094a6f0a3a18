# SPDX-License-Identifier: MIT
flexuq_add_mpi_test(test_pod_cb SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/pod_cb_test.cpp
                    LIBS flexuq_pod flexuq_fe NP 1 2 LABELS pod TIMEOUT 300)
