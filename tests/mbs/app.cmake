# SPDX-License-Identifier: MIT
# `flexuq simulate` through the CLI: script tests run as `<script> FLEXUQ MPIEXEC SOURCE_DIR`.

# One script test, as root under OpenMPI with one BLAS thread; ENV adds variables, COST orders a clean
# clone's first run (long tests first; seconds on a 2-core machine).
function(flexuq_mbs_script_test name script)
  cmake_parse_arguments(PARSE_ARGV 2 T "" "PROCESSORS;TIMEOUT;COST" "LABELS;ENV")
  add_test(NAME ${name} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/${script} $<TARGET_FILE:flexuq> ${MPIEXEC_EXECUTABLE}
                                ${PROJECT_SOURCE_DIR})
  set(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 ${T_ENV})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}" ENVIRONMENT "${env}")
  if(T_PROCESSORS)
    set_tests_properties(${name} PROPERTIES PROCESSORS ${T_PROCESSORS})
  endif()
  if(T_COST)
    set_tests_properties(${name} PROPERTIES COST ${T_COST})
  endif()
endfunction()

# Ryan's (2018) slider-crank checked against an independent reference integration and the plot script.
flexuq_mbs_script_test(test_mbs_simulate_seed004 simulate_seed004_test.sh PROCESSORS 2 TIMEOUT 240 LABELS mbs np2)

# Planar-coordinate bodies: seed 004's slider-crank = its 3-D twin held in the plane, 1 rank = 2 ranks, refusals.
flexuq_mbs_script_test(test_mbs_simulate_planar simulate_planar_test.sh PROCESSORS 2 TIMEOUT 120 LABELS mbs np2)

# Seed 000's flexible slider-crank: reduce the two CB bars, simulate (T16 QVT, T17 RK45 vs HHT), bad interface.
flexuq_mbs_script_test(test_mbs_simulate_flexible simulate_flexible_test.sh PROCESSORS 2 TIMEOUT 300 LABELS mbs np2
                       COST 16)
# Seed 000 T17: semi-explicit Euler at dt = 1e-6 against rk45 on the seed's own boundary-mode CB bars and
# its 11-row joint set over 0.25 s (E_integration, first order, |Phi| at every output step); ~45 s.
flexuq_mbs_script_test(test_mbs_seed000_t17 seed000_t17_test.sh PROCESSORS 2 TIMEOUT 300 LABELS mbs np2 COST 45
                       ENV OMP_NUM_THREADS=1)
# Seed 000 T19: the PCE of x_A(0.1 s) over G and over (G, C), both bars reduced again per sample: the
# campaign's LOO by order against numpy, the seed's (5.20) by order and its trends; ~15 s.
flexuq_mbs_script_test(test_mbs_seed000_t19 seed000_t19_test.sh PROCESSORS 2 TIMEOUT 300 LABELS mbs np2 COST 15
                       ENV OMP_NUM_THREADS=1)
# Bad simulate jobs: tests/app/simulate.cmake (the job file is read in app).

# Seed 003's rigid V8: the digest's velocity-snapshot spectra (ranks 4 + 6) and the damped idle speed.
flexuq_mbs_script_test(test_mbs_v8 v8_test.sh TIMEOUT 600 LABELS mbs np1)

# Recovered stresses: reduce.stress_modes, stress / von_mises outputs of flexuq simulate (physics,
# consistency with the body file, stiffness scaling, bad input).
flexuq_mbs_script_test(test_mbs_simulate_stress simulate_stress_test.sh PROCESSORS 2 TIMEOUT 300 LABELS mbs np2
                       COST 15)

# Seed 002's 2-D flexible slider-crank: every compared basis, one and two connector bodies (G1-G4),
# node outputs, postproc/plot_deflection.py.
flexuq_mbs_script_test(test_mbs_simulate_seed002 simulate_seed002_test.sh TIMEOUT 300 LABELS mbs np1 COST 24)
# Seed 002's generalised superelement bodies (type: gs): S8 against the floating frame held at the same
# interface point, G6's scaled modes and rk45 step counts, refusals.
flexuq_mbs_script_test(test_mbs_simulate_gs simulate_gs_test.sh TIMEOUT 400 LABELS mbs np1 COST 60)
# The 3-D generalised superelement (type: gs3d): S8 in 3-D (a pendulum thrown out of plane against the
# floating frame held at the same interface point), planar gs = gs3d held in the plane, refusals.
flexuq_mbs_script_test(test_mbs_simulate_gs3d simulate_gs3d_test.sh TIMEOUT 200 LABELS mbs np1 COST 10)
# A load switched on and released (forces[i].window): rk45 and HHT against the closed form, refusals.
flexuq_mbs_script_test(test_mbs_simulate_window simulate_window_test.sh TIMEOUT 120 LABELS mbs np1 COST 3)

# Seed 000's flexible slider-crank against an independent SciPy model of the same floating-frame
# equations (tests/oracle/ffrf_slider_crank.py): convergence in h from rest, and a turning loop
# where the quadratic-velocity vectors act.
flexuq_mbs_script_test(test_mbs_simulate_vs_scipy simulate_vs_scipy_test.sh PROCESSORS 2 TIMEOUT 400
                       LABELS mbs np2 oracle COST 50 ENV OMP_NUM_THREADS=1)

# Seed 000's own CB bars (CoM node held by the body frame, bodies.<b>.frame): T6 counts, the digest's
# internal spectrum, the slider-crank against the mean-axis frame, bad frame interfaces.
flexuq_mbs_script_test(test_mbs_simulate_seed000_cb simulate_seed000_cb_test.sh PROCESSORS 2 TIMEOUT 300
                       LABELS mbs np2 ENV OMP_NUM_THREADS=1)

# Seed 001's GCMS bodies in motion (Eq. 58, Newmark): the E2 bar as a pendulum against the floating
# frame on the same file and the rigid pendulum, energy, interfaces, B14's conditioning, bad input.
flexuq_mbs_script_test(test_mbs_simulate_gcms simulate_gcms_test.sh PROCESSORS 2 TIMEOUT 300 LABELS mbs np2)

# Large mechanisms (issue #40): a 400-body hanging chain set up and run in seconds (sparse rank tests)
# with its joint reactions against the weights below them; an inertia-free link named; the memory bound.
flexuq_mbs_script_test(test_mbs_large_mechanism large_mechanism_test.sh TIMEOUT 120 LABELS mbs np1)
