#!/usr/bin/env bash
# Build the documentation site into build/docs (open build/docs/index.html).
#
# Writes only under build/: docs/ is copied to build/docs-src/ (changed files only, so
# that Sphinx's incremental build keeps working), where docs/conf.py generates the pages it
# derives from the package (models.md, reference/api.rst and reference/generated/, the
# staged notebooks/), and Sphinx builds from that copy.
#
# Warnings are errors: a broken cross-reference, a public function or class without a
# docstring, or a notebook that fails to run fails the build. Notebooks are rendered from
# the executed copies the test suite writes to build/executed-notebooks/ (pytest
# tests/test_notebooks.py); a notebook without an executed copy of the same code that is
# newer than the library (its modules, the compiled _core, data/) is run here.
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
"$PYTHON" - <<'PY'
"""Mirror docs/ into build/docs-src/, leaving alone what docs/conf.py generates there."""
import filecmp
import shutil
from pathlib import Path

source, target = Path("docs"), Path("build/docs-src")
generated = {"models.md", "notebooks", "reference/api.rst", "reference/generated"}


def is_generated(relative: Path) -> bool:
    return any(relative.as_posix() == g or relative.as_posix().startswith(g + "/") for g in generated)


wanted = set()
for path in sorted(source.rglob("*")):
    relative = path.relative_to(source)
    if is_generated(relative) or "__pycache__" in relative.parts or not path.is_file():
        continue  # stale pages an older build wrote into docs/ are not copied
    wanted.add(relative)
    copy = target / relative
    if not copy.is_file() or not filecmp.cmp(path, copy, shallow=False):
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, copy)
for path in sorted(target.rglob("*"), reverse=True) if target.is_dir() else []:
    relative = path.relative_to(target)
    if is_generated(relative) or relative in wanted:
        continue
    if path.is_file() or path.is_symlink():
        path.unlink()
    elif path.is_dir() and not any(path.iterdir()):
        path.rmdir()
PY
exec "$PYTHON" -m sphinx -W --keep-going -b html -d build/docs-doctrees build/docs-src build/docs "$@"
