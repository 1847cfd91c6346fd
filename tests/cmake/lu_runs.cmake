# Included by tests/CMakeLists.txt (its functions and variables): lu under mpiexec: verification, the same bits on any partition, placement from weights, the balancer, migration, waits, traces.

# MPI integration tests: the real binary under mpiexec, checked through its JSON.
set(LU_RUNNER ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/lu_runner.py
    --lu $<TARGET_FILE:lu> ${MPI_LAUNCH_ARGS} --workdir .)

function(lu_test name label timeout)
  npblu_test(${name} ${LU_RUNNER} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS "${label}" TIMEOUT ${timeout})
endfunction()

foreach(np 1 2 3 4 5)
  lu_test(verify_S_np${np} mpi 120 verify --np ${np} -- S)
endforeach()
foreach(np 1 2 3 7)
  lu_test(verify_W_np${np} mpi 300 verify --np ${np} -- W)
endforeach()
foreach(np 1 2)
  lu_test(verify_A_np${np} long 900 verify --np ${np} -- A)
endforeach()

# The SSOR update order does not depend on the partition: the final field
# must be bitwise identical on any number of ranks and any stripe widths.
lu_test(checksum_S_partitions mpi 300 same-checksum
  "1:S" "2:S" "3:S" "5:S" "3:S --columns 3,5,2" "2:S --columns 8,2")
lu_test(checksum_W_partitions mpi 600 same-checksum
  "1:W" "2:W" "3:W" "5:W" "3:W --columns 5,20,6")
# Asymmetric stripes from weights (lists, files, measured) with emulated
# speeds: still verified, still the same field as the equal partition.
# (Class S on 5 ranks has every stripe at the minimum width, whatever the weights: 4 ranks at most
# here, and "=> W0,W1,..." names the widths each weight case must start on, none the equal ones.)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/weights_4.txt "# four nodes\n4\n1\n1.5\n1\n")
lu_test(checksum_S_weights mpi 300 same-checksum
  "1:S" "2:S --weights 3,1 => 8,2" "3:S --weights 1,2.5,1 --emulate-speeds 1,0.5,1 => 2,6,2"
  "4:S --weights @${CMAKE_CURRENT_BINARY_DIR}/weights_4.txt => 4,2,2,2" "3:S --weights mflops" "2:S --weights bogomips"
  "4:S --weights calibrate --emulate-speeds 1,0.25,1,1" "3:S --columns 2,6,2")
# The header says where the stripes came from: weights and their source, or the columns as given.
mpi_command(header_columns_command 3 $<TARGET_FILE:lu> S --columns 2,2,6 -q)
npblu_test(header_columns_source bash ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh "^ Columns from explicit --columns$"
           ${header_columns_command})
mpi_command(header_weights_command 2 $<TARGET_FILE:lu> S --weights 3,1 -q)
npblu_test(header_weights_source bash ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh "^ Weights [(]list[)]: 3,1$"
           ${header_weights_command})
# A diffusive run shorter than the default cadence runs (a refusal would forbid short runs of the balancer's
# memory and output) and says that no step will be taken.
mpi_command(diffusive_short_command 2 $<TARGET_FILE:lu> S --iterations 3 --balance diffusive -q)
npblu_test(warn_diffusive_never_steps bash ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh
           "^lu: warning: --balance diffusive balances every 5 iterations [(]--balance-every[)] and 3 iterations are left to run: no balancing step will be taken$"
           ${diffusive_short_command})
# On 1 rank there is no neighbour to give columns to: said, and the run goes on (verified).
mpi_command(diffusive_one_rank_command 1 $<TARGET_FILE:lu> S --balance diffusive -q)
npblu_test(warn_diffusive_one_rank bash ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh
           "^lu: warning: --balance diffusive on 1 rank: the one stripe holds every column, no neighbour to move columns to: the balancer takes no step$"
           ${diffusive_one_rank_command})
set_tests_properties(header_columns_source header_weights_source warn_diffusive_never_steps warn_diffusive_one_rank
                     PROPERTIES LABELS mpi TIMEOUT 60)
lu_test(checksum_W_weights mpi 600 same-checksum
  "1:W" "2:W --weights 1,0.444 --emulate-speeds 1,0.444 => 22,9" "3:W --weights calibrate --emulate-speeds 0.6,1,0.8"
  "5:W --weights 5,1,1,1,2 => 16,3,3,3,6" "2:W --emulate-speeds 1,1$<SEMICOLON>@100:1,0.5")

# The diffusive balancer moves columns at run time; migration loses nothing:
# the final field is the 1-rank field, bit for bit. (Class S iterations are
# fractions of a millisecond: on a loaded node only a gross emulated slowness
# is beyond the noise the balancer measures; 4 ranks on 2 cores sleep while
# they wait, or a spinning waiter takes the core from the rank it waits for
# and every rank looks as slow as the slow one.)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/speeds_3.txt "# three ranks, the slow one changes at iteration 20\n1\n0.2\n1\n@20\n0.2\n1\n1\n")
lu_test(checksum_S_diffusive mpi 300 same-checksum
  "1:S" "2:S --balance diffusive --balance-every 2 --emulate-speeds 1,0.1"
  "3:S --balance diffusive --balance-every 2 --columns 2,2,6 --emulate-speeds 1,1,0.2"
  "3:S --balance diffusive --balance-every 2 --emulate-speeds @${CMAKE_CURRENT_BINARY_DIR}/speeds_3.txt"
  "4:S --wait sleep --balance diffusive --balance-every 2 --columns 4,2,2,2 --emulate-speeds 0.1,1,1,1")
# A speeds file is read by rank 0 and run as the schedule it gives (lu-sim's file, lu's syntax).
mpi_command(speeds_file_command 3 $<TARGET_FILE:lu> S --emulate-speeds @${CMAKE_CURRENT_BINARY_DIR}/speeds_3.txt -q)
npblu_test(header_speeds_file bash ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.sh
           "^ EMULATED speeds: 1,0[.]2,1$<SEMICOLON>@20:0[.]2,1,1$" ${speeds_file_command})
set_tests_properties(header_speeds_file PROPERTIES LABELS mpi TIMEOUT 60)
# (class S on 5 ranks has every stripe at the minimum width: nothing can move)
lu_test(checksum_W_diffusive mpi 600 same-checksum
  "1:W" "2:W --balance diffusive --emulate-speeds 1,0.444"
  "3:W --balance diffusive --emulate-speeds 1,0.4,1 --balance-damping 0.5"
  "5:W --balance diffusive --emulate-speeds 1,1,1,1,0.3" "2:W --balance diffusive --emulate-speeds 1,1$<SEMICOLON>@100:1,0.4")

# The balancer within each rank's memory: the node made to report what the stripes need plus 25.5
# columns of room a rank (NPBLU_TEST_FAULT), the limits reported and no stripe of the run past them;
# verified. Then the node's own memory: no limit.
npblu_test(balance_within_memory ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/memory_cap_check.py
           ${LU_TABLE_LAUNCH_ARGS} --workdir . -- W --balance diffusive --emulate-speeds 1,0.444)
set_tests_properties(balance_within_memory PROPERTIES LABELS mpi TIMEOUT 300)

# The ranks the scheduler places on shared cores, found from their CPU affinity (each rank pinned by
# taskset): one pool for 3 ranks allowed on the same 2 CPUs, ranks 1 and 2 for CPUs A,B,B, none for A,B.
npblu_test(share_pools_affinity ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/share_pools_check.py
           ${LU_TABLE_LAUNCH_ARGS} --workdir .)
set_tests_properties(share_pools_affinity PROPERTIES LABELS mpi TIMEOUT 300 SKIP_RETURN_CODE 77)

# Migration over several hops: a random new partition every few iterations
# (two in three giving nearly all columns to the last, then the first rank, so
# stripes jump to disjoint ranges), ending verified with the 1-rank field.
add_executable(random_migration random_migration.cpp)
target_link_libraries(random_migration PRIVATE npblu_solver npblu_verify)
foreach(case "S;3;3" "S;4;3" "W;3;7" "W;4;7" "W;5;7")
  list(GET case 0 cls)
  list(GET case 1 np)
  list(GET case 2 every)
  mpi_command(random_migration_command ${np} $<TARGET_FILE:random_migration> ${cls} ${every} 11)
  npblu_test(random_migration_${cls}_np${np} ${random_migration_command})
  set_tests_properties(random_migration_${cls}_np${np} PROPERTIES LABELS mpi TIMEOUT 300)
endforeach()
# (class S on 5 ranks has every stripe at the minimum width: no other partition exists)

# A test program NAME.cpp on the solver's library, run as NAME_np<P> for each
# rank count P given (exit 0 on pass, on every rank).
function(solver_mpi_program name)
  add_executable(${name} ${name}.cpp)
  target_link_libraries(${name} PRIVATE npblu_solver)
  foreach(np IN LISTS ARGN)
    mpi_command(command ${np} $<TARGET_FILE:${name}>)
    npblu_test(${name}_np${np} ${command})
    set_tests_properties(${name}_np${np} PROPERTIES LABELS mpi TIMEOUT 60)
  endforeach()
endfunction()

# Fields grow and shrink at their edges (in place while they have room, else
# moved once to storage with headroom): kept columns keep bytes and address,
# including a rank losing all but one column and regaining them.
solver_mpi_program(edge_migration 2 3)

# Collectives and migrations given a wait mode: ranks that wait differently
# (spinning, sleeping) still pair and get the right values; a sleeping rank
# leaves its core while it waits.
solver_mpi_program(collective_wait 2 3)

# How ranks wait (--wait) and how many planes a pipeline message carries
# (--planes-per-message, including one block of every plane and a block size
# that does not divide the planes) change when work happens, never what is
# computed: the same field as one rank.
lu_test(checksum_S_wait_planes mpi 300 same-checksum
  "1:S" "2:S --wait sleep" "3:S --wait spin --planes-per-message 4" "3:S --wait auto --planes-per-message 3 --columns 2,5,3"
  "2:S --planes-per-message 100" "4:S --wait sleep --planes-per-message 2 --balance diffusive --balance-every 2 --columns 4,2,2,2 --emulate-speeds 0.1,1,1,1"
  "3:S --wait sleep --balance diffusive --balance-every 1 --emulate-speeds 1,0.3,1 --trace t.h5 --trace-flush 3 --checkpoint c.h5 --checkpoint-every 7")
lu_test(checksum_W_wait_planes mpi 600 same-checksum
  "1:W" "2:W --wait sleep --planes-per-message 7" "3:W --planes-per-message 31 --weights 2,1,1"
  "2:W --wait auto --planes-per-message 4 --balance diffusive --emulate-speeds 1,0.444")
# The report says how each rank waited for messages (--wait, auto resolved per rank), and it is how it waited.
npblu_test(report_how_ranks_waited ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/wait_report_check.py
           ${LU_TABLE_LAUNCH_ARGS} --workdir .)
set_tests_properties(report_how_ranks_waited PROPERTIES LABELS mpi TIMEOUT 300)

# Partition traces (HDF5), read back with Debian's python3-h5py.
set(TRACE_CHECK ${SYSTEM_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/trace_check.py
    --lu $<TARGET_FILE:lu> ${MPI_LAUNCH_ARGS} --workdir .)
npblu_test(trace_W_diffusive_schema ${TRACE_CHECK} schema --np 3 --
  W --balance diffusive --emulate-speeds 1,0.5,1)
npblu_test(trace_survives_kill ${TRACE_CHECK} kill --np 2 --
  A --iterations 3000 --trace-flush 5)
npblu_test(trace_plot_png ${TRACE_CHECK} plot --np 2 --
  S --balance diffusive --balance-every 2 --emulate-speeds 1,0.4)
set_tests_properties(trace_W_diffusive_schema trace_survives_kill trace_plot_png PROPERTIES LABELS mpi TIMEOUT 400)

# Peak resident memory (docs/performance.md, "Memory"): class B on 2 ranks, every rank's peak over
# class S's is what it stores of u, rsd and frct plus at most 4 MiB (8 with a checkpoint: rank 0's
# piece of another stripe); plain, diffusive (the fields move into reserved address space) and
# checkpointed. Not under sanitizers, whose shadow memory is no part of the program's.
if(NOT NPBLU_SANITIZE)
  set(PEAK_MEMORY_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/peak_memory_check.py
      ${LU_TABLE_LAUNCH_ARGS} --workdir . --np 2 --class B)
  npblu_test(peak_memory_B_np2 ${PEAK_MEMORY_CHECK})
  npblu_test(peak_memory_B_np2_diffusive ${PEAK_MEMORY_CHECK} -- --balance diffusive)
  npblu_test(peak_memory_B_np2_checkpoint ${PEAK_MEMORY_CHECK} --checkpoint)
  set_tests_properties(peak_memory_B_np2 peak_memory_B_np2_diffusive peak_memory_B_np2_checkpoint
                       PROPERTIES LABELS mpi TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
