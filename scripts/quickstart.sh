#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the default simulation.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/src/cli/podsim run
