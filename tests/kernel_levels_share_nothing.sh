#!/usr/bin/env bash
# The per-level kernel objects (lu/kernel_levels.hpp) must define nothing with
# external linkage outside their own namespace npblu::level_*: a weak
# (inline, template) function compiled for AVX-512 there could be the copy the
# linker keeps for every caller, and crash a CPU without AVX-512.
# Usage: kernel_levels_share_nothing.sh OBJECT...
set -euo pipefail
status=0
for o in "$@"; do
  # Global or weak definitions, demangled, not in a level namespace; DW.ref.__gxx_personality_v0 is
  # the unwinder's pointer to one library function, the same in every object; sanitizer builds add
  # their own per-object bookkeeping (__odr_asan*, __asan*, __ubsan*).
  shared=$(nm -C --defined-only "$o" | awk '$2 ~ /^[TWVDBRu]$/' | grep -v 'npblu::level_' |
           grep -v -e 'DW.ref.__gxx_personality_v0' -e ' __odr_asan' -e ' __asan' -e ' __ubsan' || true)
  if [ -n "$shared" ]; then
    echo "FAIL: $o defines symbols outside npblu::level_*:"
    echo "$shared"
    status=1
  fi
done
[ "$status" = 0 ] && echo "PASS: $# kernel objects define only their level's symbols"
exit $status
