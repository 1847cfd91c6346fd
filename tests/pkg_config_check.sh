#!/usr/bin/env bash
# Installs the build tree into a fresh prefix, then builds the F77 example
# (interop/examples/legacy_driver.f) and a C program with a plain Makefile
# that takes npblu's flags from pkg-config, and runs them.
set -euo pipefail
build_dir=$1 source_dir=$2 work=$3
shift 3  # any further non-empty arguments go to make (e.g. LDFLAGS=-fsanitize=... for a sanitized build)
make_args=()
for a in "$@"; do [ -n "$a" ] && make_args+=("$a"); done
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
pcdir=$(dirname "$(find "$work/prefix" -name npblu.pc)")
test -f "$pcdir/npblu-fortran.pc"
export PKG_CONFIG_PATH="$pcdir"
echo "pkg-config: npblu $(pkg-config --modversion npblu), npblu-fortran $(pkg-config --modversion npblu-fortran)"
echo "  --libs npblu-fortran: $(pkg-config --libs npblu-fortran)"
echo "  --libs npblu-balance-fortran: $(pkg-config --libs npblu-balance-fortran)"
# The MPI compilers the library was built with (CTest passes CMake's).
make -C "$work" -f "$source_dir/tests/pkg_config/Makefile" --no-print-directory \
  EXAMPLES="$source_dir/interop/examples" TESTS="$source_dir/tests" \
  FC="${MPI_Fortran_COMPILER:-mpif77}" CC="${MPI_C_COMPILER:-mpicc}" "${make_args[@]}" > "$work/make.log" 2>&1 ||
  { cat "$work/make.log"; exit 1; }
# No LD_LIBRARY_PATH: the programs find the installed libraries by their rpath.
# (the version against tests/expected_version.txt and the installed library's file name)
"$work/library_version" "$source_dir/tests/expected_version.txt" "$(readlink -f "$(dirname "$pcdir")/libnpblu.so")"
"$work/link_without_pkg_config"  # c-api.md's link line, both APIs
read -r -a preflags <<<"${MPIEXEC_PREFLAGS:-}"
"${MPIEXEC:-mpiexec}" "${MPIEXEC_NUMPROC_FLAG:--n}" 2 "${preflags[@]}" "$work/legacy_driver"
"${MPIEXEC:-mpiexec}" "${MPIEXEC_NUMPROC_FLAG:--n}" 2 "${preflags[@]}" "$work/legacy_driver_i8_int8"
# heat_balance built through pkg-config npblu-balance-fortran: it loads the balance libraries only.
if ldd "$work/heat_balance" | grep -E 'libnpblu(_fortran)?\.so|libhdf5|libfmt'; then
  echo "FAIL: heat_balance (npblu-balance-fortran) loads the solver library, HDF5 or fmt"; exit 1
fi
"${MPIEXEC:-mpiexec}" "${MPIEXEC_NUMPROC_FLAG:--n}" 2 "${preflags[@]}" "$work/heat_balance" 256 240 20 1 1  # no slow rank: linking and bits, not timing
