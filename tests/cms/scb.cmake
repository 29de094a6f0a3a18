# SPDX-License-Identifier: MIT
# Stochastic reduced bodies (issue #6 items 2 and 4): the campaign model and the value type without a
# campaign. The job-level checks (flexuq reduce with reduce.stochastic, body-at, kill and --resume)
# are tests/app/stochastic_reduce_test.sh.
flexuq_add_mpi_test(test_cms_stochastic_body SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/stochastic_body_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS "cms;scb" TIMEOUT 120)
# Recycled fixed-interface modes of a stochastic-CB point (issue #38 item 2): against a dense oracle,
# the fallback at a far point, independence of the evaluation order.
flexuq_add_mpi_test(test_cms_recycled_modes SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/recycled_modes_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS "cms;scb" TIMEOUT 60)
