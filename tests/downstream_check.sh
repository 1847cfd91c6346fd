#!/usr/bin/env bash
# Installs the build tree into a fresh prefix, then configures, builds and
# runs a separate project that finds it with find_package(npblu).
set -euo pipefail
build_dir=$1 source_dir=$2 work=$3
shift 3  # any further arguments go to the downstream configure step
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source_dir/tests/downstream" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" "$@" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
test -f "$work/prefix/include/npblu.h" && test -f "$work/prefix/include/npblu.mod" && test -x "$work/prefix/bin/lu"
mpirun --allow-run-as-root -np 1 "$work/build/use_from_cxx"
mpirun --allow-run-as-root -np 2 "$work/build/use_from_fortran"
