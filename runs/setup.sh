#!/usr/bin/env bash
# Installs what this project needs from Debian (only what is missing), then
# configures and builds the Release tree in ./build. Safe to run again.
#   BUILD_DIR   build directory (default: build)
#   CMAKE_ARGS  extra arguments for the configure step
set -euo pipefail
cd "$(dirname "$0")/.."

# Open MPI is the default MPI; MPICH and clang are there for the portability
# build of .ci/run (build-mpich-clang; docs/building.md).
packages=(build-essential cmake gfortran pkg-config python3
  openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools
  mpich libmpich-dev libhdf5-mpich-dev clang
  libeigen3-dev libcli11-dev libfmt-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-h5py python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

build_dir=${BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-}
cmake --build "$build_dir" -j "$(nproc)"
