#!/usr/bin/env bash
# Install costmetrics into .venv and run every test: the C++ unit tests (ctest), then the
# Python tests (pytest), which also execute every notebook, then builds the documentation
# site with warnings as errors (tools/build-docs.sh). Stops at the first failure.
#
# Needs python3 (>= 3.9, with venv), a C++17 compiler and CMake; everything else (pybind11,
# Eigen through the cmeel-eigen wheel, the test tools) comes from PyPI.
# Environment: PYTHON (interpreter that creates .venv, default python3),
#              JOBS (parallel build/test jobs, default: number of cores).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
started=$SECONDS

step() { printf '\n==> %s (%ds)\n' "$*" "$((SECONDS - started))"; }

step "Python environment .venv"
if [[ ! -x .venv/bin/python ]]; then
  "${PYTHON:-python3}" -m venv .venv
fi
py="$root/.venv/bin/python"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

step "pip install .[test,docs] (builds the C++ core and the _core extension)"
CMAKE_BUILD_PARALLEL_LEVEL="$jobs" "$py" -m pip install ".[test,docs]"

step "C++ unit tests: configure and build"
purelib="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
cmake -S . -B build/cpp-tests \
  -DCMAKE_BUILD_TYPE=Release \
  -DCOSTMETRICS_BUILD_TESTS=ON \
  -DCOSTMETRICS_BUILD_PYTHON=OFF \
  -DPython_EXECUTABLE="$py" \
  -DCMAKE_PREFIX_PATH="$purelib/cmeel.prefix"
cmake --build build/cpp-tests --parallel "$jobs"

step "C++ unit tests: ctest"
(cd build/cpp-tests && ctest --output-on-failure --parallel "$jobs")

step "Python tests and notebooks: pytest"
"$py" -m pytest

step "Documentation site: tools/build-docs.sh (warnings are errors)"
if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  PYTHON="$py" bash tools/build-docs.sh -q
else
  echo "skipped: the documentation tools (Sphinx 9) need Python >= 3.11"
fi

step "all tests passed"
