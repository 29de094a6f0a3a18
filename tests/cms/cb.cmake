# SPDX-License-Identifier: MIT
# Component-mode synthesis bases (Wevers 2024, ch. 2; identities C1–C11), reduced-body invariants, check-out.
flexuq_add_mpi_test(test_cms_cb SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cb_bases_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 300)
# The job-level tests (they need the app layer) are in tests/app: reduce_job_test, reduce_mixed_test.
# A 2-D component (plane stress quad8 strip, 3 rigid motions) through every CMS method: fixed-interface
# modes = the clamped strip's, invariants = the rectangle's closed forms, rbe2/rbe3 refused.
flexuq_add_mpi_test(test_cms_plane_reduce SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/plane_reduce_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 120)
# reduce.solve_block: the statics in blocks of right-hand sides = one at a time (1e-12), K_ii Ψ = −K_ib.
flexuq_add_mpi_test(test_cms_block_solve SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/block_solve_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 120)
# Craig-Bampton next to a symmetry plane (issue #37 item 3): fixed-interface modes = the component with the interface and
# u_y = 0 on y = 0 fixed, 3 rigid motions left in the reduced pencil, 1 rank = 2 ranks, rbe2 on a fixed component refused.
flexuq_add_mpi_test(test_cms_supports SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/supports_cb_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 60)
# Craig-Bampton of a mixed mesh (issue #37 item 1): rbe2 on a block's solid-only nodes and on a shell edge; fixed-interface
# modes = the component with both sets held, 6 rigid motions in the reduced pencil, the closed-form mass, 1 rank = 2 ranks.
flexuq_add_mpi_test(test_cms_mixed SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/mixed_cb_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 60)
# Free-interface methods on single-component supports (issue #37 item 3): a half bar with a symmetry plane reduced by
# craig-chang, macneal, herting, hintz, rubin-martinez, hurty = the symmetric part of the full bar's reduction (1e-7),
# 3 zero eigenvalues; a strip on supports leaving k = 3..0 rigid motions (k zero eigenvalues, K Φ_R z = 0); 1 = 2 ranks.
flexuq_add_mpi_test(test_cms_supports_free SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/supports_free_test.cpp
                    LIBS flexuq_cms flexuq_job NP 1 2 LABELS cms TIMEOUT 60)
