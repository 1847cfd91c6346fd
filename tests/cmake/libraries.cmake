# Included by tests/CMakeLists.txt (its functions and variables): Fortran and C callers of the installed libraries: drivers, pkg-config and CMake users, the library's own communicator, the documentation's links.

# Fortran callers: the modern module driver (two runs in one MPI session and
# an invalid class), the legacy fixed-form LURUN driver, the README's example.
foreach(np 1 2)
  foreach(driver modern_driver legacy_driver minimal)
    mpi_command(driver_command ${np} $<TARGET_FILE:${driver}>)
    npblu_test(fortran_${driver}_np${np} ${driver_command})
    set_tests_properties(fortran_${driver}_np${np} PROPERTIES LABELS mpi TIMEOUT 120)
  endforeach()
endforeach()

# The MPI launch for scripts: "MPIEXEC NUMPROC_FLAG" then N then the preflags.
set(downstream_env "MPIEXEC=${MPIEXEC_EXECUTABLE}" "MPIEXEC_NUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG}"
                   "MPIEXEC_PREFLAGS=${mpiexec_preflags_text}" "MPI_C_COMPILER=${MPI_C_COMPILER}"
                   "MPI_CXX_COMPILER=${MPI_CXX_COMPILER}" "MPI_Fortran_COMPILER=${MPI_Fortran_COMPILER}")
npblu_test(install_and_find_package bash ${CMAKE_CURRENT_SOURCE_DIR}/downstream_check.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/work/install_and_find_package/tree
                 # sanitized libraries need the sanitizer runtime in the downstream executables too
                 $<$<BOOL:${NPBLU_SANITIZE}>:-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined>)
set_tests_properties(install_and_find_package PROPERTIES LABELS mpi TIMEOUT 300
                     ENVIRONMENT "${downstream_env}")

# Makefile users: install, then build the F77 example and a C program with
# pkg-config (npblu-fortran.pc, npblu.pc) and a plain Makefile, and run them.
npblu_test(install_and_pkg_config bash ${CMAKE_CURRENT_SOURCE_DIR}/pkg_config_check.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/work/install_and_pkg_config/tree
                 $<$<BOOL:${NPBLU_SANITIZE}>:LDFLAGS=-fsanitize=address,undefined>)
set_tests_properties(install_and_pkg_config PROPERTIES LABELS mpi TIMEOUT 300
                     ENVIRONMENT "${downstream_env}")

# The library talks on its own duplicate of the caller's communicator: a
# caller's pending wildcard receive neither blocks a run nor loses its message;
# two solvers run at once on the halves of a split communicator.
foreach(program own_communicator split_communicator library_version)
  add_executable(${program} ${program}.c)
  target_link_libraries(${program} PRIVATE npblu)
endforeach()
target_compile_definitions(library_version PRIVATE NPBLU_PROJECT_VERSION="${PROJECT_VERSION}")
mpi_command(own_communicator_command 2 $<TARGET_FILE:own_communicator>)
npblu_test(own_communicator_wildcard_receive ${own_communicator_command})
mpi_command(split_communicator_command 4 $<TARGET_FILE:split_communicator>)
npblu_test(split_communicator_two_solvers ${split_communicator_command})
# (Without the duplicate the first hangs: a timeout, so keep it short.)
set_tests_properties(own_communicator_wildcard_receive split_communicator_two_solvers PROPERTIES
                     LABELS mpi TIMEOUT 60)
npblu_test(library_version $<TARGET_FILE:library_version> ${CMAKE_CURRENT_SOURCE_DIR}/expected_version.txt
           $<TARGET_FILE:npblu>)
npblu_test(exported_symbols bash ${CMAKE_CURRENT_SOURCE_DIR}/exported_symbols.sh
                                       $<TARGET_FILE:npblu> $<TARGET_FILE:npblu_fortran>
                                       $<TARGET_FILE:npblu_balance> $<TARGET_FILE:npblu_balance_fortran>)
# The standalone balance library (issue 19): no HDF5, fmt or solver in it or in heat_balance.
npblu_test(balance_library_standalone bash ${CMAKE_CURRENT_SOURCE_DIR}/balance_library_standalone.sh
                                       $<TARGET_FILE:npblu_balance> $<TARGET_FILE:heat_balance> $<TARGET_FILE:npblu>)
set_tests_properties(library_version exported_symbols balance_library_standalone PROPERTIES LABELS unit TIMEOUT 60)

npblu_test(experiments_dry_run ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/experiments_dry_run.py
                 ${PROJECT_SOURCE_DIR}/runs/experiments $<TARGET_FILE:lu>)
set_tests_properties(experiments_dry_run PROPERTIES LABELS unit TIMEOUT 60)
npblu_test(docs_links ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs_links.py --root ${PROJECT_SOURCE_DIR})
set_tests_properties(docs_links PROPERTIES LABELS unit TIMEOUT 60)
# runs/roofline's tools: the machine-limits program runs and orders its bandwidths; with valgrind and a
# lu valgrind can decode (no -march=native, no sanitizer), the flop count of the SSOR update is exactly 15.
find_program(NPBLU_VALGRIND valgrind)
set(roofline_count "")
if(NPBLU_VALGRIND AND NOT NPBLU_NATIVE AND NOT NPBLU_SANITIZE)
  set(roofline_count --count)
endif()
npblu_test(roofline_tools ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/roofline_check.py
           --cxx ${CMAKE_CXX_COMPILER} --lu $<TARGET_FILE:lu> ${roofline_count})
set_tests_properties(roofline_tools PROPERTIES LABELS unit TIMEOUT 300)
