# SPDX-License-Identifier: MIT
# `flexuq simulate` on bad input (the job file is parsed in app/SimulationOptions.cpp, the body files
# read in workflow/SimulationSpec.cpp): at 1 and 2 ranks, exit code 2, no hang, the message naming
# file, key, line, joint or body.
flexuq_app_case(simulate_bad_unknown_body JOB bad/simulate_unknown_body.yaml VERB simulate EXIT_CODE 2
                EXPECT "joint 'B'" "body 'rdo' does not exist")
flexuq_app_case(simulate_bad_cannot_assemble JOB bad/simulate_cannot_assemble.yaml VERB simulate EXIT_CODE 2
                EXPECT "cannot be assembled at t = 0" "joint 'C'")
flexuq_app_case(simulate_bad_singular_mass JOB bad/simulate_singular_mass.yaml VERB simulate EXIT_CODE 2
                EXPECT "singular at t = 0" "body 'ghost'")
flexuq_app_case(simulate_bad_no_convergence JOB bad/simulate_no_convergence.yaml VERB simulate EXIT_CODE 2
                EXPECT "failed at t = 0" "Newton did not converge")
flexuq_app_case(simulate_bad_unknown_key JOB bad/simulate_unknown_key.yaml VERB simulate EXIT_CODE 2
                EXPECT "unknown key 'bodies.crank.mas' (line 3)")
flexuq_app_case(simulate_bad_alpha JOB bad/simulate_bad_alpha.yaml VERB simulate EXIT_CODE 2
                EXPECT "bad_alpha.yaml" "solver.alpha must be in [-1/3, 0]")
flexuq_app_case(simulate_bad_flexible_missing_file JOB bad/simulate_flexible_missing_file.yaml VERB simulate EXIT_CODE 2
                EXPECT "bodies.rod.body (line 3)" "no-such-rod-cb.h5' does not exist")
flexuq_app_case(simulate_bad_force_interface JOB bad/simulate_interface_on_rigid.yaml VERB simulate EXIT_CODE 2
                EXPECT "forces[0].interface (line 7)" "applies to a force or torque on a flexible body")
flexuq_app_case(simulate_bad_damper JOB bad/simulate_bad_damper.yaml VERB simulate EXIT_CODE 2
                EXPECT "forces[0].damping (line 7)" "must be >= 0")
flexuq_app_case(simulate_bad_linear_algebra JOB bad/simulate_singular_mass.yaml VERB simulate EXIT_CODE 2
                ARGS --set solver.linear_algebra=banded
                EXPECT "solver.linear_algebra" "must be auto, dense or sparse, got 'banded'")
flexuq_app_case(simulate_bad_singular_mass_sparse JOB bad/simulate_singular_mass.yaml VERB simulate EXIT_CODE 2
                ARGS --set solver.linear_algebra=sparse
                EXPECT "singular at t = 0" "body 'ghost'")
# plane: (2-D mechanisms): a body off the plane, a zero normal.
flexuq_app_case(simulate_bad_plane_offset JOB ../../configs/slider-crank-seed004-2d.yaml VERB simulate EXIT_CODE 2
                ARGS --set "plane.point=[0, 0, 0.5]"
                EXPECT "slider-crank-seed004-2d.yaml" "plane" "body 'crank' is -0.500000 m off the plane")
flexuq_app_case(simulate_bad_plane_normal JOB ../../configs/slider-crank-seed004-2d.yaml VERB simulate EXIT_CODE 2
                ARGS --set "plane.normal=[0, 0, 0]"
                EXPECT "plane.normal" "must not be zero")
# Issue #40: contradictory joints fail along the run (the dropped row was checked at t0 only and the
# run "succeeded" with drift 0.48); step counts and time resolution bounded before the run.
flexuq_app_case(simulate_bad_contradictory JOB bad/simulate_contradictory.yaml VERB simulate EXIT_CODE 2
                EXPECT "constraints are violated at t = " "joint 'drive'" "solver.drift_limit")
flexuq_app_case(simulate_bad_time_resolution JOB bad/simulate_bad_alpha.yaml VERB simulate EXIT_CODE 2
                ARGS --set solver.alpha=-0.05 --set solver.start=1e13 --set solver.end=1.00000000000001e13
                EXPECT "solver.step = 0.001 is below the resolution")
flexuq_app_case(simulate_bad_step_count JOB bad/simulate_bad_alpha.yaml VERB simulate EXIT_CODE 2
                ARGS --set solver.alpha=-0.05 --set solver.end=1e6 --set solver.output_step=1e3
                EXPECT "about 1e+09 steps requested" "raise solver.step")
# Issue #40 item 4: physical checks of rigid-body data and distances before the solver.
flexuq_app_case(simulate_bad_inertia_triangle JOB bad/simulate_bad_alpha.yaml VERB simulate EXIT_CODE 2
                ARGS --set solver.alpha=-0.05 --set "bodies.crank.inertia=[1, 1, 5]"
                EXPECT "bodies.crank.inertia" "violates the triangle inequality")
flexuq_app_case(simulate_bad_inertia_asymmetric JOB bad/simulate_bad_alpha.yaml VERB simulate EXIT_CODE 2
                ARGS --set solver.alpha=-0.05 --set "bodies.crank.inertia=[1, 0.1, 0, 0, 1, 0, 0, 0, 1]"
                EXPECT "bodies.crank.inertia" "is not symmetric")
flexuq_app_case(simulate_bad_mass_negative JOB bad/simulate_bad_alpha.yaml VERB simulate EXIT_CODE 2
                ARGS --set solver.alpha=-0.05 --set bodies.crank.mass=-2
                EXPECT "bodies.crank.mass" "must be finite and >= 0")
flexuq_app_case(simulate_bad_distance_negative JOB bad/simulate_bad_alpha.yaml VERB simulate EXIT_CODE 2
                ARGS --set solver.alpha=-0.05
                     --set "joints=[{name: D, type: distance, bodies: [ground, crank], point: [0, 0, 0], point2: [0.5, 0, 0], distance: -1}]"
                EXPECT "joints[0] (D).distance" "must be finite and >= 0")
