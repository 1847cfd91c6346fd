#!/usr/bin/env bash
# The shared libraries export their API and nothing else, exactly:
#   libnpblu.so          exactly the functions of npblu.h and npblu_balance.h (every NPBLU_API
#                        declaration, whatever it returns: int, const char*, ...)
#   libnpblu_fortran.so  only the modules' procedures (and the derived types' compiler-made
#                        copy/init/final/vtab helpers), LURUN/LURUN8 and NPBLU_BAL_* (gfortran's
#                        mangled names: __<module>_MOD_<name>, the module npblu*)
# (the solver, CLI11, nlohmann-json, fmt and the C++ standard library's instantiations stay inside).
set -euo pipefail
c_library=$1 fortran_library=$2
here=$(dirname "$0")
status=0
exported() { nm -D --defined-only "$1" | awk '$2 ~ /^[TtDdBbRrVvWwi]$/ {print $NF}' | sed 's/@.*//' | sort -u; }

# Every function declared NPBLU_API in the headers (a line starting "NPBLU_API"), whatever its
# return type (int, const char*, ...): the name is the identifier just before the first '('.
declared=$(grep -h '^NPBLU_API ' "$here/../interop/c/npblu.h" "$here/../interop/c/npblu_balance.h" |
  grep -Eo '^[^(]*\(' | grep -Eo '[A-Za-z_0-9]+ *\($' | tr -d ' (' | sort -u)
actual=$(exported "$c_library")
echo "npblu.h + npblu_balance.h declare $(wc -l <<<"$declared") functions; libnpblu.so exports $(wc -l <<<"$actual")"
missing=$(comm -23 <(echo "$declared") <(echo "$actual"))
extra=$(comm -13 <(echo "$declared") <(echo "$actual"))
if [ -n "$missing" ]; then echo "FAIL: declared but not exported:" $missing; status=1; fi
if [ -n "$extra" ]; then echo "FAIL: exported but not declared:" $(head -20 <<<"$extra"); status=1; fi
for f in npblu_error_message npblu_status_string npblu_balancer_error_message; do  # const char* functions
  grep -qx "$f" <<<"$actual" || { echo "FAIL: $f (returns const char*) not exported"; status=1; }
done

fortran=$(exported "$fortran_library")
others=$(grep -Ev '^(__npblu[a-z0-9_]*_MOD_[A-Za-z0-9_]+|lurun8?_?|LURUN8?|npblu_bal_[a-z]+_?)$' <<<"$fortran" || true)
echo "libnpblu_fortran.so exports $(wc -l <<<"$fortran") symbols"
if [ -n "$others" ]; then
  echo "FAIL: libnpblu_fortran.so exports $(wc -l <<<"$others") symbols outside its API, e.g.:"
  head -20 <<<"$others"
  status=1
fi
for f in weights create feed range prev migrate last totals errmsg destroy; do
  grep -qiE "^npblu_bal_${f}_?$" <<<"$fortran" || { echo "FAIL: NPBLU_BAL_${f^^} is not exported"; status=1; }
done
grep -qiE '^lurun_?$' <<<"$fortran" || { echo "FAIL: LURUN is not exported"; status=1; }
exit $status
