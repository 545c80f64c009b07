#!/usr/bin/env bash
# Install costmetrics into .venv and run every check CI runs, in this order, stopping at the
# first failure:
#   1. pip install .[test,lint] with warnings as errors (core and bindings: -Wall -Wextra
#      -Wpedantic -Werror);
#   2. lint and types: ruff check, ruff format --check, mypy --strict (package and tests),
#      with the tool versions pinned in pyproject.toml's "lint" extra;
#   3. the C++ unit tests (ctest), warnings as errors;
#   4. the C++ unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer (a
#      separate build folder, build/cpp-asan);
#   5. the Python tests (pytest), which also execute every notebook and compare
#      `costmetrics reproduce` with the pinned outputs in tests/reference/;
#   6. the documentation site (tools/build-docs.sh), warnings as errors.
#
# Needs python3 (>= 3.9, with venv), a C++17 compiler (GCC or Clang) and CMake; everything
# else (pybind11, Eigen through the cmeel-eigen wheel, the test tools) comes from PyPI.
# Environment: PYTHON (interpreter that creates .venv, default python3),
#              JOBS (parallel build/test jobs, default: number of cores),
#              SKIP_SANITIZERS=1 (skip step 4, for quick local runs; CI never sets it).
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

step "pip install .[test,lint,docs] (builds the C++ core and the _core extension, -Werror)"
CMAKE_BUILD_PARALLEL_LEVEL="$jobs" "$py" -m pip install \
  --config-settings=cmake.define.COSTMETRICS_WERROR=ON ".[test,lint,docs]"

step "Lint: ruff check, ruff format --check"
"$py" -m ruff check python tests
"$py" -m ruff format --check python tests

step "Types: mypy --strict (package and tests)"
"$py" -m mypy --strict python/costmetrics tests

purelib="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
cmake_args=(
  -DCOSTMETRICS_BUILD_TESTS=ON
  -DCOSTMETRICS_BUILD_PYTHON=OFF
  -DCOSTMETRICS_WERROR=ON
  -DPython_EXECUTABLE="$py"
  -DCMAKE_PREFIX_PATH="$purelib/cmeel.prefix"
)

step "C++ unit tests: configure and build (-Werror)"
cmake -S . -B build/cpp-tests -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}"
cmake --build build/cpp-tests --parallel "$jobs"

step "C++ unit tests: ctest"
(cd build/cpp-tests && ctest --output-on-failure --parallel "$jobs")

if [[ "${SKIP_SANITIZERS:-0}" != 1 ]]; then
  step "C++ unit tests under ASan + UBSan: configure and build"
  cmake -S . -B build/cpp-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOSTMETRICS_SANITIZE=ON \
    "${cmake_args[@]}"
  cmake --build build/cpp-asan --parallel "$jobs"

  step "C++ unit tests under ASan + UBSan: ctest"
  (cd build/cpp-asan &&
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
      ctest --output-on-failure --parallel "$jobs")
fi

step "Python tests, notebooks and pinned reproduction outputs: pytest"
"$py" -m pytest

step "Documentation site: tools/build-docs.sh (warnings are errors)"
if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  PYTHON="$py" bash tools/build-docs.sh -q
else
  echo "skipped: the documentation tools (Sphinx 9) need Python >= 3.11"
fi

step "all checks passed"
