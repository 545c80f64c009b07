#!/usr/bin/env bash
# Build the documentation site into build/docs (open build/docs/index.html).
#
# Warnings are errors: a broken cross-reference, a public function or class without a
# docstring, or a notebook that fails to run fails the build. Notebooks are rendered from
# the executed copies the test suite writes to build/executed-notebooks/ (pytest
# tests/test_notebooks.py); a notebook without an up-to-date executed copy is run here.
#
# Needs the package and the docs tools in the Python that runs it:
#   pip install ".[docs]"        (tools/test-all.sh installs them into .venv)
# Environment: PYTHON (interpreter, default .venv/bin/python if present, else python3).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
export MPLBACKEND=Agg PYDEVD_DISABLE_FILE_VALIDATION=1
exec "$PYTHON" -m sphinx -W --keep-going -b html -d build/docs-doctrees docs build/docs "$@"
