# Included by tests/CMakeLists.txt (its functions and variables): the C API's run in steps and its checkpoint, and the Fortran modules.

# The C API (checkpoint now in a run in steps, options, refusals) and the Fortran module.
add_executable(c_api_checkpoint c_api_checkpoint.cpp)
target_link_libraries(c_api_checkpoint PRIVATE npblu MPI::MPI_C nlohmann_json::nlohmann_json)
mpi_command(c_api_checkpoint_command 2 $<TARGET_FILE:c_api_checkpoint> .)
npblu_test(c_api_checkpoint_np2 ${c_api_checkpoint_command})
add_executable(fortran_checkpoint fortran_checkpoint.f90)
target_link_libraries(fortran_checkpoint PRIVATE npblu_fortran MPI::MPI_Fortran)
foreach(np 1 2)
  mpi_command(fortran_checkpoint_command ${np} $<TARGET_FILE:fortran_checkpoint>)
  npblu_test(fortran_checkpoint_np${np} ${fortran_checkpoint_command})
endforeach()
set_tests_properties(c_api_checkpoint_np2 fortran_checkpoint_np1 fortran_checkpoint_np2 PROPERTIES LABELS mpi
                     TIMEOUT 120)

# The C API's run in steps (issue 13): start + advance(1) + advance(49) + advance(200) + finish is
# npblu_run bit for bit (field checksum, norms, surface integral), with and without the balancer
# moving columns; u copied out on 3 ranks and gathered is the 1-rank u; u copied back in rewinds the
# run exactly; calls out of order and wrong sizes are refused on every rank.
add_executable(c_api_stepping c_api_stepping.c)
target_link_libraries(c_api_stepping PRIVATE npblu MPI::MPI_C)
function(c_api_stepping_test name np label timeout)
  mpi_command(command ${np} $<TARGET_FILE:c_api_stepping> ${ARGN})
  npblu_test(${name} ${command})
  set_tests_properties(${name} PROPERTIES LABELS "${label}" TIMEOUT ${timeout})
endfunction()
c_api_stepping_test(c_api_stepped_A_equals_full_np2 2 long 900 same A 1,49,200)
c_api_stepping_test(c_api_stepped_S_equals_full_np2 2 mpi 120 same S 1,19,30)
c_api_stepping_test(c_api_stepped_W_equals_full_np3 3 mpi 300 same W 1,49,100,150 planes-per-message=4)
c_api_stepping_test(c_api_stepped_S_diffusive_equals_full_np2 2 mpi 120 same S 1,9,40 balance=diffusive
                    balance-every=2 emulate-speeds=1,0.3 trace=c_api_stepped_S_diffusive.h5 trace-overwrite=)
c_api_stepping_test(c_api_field_gather_S_np3 3 mpi 120 gather S columns=3,5,2)
c_api_stepping_test(c_api_field_gather_S_diffusive_np3 3 mpi 120 gather S balance=diffusive balance-every=2
                    emulate-speeds=1,0.3,1)
c_api_stepping_test(c_api_field_copy_in_S_np2 2 mpi 120 copy_in S)
c_api_stepping_test(c_api_stepping_order_np2 2 "mpi;bad_input" 120 order S)

# Fortran (issue 13): the README's stepping example; module npblu from callers with default and with
# 8-byte integers (-fdefault-integer-8), through mpi_f08 (type(MPI_Comm) and integer handles), stepped
# == npblu_run; LURUN through USE NPBLU_LEGACY with both integer sizes; the solver's finalizer.
set(fortran_step_drivers step_solver legacy_driver_i8)
# (Arguments of a driver: the integer size in bytes its build must have.)
set(fortran_kinds_args 4)
set(fortran_kinds_int8_args 8)
set(legacy_driver_i8_prints "INTEGER\\*4\\): CLASS S VERIFIED")
set(legacy_driver_i8_int8_prints "INTEGER\\*8\\): CLASS S VERIFIED")
# (LURUN's message for a class of two letters, on rank 0's standard error)
set(fortran_kinds_prints "LURUN: --class: unknown class 'SX'")
set(fortran_kinds_int8_prints "${fortran_kinds_prints}")
if(NPBLU_FORTRAN_INTEGER8_FLAG)
  list(APPEND fortran_step_drivers legacy_driver_i8_int8)
endif()
if(MPI_Fortran_HAVE_F08_MODULE)
  add_executable(fortran_kinds fortran_kinds.f90)
  list(APPEND fortran_step_drivers fortran_kinds)
  if(NPBLU_FORTRAN_INTEGER8_FLAG)
    add_executable(fortran_kinds_int8 fortran_kinds.f90)
    target_compile_options(fortran_kinds_int8 PRIVATE ${NPBLU_FORTRAN_INTEGER8_FLAG})
    list(APPEND fortran_step_drivers fortran_kinds_int8)
  endif()
  foreach(driver fortran_kinds fortran_kinds_int8)
    if(TARGET ${driver})
      # Each its own module directory: the two builds' .mod files must not meet.
      set_target_properties(${driver} PROPERTIES Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/mod_${driver})
      target_link_libraries(${driver} PRIVATE npblu_fortran MPI::MPI_Fortran)
    endif()
  endforeach()
endif()
add_executable(fortran_finalizer fortran_finalizer.f90 count_releases.c)
target_link_libraries(fortran_finalizer PRIVATE npblu_fortran npblu MPI::MPI_Fortran ${CMAKE_DL_LIBS})
list(APPEND fortran_step_drivers fortran_finalizer)
foreach(np 1 2 3)
  foreach(driver ${fortran_step_drivers})
    string(REGEX REPLACE "^fortran_" "" short ${driver})
    mpi_command(driver_command ${np} $<TARGET_FILE:${driver}> ${${driver}_args})
    if(DEFINED ${driver}_prints)
      # (it prints its integer size but does not check it: the output must name the expected one)
      set(driver_command bash ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh "${${driver}_prints}" ${driver_command})
    endif()
    npblu_test(fortran_${short}_np${np} ${driver_command})
    set_tests_properties(fortran_${short}_np${np} PROPERTIES LABELS mpi TIMEOUT 120)
  endforeach()
endforeach()
