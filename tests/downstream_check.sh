#!/usr/bin/env bash
# Installs the build tree into a fresh prefix, then configures, builds and
# runs a separate project that finds it with find_package(npblu).
set -euo pipefail
build_dir=$1 source_dir=$2 work=$3
shift 3  # any further arguments go to the downstream configure step
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
# The MPI the library was built with (Debian installs two; the default may be the other).
mpi_hints=()
[ -n "${MPI_C_COMPILER:-}" ] && mpi_hints+=(-DMPI_C_COMPILER="$MPI_C_COMPILER")
[ -n "${MPI_CXX_COMPILER:-}" ] && mpi_hints+=(-DMPI_CXX_COMPILER="$MPI_CXX_COMPILER")
[ -n "${MPI_Fortran_COMPILER:-}" ] && mpi_hints+=(-DMPI_Fortran_COMPILER="$MPI_Fortran_COMPILER")
cmake -S "$source_dir/tests/downstream" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" "${mpi_hints[@]}" "$@" \
  > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
test -f "$work/prefix/include/npblu.h" && test -f "$work/prefix/include/npblu.mod" && test -x "$work/prefix/bin/lu"
# The launcher as CMake found it (MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_PREFLAGS from CTest).
read -r -a preflags <<<"${MPIEXEC_PREFLAGS:-}"
launch() { "${MPIEXEC:-mpiexec}" "${MPIEXEC_NUMPROC_FLAG:--n}" "$1" "${preflags[@]}" "${@:2}"; }
launch 1 "$work/build/use_from_cxx"
launch 2 "$work/build/use_from_fortran"
launch 2 "$work/build/heat_balance" 256 240 20 1 1  # no slow rank: linking and bits, not timing
