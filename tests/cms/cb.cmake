# SPDX-License-Identifier: MIT
# Component-mode synthesis bases (Wevers 2024, ch. 2; identities C1–C11), reduced-body invariants, check-out.
flexuq_add_mpi_test(test_cms_cb SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cb_bases_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 300)
# The job-level tests (they need the app layer) are in tests/app: reduce_job_test, reduce_mixed_test.
