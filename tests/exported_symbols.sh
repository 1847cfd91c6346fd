#!/usr/bin/env bash
# The shared libraries export their API and nothing else:
#   libnpblu.so          only npblu_* (npblu.h)
#   libnpblu_fortran.so  only the module npblu's procedures and LURUN
# (the solver, CLI11, nlohmann-json, fmt and the C++ standard library's
# instantiations stay inside).
set -euo pipefail
c_library=$1 fortran_library=$2
status=0
check() {  # library, allowed-name regex
  local symbols others
  symbols=$(nm -D --defined-only "$1" | awk '{print $NF}')
  others=$(grep -Ev "$2" <<<"$symbols" || true)
  echo "$(basename "$1"): $(wc -l <<<"$symbols") exported symbols"
  if [ -n "$others" ]; then
    echo "FAIL: $(basename "$1") exports $(wc -l <<<"$others") symbols outside its API, e.g.:"
    head -20 <<<"$others"
    status=1
  fi
}
check "$c_library" '^npblu_[a-z_]+$'
check "$fortran_library" '(npblu|lurun|LURUN)'
# And every function of npblu.h is there.
header=$(dirname "$0")/../interop/npblu.h
for f in $(grep -Eo '^NPBLU_API [a-z ]*\**(npblu_[a-z_]+)\(' "$header" | grep -Eo 'npblu_[a-z_]+'); do
  nm -D --defined-only "$c_library" | grep -qw "$f" || { echo "FAIL: $f (npblu.h) is not exported"; status=1; }
done
# The balancer API (npblu_balance.h) too, and the F77 entry points NPBLU_BAL_* of libnpblu_fortran.
balance_header=$(dirname "$0")/../interop/npblu_balance.h
for f in $(grep -Eo '^NPBLU_API [a-z ]*\**(npblu_[a-z_]+)\(' "$balance_header" | grep -Eo 'npblu_[a-z_]+'); do
  nm -D --defined-only "$c_library" | grep -qw "$f" || { echo "FAIL: $f (npblu_balance.h) is not exported"; status=1; }
done
for f in weights create feed range prev migrate last totals errmsg destroy; do
  nm -D --defined-only "$fortran_library" | grep -qiE " npblu_bal_${f}_?$" ||
    { echo "FAIL: NPBLU_BAL_${f^^} is not exported"; status=1; }
done
exit $status
