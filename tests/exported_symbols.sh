#!/usr/bin/env bash
# The shared libraries export their API and nothing else, exactly:
#   libnpblu.so                  exactly the functions of npblu.h (every NPBLU_API declaration,
#                                whatever it returns: int, const char*, ...)
#   libnpblu_balance.so          exactly the functions of npblu_balance.h
#   libnpblu_fortran.so          only module npblu's procedures (and the derived types'
#                                compiler-made copy/init/final/vtab helpers), LURUN/LURUN8
#   libnpblu_balance_fortran.so  only module npblu_balance's procedures and NPBLU_BAL_*
# (gfortran's mangled names: __<module>_MOD_<name>, the module npblu*; the solver, CLI11,
# nlohmann-json, fmt and the C++ standard library's instantiations stay inside).
set -euo pipefail
c_library=$1 fortran_library=$2 balance_library=$3 balance_fortran_library=$4
here=$(dirname "$0")
status=0
exported() { nm -D --defined-only "$1" | awk '$2 ~ /^[TtDdBbRrVvWwi]$/ {print $NF}' | sed 's/@.*//' | sort -u; }

# Every function declared NPBLU_API in a header (a line starting "NPBLU_API"), whatever its
# return type (int, const char*, ...): the name is the identifier just before the first '('.
declared_in() {
  grep -h '^NPBLU_API ' "$1" | grep -Eo '^[^(]*\(' | grep -Eo '[A-Za-z_0-9]+ *\($' | tr -d ' (' | sort -u
}
# check_c_library <library> <header>: exports exactly what the header declares.
check_c_library() {
  local declared actual missing extra
  declared=$(declared_in "$here/../interop/c/$2")
  actual=$(exported "$1")
  echo "$2 declares $(wc -l <<<"$declared") functions; $(basename "$1") exports $(wc -l <<<"$actual")"
  missing=$(comm -23 <(echo "$declared") <(echo "$actual"))
  extra=$(comm -13 <(echo "$declared") <(echo "$actual"))
  if [ -n "$missing" ]; then echo "FAIL: declared but not exported:" $missing; status=1; fi
  if [ -n "$extra" ]; then echo "FAIL: exported but not declared:" $(head -20 <<<"$extra"); status=1; fi
}
check_c_library "$c_library" npblu.h
check_c_library "$balance_library" npblu_balance.h
for f in npblu_error_message npblu_status_string; do  # const char* functions
  grep -qx "$f" <<<"$(exported "$c_library")" || { echo "FAIL: $f (returns const char*) not exported"; status=1; }
done
grep -qx npblu_balancer_error_message <<<"$(exported "$balance_library")" ||
  { echo "FAIL: npblu_balancer_error_message (returns const char*) not exported"; status=1; }

# check_fortran_library <library> <allowed names (extended regex)>
check_fortran_library() {
  local fortran others
  fortran=$(exported "$1")
  others=$(grep -Ev "$2" <<<"$fortran" || true)
  echo "$(basename "$1") exports $(wc -l <<<"$fortran") symbols"
  if [ -n "$others" ]; then
    echo "FAIL: $(basename "$1") exports $(wc -l <<<"$others") symbols outside its API, e.g.:"
    head -20 <<<"$others"
    status=1
  fi
}
check_fortran_library "$fortran_library" '^(__npblu[a-z0-9_]*_MOD_[A-Za-z0-9_]+|lurun8?_?|LURUN8?)$'
check_fortran_library "$balance_fortran_library" '^(__npblu_balance[a-z0-9_]*_MOD_[A-Za-z0-9_]+|npblu_bal_[a-z]+_?)$'
balance_fortran=$(exported "$balance_fortran_library")
for f in weights create feed range prev migrate last totals errmsg destroy; do
  grep -qiE "^npblu_bal_${f}_?$" <<<"$balance_fortran" || { echo "FAIL: NPBLU_BAL_${f^^} is not exported"; status=1; }
done
grep -qiE '^lurun_?$' <<<"$(exported "$fortran_library")" || { echo "FAIL: LURUN is not exported"; status=1; }
exit $status
