# SPDX-License-Identifier: MIT
# The generalised superelement body on every basis the product builds (issue #36 item 3): the Ψ/Υ split
# `flexuq reduce` writes (/reduced/gs) read back and used by the GS body; S1, S2, S5, S6 on seed 002's
# connector rod reduced in the test, the refusal of a basis that cannot describe an interface direction.
flexuq_add_mpi_test(test_mbs_gs_split SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gs_split_body_test.cpp
                    LIBS flexuq_mbs flexuq_cms flexuq_job NP 1 2 LABELS mbs TIMEOUT 60)
# The seed's slider-crank with Hurty and Craig–Chang connector files: S8 against Craig–Bampton's floating
# frame held at END0, G2 against Rubin–Martinez's GS body (after app.cmake: flexuq_mbs_script_test).
flexuq_mbs_script_test(test_mbs_simulate_gs_split simulate_gs_split_test.sh TIMEOUT 120 LABELS mbs np1 COST 8)
