#!/usr/bin/env bash
# in_clean_dir.sh DIR COMMAND...: runs COMMAND in DIR, emptied first. Every CTest test goes
# through it (npblu_test in tests/CMakeLists.txt), so no file an earlier run left behind (a
# report, a trace, a checkpoint) can make a broken write pass.
set -euo pipefail
dir=$1
shift
rm -rf -- "$dir"
mkdir -p -- "$dir"
cd -- "$dir"
exec "$@"
