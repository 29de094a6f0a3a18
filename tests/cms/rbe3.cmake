# SPDX-License-Identifier: MIT
# RBE3 (averaging) interfaces: exact condensation identity, constraint satisfaction, rigid modes.
flexuq_add_mpi_test(test_cms_rbe3 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/rbe3_test.cpp
                    LIBS flexuq_cms NP 1 2 LABELS cms TIMEOUT 300)
target_include_directories(test_cms_rbe3 PRIVATE ${PROJECT_SOURCE_DIR}/tests/fe)
flexuq_add_mpi_test(test_cms_block_product SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/block_product_test.cpp
                    LIBS flexuq_cms NP 1 2 3 LABELS cms TIMEOUT 120)
target_include_directories(test_cms_block_product PRIVATE ${PROJECT_SOURCE_DIR}/tests/fe)
