# SPDX-License-Identifier: MIT
# ---- precompiled third-party headers (FLEXUQ_PCH) --------------------------------------------
# Parsing Eigen, PETSc/SLEPc, MPI and the standard headers took 3-4 s of CPU in every translation
# unit, about half of a clean build (docs/performance.md, "The whole CI run"). They are compiled once
# into flexuq_pch (libraries: -fPIC) and flexuq_pch_test (test programs: + GoogleTest), and every
# library and test reuses that. GCC only: its PCH falls back to parsing when flags differ; clang's
# is an error, so clang builds (preset fuzz) parse as before.
set(FLEXUQ_PCH_HEADERS <algorithm> <array> <cmath> <cstdint> <fstream> <functional> <iomanip> <limits> <map>
    <memory> <numeric> <optional> <set> <sstream> <string> <utility> <vector>
    <mpi.h> <petscsys.h> <petscmat.h> <petscksp.h> <slepceps.h> <slepcsvd.h> <Eigen/Dense>)
if(FLEXUQ_PCH AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(FLEXUQ_PCH_ACTIVE ON)
  # Eigen's decompositions declared extern in the PCH and instantiated once in flexuq_core
  # (include/flexuq/core/EigenInstances.hpp says why). Off in preset asan: its build compiles only
  # core, io and uq, which use few of them, and the three instantiation files under ASan cost more
  # than they save there (clean-clone asan builds the same day: 619 s with them, 513 s without).
  if(FLEXUQ_EIGEN_INSTANCES)
    set(FLEXUQ_EIGEN_INSTANCES_ACTIVE ON)
    list(APPEND FLEXUQ_PCH_HEADERS ${PROJECT_SOURCE_DIR}/include/flexuq/core/EigenInstances.hpp)
  endif()
  add_library(flexuq_pch STATIC ${PROJECT_SOURCE_DIR}/cmake/pch.cpp)
  target_link_libraries(flexuq_pch PUBLIC flexuq_deps)
  set_target_properties(flexuq_pch PROPERTIES CXX_EXTENSIONS OFF POSITION_INDEPENDENT_CODE ON)
  target_precompile_headers(flexuq_pch PRIVATE ${FLEXUQ_PCH_HEADERS})
else()
  set(FLEXUQ_PCH_ACTIVE OFF)
endif()

# flexuq_add_library(<module> SOURCES ... DEPENDS ...): one static library per module.
function(flexuq_add_library module)
  cmake_parse_arguments(A "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(flexuq_${module} STATIC ${A_SOURCES})
  target_link_libraries(flexuq_${module} PUBLIC flexuq_deps ${A_DEPENDS})
  set_target_properties(flexuq_${module} PROPERTIES CXX_EXTENSIONS OFF POSITION_INDEPENDENT_CODE ON)
  if(FLEXUQ_PCH_ACTIVE)
    target_precompile_headers(flexuq_${module} REUSE_FROM flexuq_pch)
  endif()
endfunction()

# flexuq_add_mpi_test(<name> SOURCES ... LIBS ... NP 1 2 [LABELS ...] [TIMEOUT s])
# Builds one GoogleTest binary with the MPI-aware main and registers it once per rank count,
# as <name>_np<N> with PROCESSORS N and labels np<N>.
function(flexuq_add_mpi_test name)
  cmake_parse_arguments(A "" "TIMEOUT" "SOURCES;LIBS;NP;LABELS;ARGS" ${ARGN})
  if(NOT A_NP)
    set(A_NP 1 2)
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE flexuq_test_main ${A_LIBS} GTest::gtest)
  if(FLEXUQ_PCH_ACTIVE)
    target_precompile_headers(${name} REUSE_FROM flexuq_pch_test)
  endif()
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  foreach(np IN LISTS A_NP)
    if(np GREATER MPIEXEC_MAX_NUMPROCS)
      set(over --oversubscribe)
    else()
      set(over "")
    endif()
    add_test(NAME ${name}_np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS} ${over}
                     $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS} ${A_ARGS}
             WORKING_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
    set_tests_properties(${name}_np${np} PROPERTIES PROCESSORS ${np} TIMEOUT ${A_TIMEOUT}
                         LABELS "np${np};${A_LABELS}"
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OPENBLAS_NUM_THREADS=1;OMP_NUM_THREADS=1;FLEXUQ_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  endforeach()
endfunction()
