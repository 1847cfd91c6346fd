# Included by tests/CMakeLists.txt (its functions and variables): layout rules; bad input refused on every rank (tests/bad_inputs.txt); failing writes; C API refusals; lu-sim's trace and refusals.

# The layout rules: files and functions short, the README's layout table the tree's folders.
npblu_test(layout_check ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/layout_check.py ${PROJECT_SOURCE_DIR})
set_tests_properties(layout_check PROPERTIES LABELS unit TIMEOUT 60)
# runs/mutation_check.py's faults still apply to the code and name tests that exist (the check itself is slow
# and not part of the suite; a stale list would stop it after its build).
npblu_test(mutation_faults_apply ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/runs/mutation_check.py
           --tree ${PROJECT_SOURCE_DIR} --check-edits ${CMAKE_BINARY_DIR})
set_tests_properties(mutation_faults_apply PROPERTIES LABELS unit TIMEOUT 60)

lu_test(custom_size_runs mpi 120 custom --np 2 -- --size 10 14 8 --iterations 5 --dt 0.5)
# A custom problem whose residual falls below NPB's tolerance after some 50 iterations: progress lines (here
# after every iteration) show the norm but never stop the run, which ends its 2000 iterations as with -q.
lu_test(custom_converged_with_progress mpi 120 custom --np 2 -- --size 8 8 8 --iterations 2000 --dt 0.5
        --progress-interval 1e-9)


# Every bad input refused cleanly, before computing, on every rank (issue 15): one CTest test per
# line of tests/bad_inputs.txt, launched like every MPI test (MPIEXEC_* above).
set(BAD_INPUT_TABLE ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/bad_input_table.py ${LU_TABLE_LAUNCH_ARGS}
    --workdir .)
npblu_table_tests(refuse ${CMAKE_CURRENT_SOURCE_DIR}/bad_inputs.txt 90 ${BAD_INPUT_TABLE})
# A trace write failing on rank 0 mid-run (test-only fault injection): exit 3 on every rank, one
# line, the trace on disk complete up to the last flush.
npblu_test(midrun_trace_failure_every_rank ${BAD_INPUT_TABLE} mid-run --np 3 --fail-at 13 --trace-flush 5 -- S --balance diffusive)
set_tests_properties(midrun_trace_failure_every_rank PROPERTIES LABELS "mpi;bad_input" TIMEOUT 120)
# Stripes a node's memory cannot hold (every node made to report 1000 bytes available): refused
# before anything is allocated, exit 2 on every rank, one line; with --memory-check off it verifies.
npblu_test(memory_refused_every_rank ${BAD_INPUT_TABLE} memory --np 2 -- S)
set_tests_properties(memory_refused_every_rank PROPERTIES LABELS "mpi;bad_input" TIMEOUT 120)
# Under a real cgroup limit of 200 MB (v2 or v1, made for the test; skipped where it cannot be):
# class C on 2 ranks (517 MB) refused, the message naming the cgroup's limit.
npblu_test(memory_cgroup_limit ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cgroup_limit_check.py
           ${LU_TABLE_LAUNCH_ARGS} --np 2 -- C)
set_tests_properties(memory_cgroup_limit PROPERTIES LABELS "mpi;bad_input" TIMEOUT 120 SKIP_RETURN_CODE 77)
# The same where --weights calibrate first times a few iterations on equal stripes: checked before that.
npblu_test(memory_refused_calibrate ${BAD_INPUT_TABLE} memory --np 2 -- S --weights calibrate)
set_tests_properties(memory_refused_calibrate PROPERTIES LABELS "mpi;bad_input" TIMEOUT 120)
# The same with a real full file system: a 128 kB tmpfs the trace fills (skipped where it cannot mount).
npblu_test(midrun_trace_disk_full_every_rank ${BAD_INPUT_TABLE} disk-full --np 2 -- S --iterations 3000)
set_tests_properties(midrun_trace_disk_full_every_rank PROPERTIES LABELS "mpi;bad_input" TIMEOUT 180
                     SKIP_RETURN_CODE 77)

# The C API: bad values refused at the call; npblu_set_size's dt bit for bit through the JSON;
# a combination error and a mid-run failure as an error on every rank.
add_executable(c_api_config c_api_config.c)
target_link_libraries(c_api_config PRIVATE npblu MPI::MPI_C m)
mpi_command(c_api_config_command 2 $<TARGET_FILE:c_api_config> .)
npblu_test(c_api_config_np2 ${c_api_config_command})
set_tests_properties(c_api_config_np2 PROPERTIES LABELS "mpi;bad_input" TIMEOUT 120)

# lu-sim: its trace has lu's schema (plot_trace draws 64 ranks), and bad input is refused.
npblu_test(sim_trace_plot_64_ranks bash -c "$<TARGET_FILE:lu-sim> -P 64 --size 64 1282 64 --iterations 160 --balance diffusive --emulate-speeds @${PROJECT_SOURCE_DIR}/runs/examples/sim_64ranks_change_speeds.txt --noise 0.05 --trace sim64.h5 --json sim64.json --quiet && ${SYSTEM_PYTHON3} ${PROJECT_SOURCE_DIR}/runs/plot_trace.py sim64.h5 -o sim64.png && ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/trace_check.py file sim64.h5 sim64.png sim64.json")
set_tests_properties(sim_trace_plot_64_ranks PROPERTIES LABELS unit TIMEOUT 120)
# lu-sim warns, as lu does, where the default cadence comes after the last iteration (it refused: an option never given).
npblu_test(sim_warn_diffusive_never_steps bash -c "$<TARGET_FILE:lu-sim> -P 2 --class A --balance diffusive --iterations 3 >/dev/null 2>w.txt && grep -q 'lu-sim: warning: --balance diffusive balances every 5 iterations (--balance-every) and 3 iterations are left to run' w.txt")
npblu_test(sim_warn_diffusive_one_rank bash -c "$<TARGET_FILE:lu-sim> -P 1 --class S --balance diffusive >/dev/null 2>w1.txt && grep -q 'lu-sim: warning: --balance diffusive on 1 rank: the one stripe holds every column' w1.txt")
# Progress lines in lu's format, one an interval (here every iteration but the last), none with --quiet.
npblu_test(sim_progress_lines bash -c "$<TARGET_FILE:lu-sim> -P 2 --class S --iterations 4 --progress-interval 1e-9 >p.txt && test $(grep -c '^ iteration      [123] / 4   elapsed .* s (the model.s run)$' p.txt) = 3 && $<TARGET_FILE:lu-sim> -P 2 --class S --iterations 4 --progress-interval 1e-9 --quiet --json p.json >q.txt && ! grep -q iteration q.txt")
set_tests_properties(sim_warn_diffusive_never_steps sim_warn_diffusive_one_rank sim_progress_lines PROPERTIES LABELS unit
                     TIMEOUT 60)
# plot_trace refuses what it cannot draw or write in one line (a directory, a truncated trace, /proc).
npblu_test(plot_trace_refusals ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/plot_trace_refusals.py
           --lu-sim $<TARGET_FILE:lu-sim> --workdir .)
set_tests_properties(plot_trace_refusals PROPERTIES LABELS "unit;bad_input" TIMEOUT 120)
npblu_test(sim_bad_too_many_ranks bash -c "$<TARGET_FILE:lu-sim> -P 40 --class A 2>err.txt$<SEMICOLON> test $? -eq 2 && grep -q 'lu-sim: error: too many ranks' err.txt")
set_tests_properties(sim_bad_too_many_ranks PROPERTIES LABELS unit TIMEOUT 30)
npblu_test(sim_bad_speed_count bash -c "$<TARGET_FILE:lu-sim> -P 3 --class S --emulate-speeds 1,0.5 2>&1 | grep -q 'gives 2 speeds'")
set_tests_properties(sim_bad_speed_count PROPERTIES LABELS unit TIMEOUT 30)
npblu_test(sim_bad_core_map bash -c "$<TARGET_FILE:lu-sim> -P 3 --class S --cores 0,1 2>err.txt$<SEMICOLON> test $? -eq 2 && grep -q 'lu-sim: error: --cores gives 2 cores for 3 ranks' err.txt && ! $<TARGET_FILE:lu-sim> -P 3 --class S --cores 0,1,1 --core-slice 0 2>err2.txt && grep -q 'core-slice must be' err2.txt")
set_tests_properties(sim_bad_core_map PROPERTIES LABELS unit TIMEOUT 30)
npblu_test(sim_bad_unpinned bash -c "! $<TARGET_FILE:lu-sim> -P 3 --class S --unpinned 3 2>e1.txt && grep -q \"lu-sim: error: --unpinned '3': expected RANKS:CORES\" e1.txt && ! $<TARGET_FILE:lu-sim> -P 3 --class S --unpinned 3:0 2>e2.txt && grep -q 'expected RANKS:CORES' e2.txt && ! $<TARGET_FILE:lu-sim> -P 3 --class S --unpinned 3:2 --cores 0,1,1 2>e3.txt && grep -q 'give --cores or --unpinned, not both' e3.txt && ! $<TARGET_FILE:lu-sim> -P 3 --class S --unpinned 3:2 --scheduler-period 0 2>e4.txt && grep -q 'scheduler-period must be' e4.txt && ! $<TARGET_FILE:lu-sim> -P 3 --class S --share-pools maybe 2>e5.txt && grep -q \"share-pools 'maybe': expected on or off\" e5.txt && ! $<TARGET_FILE:lu-sim> -P 3 --class S --unpinned 3:2 --core-speeds 1 2>e6.txt && grep -q 'core-speeds gives 1 speed for 2 cores' e6.txt && ! $<TARGET_FILE:lu-sim> -P 3 --class S --core-speeds 1,1 2>e7.txt && grep -q 'core-speeds needs --cores or --unpinned' e7.txt")
