# SPDX-License-Identifier: MIT
# RBE3 (averaging) interfaces: exact condensation identity, constraint satisfaction, rigid modes.
flexuq_add_mpi_test(test_cms_rbe3 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/rbe3_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 300)
# postproc/plot_reduced.py on a small CLI-made body with RBE2 and RBE3 interfaces.
add_test(NAME test_cms_plot_reduced
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/plot_reduced_test.sh $<TARGET_FILE:flexuq> ${MPIEXEC_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(test_cms_plot_reduced PROPERTIES PROCESSORS 2 TIMEOUT 180 LABELS "cms;np2"
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")
