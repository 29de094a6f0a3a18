# SPDX-License-Identifier: MIT
# `flexuq simulate` through the CLI: seed 004's slider-crank checked against the digest's numbers
# and the plot script, and bad input that must fail cleanly (exit 2) naming the culprit.
add_test(NAME test_mbs_simulate_seed004
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/simulate_seed004_test.sh $<TARGET_FILE:flexuq> ${MPIEXEC_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(test_mbs_simulate_seed004 PROPERTIES PROCESSORS 2 TIMEOUT 240 LABELS "mbs;np2"
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")

# Seed 000's flexible slider-crank: reduce the two CB bars, simulate (T16 QVT, T17 RK45 vs HHT), bad interface.
add_test(NAME test_mbs_simulate_flexible
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/simulate_flexible_test.sh $<TARGET_FILE:flexuq> ${MPIEXEC_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(test_mbs_simulate_flexible PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS "mbs;np2"
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")

# mbs_bad_case(<name> <yaml> <expected text>...): at 1 and 2 ranks, exit code 2, no hang.
function(mbs_bad_case name yaml)
  foreach(np 1 2)
    set(test test_mbs_bad_${name}_np${np})
    set(wd ${CMAKE_CURRENT_BINARY_DIR}/work/${test})
    file(MAKE_DIRECTORY ${wd})
    add_test(NAME ${test}
             COMMAND ${PROJECT_SOURCE_DIR}/tests/app/expect_error.sh --exit-code 2 ${ARGN} --
                     ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS}
                     $<TARGET_FILE:flexuq> simulate ${CMAKE_CURRENT_SOURCE_DIR}/bad/${yaml}
             WORKING_DIRECTORY ${wd})
    set_tests_properties(${test} PROPERTIES PROCESSORS ${np} TIMEOUT 90 LABELS "mbs;np${np}"
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")
  endforeach()
endfunction()
mbs_bad_case(unknown_body unknown_body.yaml "joint 'B'" "body 'rdo' does not exist")
mbs_bad_case(cannot_assemble cannot_assemble.yaml "cannot be assembled at t = 0" "joint 'C'")
mbs_bad_case(singular_mass singular_mass.yaml "singular at t = 0" "body 'ghost'")
mbs_bad_case(no_convergence no_convergence.yaml "failed at t = 0" "Newton did not converge")
mbs_bad_case(unknown_key unknown_key.yaml "unknown key 'bodies.crank.mas' (line 3)")
mbs_bad_case(bad_alpha bad_alpha.yaml "bad_alpha.yaml" "solver.alpha must be in [-1/3, 0]")
mbs_bad_case(flexible_missing_file flexible_missing_file.yaml "bodies.rod.body (line 3)"
             "no-such-rod-cb.h5' does not exist")
