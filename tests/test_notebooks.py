"""Every notebook runs from top to bottom, and none is stored with outputs.

Notebooks are executed with nbclient on a kernel that runs this very Python
(``sys.executable``), whatever kernelspecs the machine has installed, in a temporary
working directory, with a timeout of 120 s per cell. Each executed notebook is saved to
``build/executed-notebooks/``, from where the documentation build (``docs/conf.py``)
renders it with its outputs instead of running it again.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
TIMEOUT_S = 120
KERNEL_NAME = "costmetrics-test-python"
EXECUTED_DIR = ROOT / "build" / "executed-notebooks"
# nbformat's read/write are not annotated; typed aliases keep mypy --strict quiet.
nb_read: Callable[..., Any] = nbformat.read
nb_write: Callable[..., Any] = nbformat.write


def _tracked_notebooks() -> list[Path]:
    """Notebooks in git when this is a checkout, else those on disk."""
    try:
        done = subprocess.run(
            ["git", "ls-files", "--", "notebooks/*.ipynb"],
            cwd=ROOT, capture_output=True, text=True, check=True, timeout=60,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return NOTEBOOKS
    return sorted(ROOT / line for line in done.stdout.splitlines())


@pytest.fixture(scope="module")
def kernel_name(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A kernelspec that starts ipykernel with ``sys.executable``, found first on JUPYTER_PATH."""
    jupyter_dir = tmp_path_factory.mktemp("jupyter")
    spec_dir = jupyter_dir / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "costmetrics tests",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    mp = pytest.MonkeyPatch()
    mp.setenv("JUPYTER_PATH", str(jupyter_dir))
    # Opt in to jupyter_core's platformdirs layout, so it does not warn about the change.
    mp.setenv("JUPYTER_PLATFORM_DIRS", "1")
    yield KERNEL_NAME
    mp.undo()


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes(path: Path, kernel_name: str, tmp_path: Path) -> None:
    notebook = nb_read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=TIMEOUT_S,
        kernel_name=kernel_name,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            # A Figure object shows as an image only once the inline backend is active.
            assert not (
                str(data.get("text/plain", "")).startswith("<Figure size")
                and "image/png" not in data
            ), f"{path.name}: cell {index} shows a Figure as text; add `%matplotlib inline`"
    EXECUTED_DIR.mkdir(parents=True, exist_ok=True)
    partial = EXECUTED_DIR / f".{path.name}.partial"
    nb_write(notebook, partial)
    partial.replace(EXECUTED_DIR / path.name)


@pytest.mark.parametrize("path", _tracked_notebooks(), ids=lambda p: p.name)
def test_notebook_stored_without_outputs(path: Path) -> None:
    notebook = nb_read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            assert cell.get("outputs") == [], f"{path.name}: cell {index} has stored outputs"
            assert cell.get("execution_count") is None, (
                f"{path.name}: cell {index} has an execution count"
            )
