#!/usr/bin/env bash
# Installs podsim's build and test dependencies from Debian's packages.
# Non-interactive and safe to run twice: apt-get install is idempotent.
# Usage: scripts/install-deps.sh [--optional]
set -euo pipefail

packages=(
  build-essential
  cmake
  protobuf-compiler
  libprotobuf-dev
  libboost-graph-dev
  libboost-program-options-dev
  libspdlog-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  libeigen3-dev   # podsim calibrate's least-squares fit (src/calibrate)
  libopenmpi-dev  # podsim sweep across machines (mpirun); optional at build time
  openmpi-bin
  python3-matplotlib  # scripts/plot_breakdown.py and its test (for /usr/bin/python3)
  python3-protobuf    # loading podsim's outputs in Python with the generated modules (docs/outputs.md)
  clang-14            # the sanitizer tests and fuzz targets (scripts/build-sanitize.sh)
  libclang-rt-14-dev  # clang's AddressSanitizer, UBSan and libFuzzer runtimes
  lld                 # ld.lld: links the sanitizer tree's ~70 programs in a fraction of ld's time
  ninja-build         # the generator build-sanitize.sh prefers (make works too)
  pybind11-dev        # the podsim Python module (src/python, docs/python.md); optional at build time
  python3-dev         # its Python headers (CMake's Development.Module)
  python3-pandas      # podsim.to_dataframe() and the module's tests (tests/python)
  python3-pytest      # runs tests/python (CTest python.api)
)

# --optional: also what the tests that need a browser or a spreadsheet use
# (CTest html.render_in_chromium and cli.e2e.spreadsheet_round_trip); without
# them those tests are reported as skipped. Large (about 540 MB installed), so
# not installed by default and not in CI (chromium 348 MB,
# libreoffice 193 MB, measured with du).
if [ "${1:-}" = "--optional" ]; then
  packages+=(
    chromium                # podsim report's page rendered headless (tests/html/render_test.sh)
    libreoffice-calc-nogui  # a sweep CSV through .xlsx and back (tests/cli/spreadsheet_round_trip_test.sh)
  )
elif [ $# -gt 0 ]; then
  echo "usage: scripts/install-deps.sh [--optional]" >&2
  exit 2
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi

# Skip the network round trip when everything is already installed.
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>&1 | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed" >&2
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
