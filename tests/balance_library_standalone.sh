#!/usr/bin/env bash
# The balance library stands alone (issue 19): a legacy code that only wants the balancer and
# the column mover takes no solver, no HDF5, no fmt.
#   libnpblu_balance.so and heat_balance (linked with the Fortran balance library only) load no
#   libhdf5, no libfmt, no libnpblu.so (only the balance libraries);
#   libnpblu_balance.so defines the balance API and no solver symbol (npblu_run, npblu_start,
#   LuSolver, the kernels);
#   libnpblu.so does not define the balance API itself (npblu_balancer_create is
#   libnpblu_balance's: one copy of the balancer's C handle).
# Usage: balance_library_standalone.sh libnpblu_balance.so heat_balance libnpblu.so
set -euo pipefail
balance_library=$1 heat_balance=$2 solver_library=$3
status=0
fail() { echo "FAIL: $*"; status=1; }

# loaded_libraries <binary>: the names of the shared libraries it loads, one per line.
loaded_libraries() { ldd "$1" | awk '{print $1}' | sed 's|.*/||'; }
for binary in "$balance_library" "$heat_balance"; do
  loaded=$(loaded_libraries "$binary")
  echo "$(basename "$binary") loads:" $loaded
  grep -E '^lib(hdf5|fmt|CLI11)' <<<"$loaded" && fail "$(basename "$binary") loads HDF5, fmt or CLI11"
  grep -E '^libnpblu(_fortran)?\.so' <<<"$loaded" && fail "$(basename "$binary") loads the solver library"
  grep -qE '^libnpblu_balance\.so' <<<"$loaded" || [ "$binary" = "$balance_library" ] ||
    fail "$(basename "$binary") does not load libnpblu_balance.so"
done

defined() { nm -D --defined-only "$1" | awk '$2 ~ /^[TtDdBbRrVvWwi]$/ {print $NF}' | sed 's/@.*//' | sort -u; }
balance_symbols=$(defined "$balance_library")
solver_like=$(grep -E 'npblu_(run|start|advance|create)$|LuSolver|kernel|sweep|ssor' <<<"$balance_symbols" || true)
[ -z "$solver_like" ] || fail "libnpblu_balance.so defines solver symbols:" $solver_like
others=$(grep -Ev '^npblu_(balance|balancer|partition)_' <<<"$balance_symbols" || true)
[ -z "$others" ] || fail "libnpblu_balance.so defines symbols outside the balance API:" $(head -20 <<<"$others")
grep -qx npblu_balancer_create <<<"$balance_symbols" || fail "libnpblu_balance.so does not define npblu_balancer_create"
echo "libnpblu_balance.so defines $(wc -l <<<"$balance_symbols") symbols"

if grep -qx npblu_balancer_create <<<"$(defined "$solver_library")"; then
  fail "libnpblu.so defines npblu_balancer_create itself (it belongs to libnpblu_balance.so)"
fi
exit $status
