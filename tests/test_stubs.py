"""The ``.pyi`` stubs of ``costmetrics._core`` agree with the compiled bindings.

``mypy.stubtest`` imports the built extension and compares every name, signature and
attribute with the stubs in ``python/costmetrics/_core``: a binding added or changed
without its stub, a field declared writable that is read-only at run time, or a stub for
something that does not exist fails here. There is no allowlist: every difference is an
error.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import costmetrics

ROOT = Path(__file__).resolve().parents[1]


def test_stubtest_finds_no_difference(tmp_path: Path) -> None:
    pytest.importorskip("mypy.stubtest")
    stubs = ROOT / "python"
    assert (stubs / "costmetrics" / "_core" / "__init__.pyi").is_file()
    # stubtest must import the package this test imported (the installed wheel in CI, the
    # source tree in a development build), not the source tree's copy without _core.
    imported_from = Path(costmetrics.__file__).resolve().parent.parent
    env = {
        **os.environ,
        "MYPYPATH": str(stubs),
        "PYTHONPATH": os.pathsep.join([str(imported_from), str(stubs)]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "costmetrics._core",
         "--mypy-config-file", os.devnull, "--concise"],
        capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
