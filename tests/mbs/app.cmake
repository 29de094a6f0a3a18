# SPDX-License-Identifier: MIT
# `flexuq simulate` through the CLI: Ryan's (2018) slider-crank checked against an independent reference integration
# and the plot script.
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
# Bad simulate jobs: tests/app/simulate.cmake (the job file is read in app).

# Seed 003's rigid V8: the digest's velocity-snapshot spectra (ranks 4 + 6) and the damped idle speed.
add_test(NAME test_mbs_v8
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/v8_test.sh $<TARGET_FILE:flexuq> ${MPIEXEC_EXECUTABLE} ${PROJECT_SOURCE_DIR})
set_tests_properties(test_mbs_v8 PROPERTIES TIMEOUT 600 LABELS "mbs;np1"
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")

# Recovered stresses: reduce.stress_modes, stress / von_mises outputs of flexuq simulate (physics,
# consistency with the body file, stiffness scaling, bad input).
add_test(NAME test_mbs_simulate_stress
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/simulate_stress_test.sh $<TARGET_FILE:flexuq> ${MPIEXEC_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(test_mbs_simulate_stress PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS "mbs;np2"
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")

# Seed 002's 2-D flexible slider-crank: every compared basis, one and two connector bodies (G1-G4),
# node outputs, postproc/plot_deflection.py.
add_test(NAME test_mbs_simulate_seed002
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/simulate_seed002_test.sh $<TARGET_FILE:flexuq> ${MPIEXEC_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(test_mbs_simulate_seed002 PROPERTIES TIMEOUT 300 LABELS "mbs;np1"
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")
# Long tests start first on a clean clone (tests/slurm/CMakeLists.txt); seconds on a 2-core machine.
set_tests_properties(test_mbs_simulate_seed002 PROPERTIES COST 24)
set_tests_properties(test_mbs_simulate_flexible PROPERTIES COST 16)
set_tests_properties(test_mbs_simulate_stress PROPERTIES COST 15)

# Seed 000's flexible slider-crank against an independent SciPy model of the same floating-frame
# equations (tests/oracle/ffrf_slider_crank.py): convergence in h from rest, and a turning loop
# where the quadratic-velocity vectors act.
add_test(NAME test_mbs_simulate_vs_scipy
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/simulate_vs_scipy_test.sh $<TARGET_FILE:flexuq> ${MPIEXEC_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(test_mbs_simulate_vs_scipy PROPERTIES PROCESSORS 2 TIMEOUT 400 LABELS "mbs;np2;oracle" COST 50
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1;OMP_NUM_THREADS=1")

# Seed 000's own CB bars (CoM node held by the body frame, bodies.<b>.frame): T6 counts, the digest's
# internal spectrum, the slider-crank against the mean-axis frame, bad frame interfaces.
add_test(NAME test_mbs_simulate_seed000_cb
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/simulate_seed000_cb_test.sh $<TARGET_FILE:flexuq> ${MPIEXEC_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(test_mbs_simulate_seed000_cb PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS "mbs;np2"
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1;OMP_NUM_THREADS=1")

# Seed 001's GCMS bodies in motion (Eq. 58, Newmark): the E2 bar as a pendulum against the floating
# frame on the same file and the rigid pendulum, energy, interfaces, B14's conditioning, bad input.
add_test(NAME test_mbs_simulate_gcms
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/simulate_gcms_test.sh $<TARGET_FILE:flexuq> ${MPIEXEC_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(test_mbs_simulate_gcms PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS "mbs;np2"
                     ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1")
