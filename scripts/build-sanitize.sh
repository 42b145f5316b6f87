#!/usr/bin/env bash
# Configures and builds the clang AddressSanitizer + UndefinedBehaviorSanitizer
# tree, build-sanitize/ (PODSIM_SANITIZE_BUILD_DIR overrides): every test and
# the libFuzzer targets of tests/fuzz/ in one build, so scripts/test-sanitizers.sh
# and scripts/fuzz.sh (and CI, which runs both) pay for one extra build.
# Arguments name the targets to build (default: all).
#
# Kept cheap enough for CI (docs/testing.md has the figures): -O1 with line
# tables only (no full debug info; the test sources at -O0 without line
# tables or fuzzer coverage, the libraries they exercise at -O1 with both),
# one precompiled header for the tests (PODSIM_TEST_PCH), linked with lld,
# no benchmarks, and a unity build
# (CMAKE_UNITY_BUILD: each library's and test's sources compiled a few at a
# time in one translation unit, so the heavy headers are parsed once per
# batch instead of once per file). -DNDEBUG as in the release build: with
# assertions on, the event queue re-validates itself on every push
# (sim/event_queue.h, debug_check), which made the packet-model agreement
# tests take minutes each under the sanitizers. Warnings are errors here too.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${PODSIM_SANITIZE_BUILD_DIR:-build-sanitize}
jobs=$(nproc || echo 2)
cxx=${PODSIM_FUZZ_CXX:-clang++-14}
generator=()
if [ ! -e "$dir/CMakeCache.txt" ] && [ -n "$(command -v ninja)" ]; then
  generator=(-G Ninja)
fi
launcher=()
if [ -z "${CCACHE_DISABLE:-}" ] && [ -n "$(command -v ccache)" ]; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
mkdir -p "$dir"  # configure's messages go to $dir/configure.log
cmake -S . -B "$dir" "${generator[@]}" "${launcher[@]}" \
  -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
  -DPODSIM_SANITIZE=address,undefined \
  -DPODSIM_FUZZ=ON \
  -DPODSIM_BUILD_BENCHMARKS=OFF \
  -DCMAKE_UNITY_BUILD=ON \
  -DPODSIM_TEST_PCH=ON \
  "-DPODSIM_TEST_OPTIMIZATION=-O0;-g0" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld" \
  -DPODSIM_WERROR=ON >"$dir/configure.log"
targets=()
for t in "$@"; do
  targets+=(--target "$t")
done
cmake --build "$dir" -j"$jobs" "${targets[@]}"
