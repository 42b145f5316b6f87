#!/usr/bin/env bash
# Configures and builds podsim (Release) into build/. Extra arguments go to cmake
# at configure time, e.g. scripts/build.sh -DPODSIM_BUILD_BENCHMARKS=OFF.
#
# A unity build (CMAKE_UNITY_BUILD: up to eight sources of a library or test
# compiled as one translation unit, so the Boost, Protobuf and GoogleTest
# headers are parsed once per batch), with Ninja when it is installed: on two
# cores a cold build takes about 5 minutes instead of 10 (docs/testing.md).
# The code is the same; only how it is batched into compiler runs changes.
# A plain `cmake -S . -B DIR` build is not a unity build, and is the one that
# catches a source missing an include its batch neighbour happened to provide;
# -DCMAKE_UNITY_BUILD=OFF here gives it too.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc || echo 2)
generator=()
if [ ! -e build/CMakeCache.txt ] && [ -n "$(command -v ninja)" ]; then
  generator=(-G Ninja)
fi
mkdir -p build  # configure's messages go to build/configure.log
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON -DPODSIM_TEST_PCH=ON "$@" >build/configure.log
cmake --build build -j"$jobs"
