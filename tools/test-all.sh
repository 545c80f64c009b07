#!/usr/bin/env bash
# Install costmetrics into .venv and run every check CI runs, in this order, stopping at the
# first failure:
#   1. the pinned build tools, then pip install .[test,lint,docs] with every version pinned
#      by requirements/constraints.txt; warnings are errors (core, bindings and C++ tests:
#      -Wall -Wextra -Wpedantic -Werror). The C++ core is compiled once, in Release, in the
#      persistent build folder build/wheel, which also holds the C++ unit tests;
#   2. lint and types: ruff check and ruff format --check (package, tests, benchmarks),
#      mypy --strict (package and tests, tests/typecheck/ included);
#   3. the C++ unit tests (ctest) on that Release build;
#   4. the C++ unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer (a
#      separate build folder, build/cpp-asan, compiled at -O1), built and run in the
#      background from the end of step 1 to the end of step 5 (log: build/cpp-asan.log);
#      there the longest random sweeps check a sample of their draws (cpp/tests/check.hpp,
#      kSanitized), which step 3 checks whole;
#   5. the Python tests (pytest, derandomized Hypothesis: profile "ci"), which also execute
#      every notebook and compare `costmetrics reproduce` with the pinned outputs;
#   6. every benchmark in its quick mode (benchmarks/*.py --quick, run in build/bench:
#      runs, checks its results, times nothing worth reporting);
#   7. the documentation site (tools/build-docs.sh), warnings as errors, built in the
#      background beside step 6 (log: build/docs.log, printed when it ends).
#
# Needs python3 (>= 3.11, with venv) and a C++17 compiler (GCC or Clang); everything else
# (CMake, Ninja, pybind11, Eigen through the cmeel-eigen wheel, the test tools) comes from
# PyPI at the versions of requirements/constraints.txt.
# Environment: PYTHON (interpreter that creates .venv, default python3),
#              JOBS (parallel build/test jobs, default: number of cores),
#              SKIP_SANITIZERS=1 (skip step 4, for quick local runs; CI never sets it),
#              HYPOTHESIS_PROFILE (default ci; see tests/conftest.py).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
started=$SECONDS

# Each step prints the wall time and the CPU seconds (user + system, this script and the
# commands it ran) spent so far: on a shared machine the CPU time is the comparable figure.
cpu_file="$(mktemp)"
trap 'rm -f "$cpu_file"' EXIT  # replaced below, once the background job exists
step() {
  times >"$cpu_file"  # in this shell: a subshell would not see the finished commands
  local cpu
  cpu="$(tr -s ' \n' '\n\n' <"$cpu_file" | awk -F'[ms]' '{ t += $1 * 60 + $2 } END { printf "%.0f", t }')"
  printf '\n==> %s (%ds, cpu %ss)\n' "$*" "$((SECONDS - started))" "$cpu"
}
# The compiler cache (if installed) speeds up local rebuilds; CI measures a cold build.
if [[ -n "${CI:-}" ]]; then ccache=OFF; else ccache=ON; fi

step "Python environment .venv"
if [[ ! -x .venv/bin/python ]]; then
  "${PYTHON:-python3}" -m venv .venv
fi
py="$root/.venv/bin/python"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
# Every package pip installs, here and in any build environment it creates, at the version
# pinned in requirements/constraints.txt (refresh: bash tools/refresh-constraints.sh).
export PIP_CONSTRAINT="$root/requirements/constraints.txt"
export PATH="$root/.venv/bin:$PATH"  # the pinned cmake and ninja

step "pip install the build tools (scikit-build-core, pybind11, cmeel-eigen, CMake, Ninja)"
"$py" -m pip install scikit-build-core pybind11 cmeel-eigen cmake ninja

step "pip install .[test,lint,docs] (compiles the core, the _core extension and the C++ tests)"
# --no-build-isolation: the build uses the pinned tools just installed, and build/wheel
# stays valid for the next run (an unchanged tree recompiles nothing).
CMAKE_BUILD_PARALLEL_LEVEL="$jobs" "$py" -m pip install --no-build-isolation \
  --config-settings=build-dir=build/wheel \
  --config-settings=cmake.define.COSTMETRICS_WERROR=ON \
  --config-settings=cmake.define.COSTMETRICS_BUILD_TESTS=ON \
  --config-settings=cmake.define.COSTMETRICS_CCACHE="$ccache" \
  ".[test,lint,docs]"

# The sanitizer build and its tests run in the background (log: build/cpp-asan.log) beside
# the single-threaded steps that follow (lint, types, pytest), which leave a core idle;
# their result is checked after pytest, and a failure fails the run like any other step.
asan_pid=""
asan_tests() {
  set -euo pipefail
  local purelib
  purelib="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  cmake -S . -B build/cpp-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCOSTMETRICS_SANITIZE=ON -DCOSTMETRICS_BUILD_TESTS=ON -DCOSTMETRICS_BUILD_PYTHON=OFF \
    -DCOSTMETRICS_WERROR=ON -DCOSTMETRICS_CCACHE="$ccache" -DPython_EXECUTABLE="$py" \
    -DCMAKE_PREFIX_PATH="$purelib/cmeel.prefix"
  cmake --build build/cpp-asan --parallel "$jobs"
  cd build/cpp-asan
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure --parallel "$jobs"
}
stop_asan() {
  if [[ -n "$asan_pid" ]]; then
    pkill -TERM -P "$asan_pid" 2>/dev/null || true
    kill "$asan_pid" 2>/dev/null || true
  fi
}
trap 'stop_asan; rm -f "$cpu_file"' EXIT
if [[ "${SKIP_SANITIZERS:-0}" != 1 ]]; then
  step "C++ unit tests under ASan + UBSan (-O1): build and ctest start in the background"
  asan_tests >build/cpp-asan.log 2>&1 &
  asan_pid=$!
fi

step "Lint: ruff check, ruff format --check"
"$py" -m ruff check python tests benchmarks
"$py" -m ruff format --check python tests benchmarks

step "Types: mypy --strict (package and tests)"
"$py" -m mypy --strict python/costmetrics tests

step "C++ unit tests: ctest (the Release build of the wheel)"
(cd build/wheel && ctest --output-on-failure --parallel "$jobs")

step "Python tests, notebooks and pinned reproduction outputs: pytest"
# --durations: the slowest tests in every log, for keeping CI under its 15 minutes.
HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}" "$py" -m pytest --durations=25

if [[ -n "$asan_pid" ]]; then
  step "C++ unit tests under ASan + UBSan: wait for the background build and ctest"
  status=0
  wait "$asan_pid" || status=$?
  asan_pid=""
  if [[ $status != 0 ]]; then
    cat build/cpp-asan.log
    echo "error: the C++ unit tests under ASan + UBSan failed (exit $status; log above)" >&2
    exit 1
  fi
  grep -E 'tests passed|Total Test time' build/cpp-asan.log
fi

# Steps 6 and 7 run side by side (each keeps about one core busy; together 40-45 s less
# wall time on 2 cores); the documentation's log is printed after the benchmarks.
step "Documentation site: tools/build-docs.sh (warnings are errors), in the background"
docs_pid=""
PYTHON="$py" bash tools/build-docs.sh -q >build/docs.log 2>&1 &
docs_pid=$!
trap 'stop_asan; [[ -z "$docs_pid" ]] || kill "$docs_pid" 2>/dev/null || true; rm -f "$cpu_file"' EXIT

step "Benchmarks, quick mode: benchmarks/*.py --quick (in build/bench)"
rm -rf build/bench && mkdir -p build/bench  # what they write lands there, not in the tree
for bench in benchmarks/*.py; do
  echo "$bench --quick"
  (cd build/bench && MPLBACKEND=Agg "$py" "$root/$bench" --quick >/dev/null)
done

step "Documentation site: wait for tools/build-docs.sh"
status=0
wait "$docs_pid" || status=$?
docs_pid=""
cat build/docs.log
if [[ $status != 0 ]]; then
  echo "error: the documentation build failed (exit $status; log above)" >&2
  exit 1
fi

step "all checks passed"
