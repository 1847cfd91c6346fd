# Included by tests/CMakeLists.txt (its functions and variables): outputs that never destroy, checkpoint headers tampered, collective calls that disagree, status modules, exit statuses, the balancer's quality through lu-sim.

# Issue 22: outputs that never destroy a file (one CTest test per line of tests/output_cases.txt:
# every file's SHA-256 before and after), every checkpoint header attribute tampered in turn, and
# collective calls of the C and Fortran APIs that disagree between ranks.
set(OUTPUT_TABLE ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/output_table.py ${LU_TABLE_LAUNCH_ARGS} --workdir .)
npblu_table_tests(output ${CMAKE_CURRENT_SOURCE_DIR}/output_cases.txt 180 ${OUTPUT_TABLE})
npblu_test(checkpoint_header_tampered ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/checkpoint_tamper.py
         ${LU_TABLE_LAUNCH_ARGS} --workdir . --np 2)
set_tests_properties(checkpoint_header_tampered PROPERTIES LABELS "mpi;bad_input" TIMEOUT 400)
# A restart continues the diffusive balancer's evidence, prices and counts (not only its settings).
npblu_test(checkpoint_balancer_continues ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/balancer_restart_check.py
         ${LU_TABLE_LAUNCH_ARGS} --workdir .)
set_tests_properties(checkpoint_balancer_continues PROPERTIES LABELS mpi TIMEOUT 300)
add_executable(c_api_disagree c_api_disagree.c)
target_link_libraries(c_api_disagree PRIVATE npblu MPI::MPI_C)
foreach(case advance_negative_one_rank advance_5_and_3 checkpoint_empty_one_rank class_rank0_only class_s_and_w
             diffusive_rank0_only columns_differ set_field_rank0_only run_and_start set_field_nan
             checkpoint_fifo invalid_communicators balancer_extra_feed
             balancer_widths_and_migrate result_buffers_one_rank)
  mpi_command(disagree_command 2 $<TARGET_FILE:c_api_disagree> ${case})
  npblu_test(c_api_disagree_${case} ${disagree_command})
  set_tests_properties(c_api_disagree_${case} PROPERTIES LABELS "mpi;bad_input" TIMEOUT 60)
endforeach()
# Modules npblu and npblu_balance used together, their status codes named (one npblu_status module).
add_executable(fortran_status_modules fortran_status_modules.f90)
target_link_libraries(fortran_status_modules PRIVATE npblu_fortran MPI::MPI_Fortran)
mpi_command(fortran_status_modules_command 2 $<TARGET_FILE:fortran_status_modules>)
npblu_test(fortran_status_modules_np2 ${fortran_status_modules_command})
set_tests_properties(fortran_status_modules_np2 PROPERTIES LABELS "mpi;balance_api" TIMEOUT 60)
add_executable(fortran_disagree fortran_disagree.f90)
target_link_libraries(fortran_disagree PRIVATE npblu_fortran MPI::MPI_Fortran)
mpi_command(fortran_disagree_command 2 $<TARGET_FILE:fortran_disagree>)
npblu_test(fortran_disagree_np2 ${fortran_disagree_command})
set_tests_properties(fortran_disagree_np2 PROPERTIES LABELS "mpi;bad_input" TIMEOUT 60)
# lu-sim: costs that could only give negative or NaN times, and outputs checked before simulating.
npblu_test(sim_bad_cost_negative bash -c "$<TARGET_FILE:lu-sim> -P 2 --class S --cost-rhs -1e-9 2>err_cost.txt$<SEMICOLON> test $? -eq 2 && grep -q 'lu-sim: error: --cost-rhs -1e-09: must be a finite number of seconds >= 0' err_cost.txt")
npblu_test(sim_bad_cost_nan bash -c "$<TARGET_FILE:lu-sim> -P 2 --class S --cost-lower nan 2>err_nan.txt$<SEMICOLON> test $? -eq 2 && grep -q 'lu-sim: error: --cost-lower .nan. must be a finite number' err_nan.txt")
npblu_test(sim_bad_lanes bash -c "$<TARGET_FILE:lu-sim> -P 2 --class S --lanes 3 2>err_lanes.txt$<SEMICOLON> test $? -eq 2 && grep -q 'lu-sim: error: --lanes 3: must be 1, 2, 4 or 8' err_lanes.txt")
npblu_test(sim_json_checked_before_simulating bash -c "$<TARGET_FILE:lu-sim> -P 2 --class S --json /nonexistent/dir/s.json >out_json.txt 2>err_json.txt$<SEMICOLON> test $? -eq 2 && grep -q \"directory '/nonexistent/dir' does not exist\" err_json.txt && ! grep -q 'modelled time' out_json.txt")
npblu_test(sim_segment_past_the_end bash -c "$<TARGET_FILE:lu-sim> -P 2 --class S --emulate-speeds '1,1$<SEMICOLON>@51:1,0.5' 2>err_seg.txt$<SEMICOLON> test $? -eq 2 && grep -q 'the segment @51 starts after the last iteration (50)' err_seg.txt")
# Refused numbers are echoed as written back (std::to_string showed -1e-9 as -0.000000).
npblu_test(sim_bad_prices_echoed bash -c "$<TARGET_FILE:lu-sim> -P 3 --class S --unpinned 3:2 --scheduler-period -1e-9 2>e1.txt$<SEMICOLON> test $? -eq 2 && grep -q 'scheduler-period must be a finite number of seconds >= 1e-06, got -1e-09' e1.txt && $<TARGET_FILE:lu-sim> -P 2 --class S --migration-iterations -0.5 2>e2.txt$<SEMICOLON> test $? -eq 2 && grep -q 'migration-iterations must be a finite number >= 0, got -0.5' e2.txt && $<TARGET_FILE:lu-sim> -P 2 --class S --migration-column-seconds inf 2>e3.txt$<SEMICOLON> test $? -eq 2 && grep -q 'migration-column-seconds .inf. must be a finite number' e3.txt && $<TARGET_FILE:lu-sim> -P 2 --class S --latency 1e308 2>e4.txt$<SEMICOLON> test $? -eq 2 && grep -q 'the modelled time is not finite' e4.txt")
set_tests_properties(sim_bad_cost_negative sim_bad_cost_nan sim_bad_lanes sim_json_checked_before_simulating sim_segment_past_the_end
                     sim_bad_prices_echoed
                     PROPERTIES LABELS "unit;bad_input" TIMEOUT 60)

# Exit statuses on every rank (README, "Usage"): 1 for a run that does not verify (test-only
# NPBLU_TEST_FAULT=wrong-norms), 3 for a JSON report or a checkpoint that cannot be written (a full
# tmpfs; skipped where it cannot mount), MPI_Abort's 3 when one rank fails alone (throw-on-rank-1); with
# --checkpoint, 4 for a SIGTERM during start-up and 0 for one after the last iteration or after the run
# (sigterm-at=...).
set(EXIT_STATUS_CHECK ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/exit_status_check.py ${LU_TABLE_LAUNCH_ARGS})
foreach(case "not_verified;not-verified;3" "json_write_fails;json-disk-full;2"
             "checkpoint_write_fails;checkpoint-disk-full;2" "one_rank_fails_aborts;abort;2"
             "signal_at_start;signal-at-start;2" "signal_after_last;signal-after-last;2"
             "signal_at_exit;signal-at-exit;2")
  list(GET case 0 name)
  list(GET case 1 mode)
  list(GET case 2 np)
  npblu_test(exit_status_${name} ${EXIT_STATUS_CHECK} --np ${np} ${mode} -- S)
  set_tests_properties(exit_status_${name} PROPERTIES LABELS mpi TIMEOUT 120 SKIP_RETURN_CODE 77)
endforeach()

# The balancer's direction, final quality against the best partition and stillness, deterministic:
# lu-sim drives the real decision code with modelled, seeded times (tests/sim_balance_check.py).
foreach(case strong many still change)
  npblu_test(sim_balance_${case} ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/sim_balance_check.py
             $<TARGET_FILE:lu-sim> ${case})
  set_tests_properties(sim_balance_${case} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()
# The README's convergence table at P = 4, every scenario and noise level, through the script that
# prints it (runs/bench_sim.py): every row within its bar, and the script itself still runs lu-sim.
npblu_test(sim_bench_table_P4 bash -c "${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/runs/bench_sim.py --sim $<TARGET_FILE:lu-sim> --ranks 4 --jobs 1 >table.txt && grep -q '^0 of 39 rows miss the bar$' table.txt")
set_tests_properties(sim_bench_table_P4 PROPERTIES LABELS unit TIMEOUT 300)
