# Included by tests/CMakeLists.txt (its functions and variables): instruction-set levels; one copy per schema.

# Instruction-set levels (issue 21, lu/isa.hpp): each level this CPU has verifies S and W on 1-3
# ranks with one checksum on every partition, the same through lu and the Fortran driver
# (libnpblu.so), and the same as the baseline level; NPBLU_ISA refused with exit 2 for a word
# that is no level and for a level the CPU lacks; the level objects share no inline code.
set(ISA_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/isa_check.py --lu $<TARGET_FILE:lu>
    --driver $<TARGET_FILE:timed_driver> ${MPI_LAUNCH_ARGS} --workdir .)
foreach(level baseline v3 v4)
  npblu_test(isa_${level}_S_W ${ISA_CHECK} level ${level})
  set_tests_properties(isa_${level}_S_W PROPERTIES LABELS mpi TIMEOUT 900 SKIP_RETURN_CODE 77)
endforeach()
npblu_test(isa_restart_other_level ${ISA_CHECK} restart)
set_tests_properties(isa_restart_other_level PROPERTIES LABELS mpi TIMEOUT 300)
npblu_test(isa_refused ${ISA_CHECK} refused)
set_tests_properties(isa_refused PROPERTIES LABELS "mpi;bad_input" TIMEOUT 300)
# --version: the version (interop/c/npblu.h, the library's too) and the level the kernels run, the one
# NPBLU_ISA forces (baseline: every x86-64 CPU has it).
file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/expected_version.txt expected_version LIMIT_COUNT 1)
string(REPLACE "." "[.]" expected_version_regex "${expected_version}")
mpi_command(version_lu_command 1 $<TARGET_FILE:lu> --version)
npblu_test(version_lu bash ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh "^lu [(]npblu[)] ${expected_version_regex}$"
           ${version_lu_command})
npblu_test(version_lu_level bash ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh "^kernels: baseline [(]x86-64"
           ${version_lu_command})
npblu_test(version_lu_sim bash ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh
           "^lu-sim [(]npblu[)] ${expected_version_regex}$" $<TARGET_FILE:lu-sim> --version)
set_tests_properties(version_lu version_lu_level PROPERTIES LABELS mpi TIMEOUT 60)
set_tests_properties(version_lu_level PROPERTIES ENVIRONMENT "NPBLU_ISA=baseline")
set(kernel_level_objects "")
foreach(level_flags ${NPBLU_KERNEL_LEVELS})
  string(REGEX REPLACE ":.*" "" level "${level_flags}")
  list(APPEND kernel_level_objects $<TARGET_OBJECTS:npblu_kernels_${level}>)
endforeach()
npblu_test(kernel_levels_share_nothing bash ${CMAKE_CURRENT_SOURCE_DIR}/kernel_levels_share_nothing.sh ${kernel_level_objects})
set_tests_properties(kernel_levels_share_nothing PROPERTIES LABELS unit TIMEOUT 60)

# One copy per schema (schema_check.py): the same run identity in the traces and JSON reports of
# lu and lu-sim, and adding a field to the per-iteration record is one edit: lu and lu-sim with
# one more row in the table (NPBLU_TEST_EXTRA_RECORD_FIELD in lu/io/iteration_record.cpp). Only that file is
# compiled again; its objects come before the libraries on the link line, so they replace
# the ordinary table (a second definition pulled from the archive would fail the link).
add_library(npblu_record_extra OBJECT ${PROJECT_SOURCE_DIR}/lu/io/iteration_record.cpp)
target_link_libraries(npblu_record_extra PRIVATE npblu_app)
target_compile_definitions(npblu_record_extra PRIVATE NPBLU_TEST_EXTRA_RECORD_FIELD)
add_executable(lu_extra_record ${PROJECT_SOURCE_DIR}/lu/run/main.cpp $<TARGET_OBJECTS:npblu_record_extra>)
target_link_libraries(lu_extra_record PRIVATE npblu_app)
add_executable(lu_sim_extra_record ${PROJECT_SOURCE_DIR}/sim/main.cpp $<TARGET_OBJECTS:npblu_record_extra>)
target_link_libraries(lu_sim_extra_record PRIVATE npblu_sim)
foreach(target npblu_record_extra lu_extra_record lu_sim_extra_record)
  npblu_native(${target} ${NPBLU_NATIVE})
endforeach()
npblu_test(schema_record_and_identity ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/schema_check.py
  --lu $<TARGET_FILE:lu> --lu-extra $<TARGET_FILE:lu_extra_record> --sim-extra $<TARGET_FILE:lu_sim_extra_record>
  ${MPI_LAUNCH_ARGS})
set_tests_properties(schema_record_and_identity PROPERTIES LABELS mpi TIMEOUT 300)
