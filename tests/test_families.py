"""Every family of ``costmetrics.families.FAMILIES`` appears at every layer, and nothing else.

Registering a family is one entry of :data:`costmetrics.families.FAMILIES`; this test
fails until the family has its file at every layer (``docs/api-conventions.md``,
"Template for a new family") and the lists that cannot be derived from the registry (the
static imports of type checkers, the C++ registration list) name it. The reverse holds
too: a module, binding, experiment or notebook of no registered family fails here.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
from pathlib import Path

import pytest

import costmetrics as cm
from costmetrics import _core, cli
from costmetrics.experiments import EXPERIMENTS
from costmetrics.families import FAMILIES, Family, family, names

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "costmetrics"
CPP = ROOT / "cpp"
#: Modules of the package that are no family (infrastructure shared by all).
NOT_FAMILIES = {"__init__", "__main__", "_convert", "_files", "_interrupt", "_record", "_tables",
                "cli", "families", "presets", "report", "reproduce"}  # fmt: skip
#: C++ headers and notebooks that are no family's.
SHARED_HEADERS = {"checked", "parallel", "record", "search"}
OTHER_NOTEBOOKS = {"10_explore"}

BY_NAME = pytest.mark.parametrize("fam", FAMILIES, ids=lambda f: f.name)


def _type_checking_imports(path: Path) -> list[str]:
    """Names imported as ``from <package> import X as X`` under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for inner in node.body:
                if isinstance(inner, ast.ImportFrom):
                    out += [alias.name for alias in inner.names]
    return out


def _stub_imports() -> list[str]:
    tree = ast.parse((PACKAGE / "_core" / "__init__.pyi").read_text(encoding="utf-8"))
    return [
        alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module is None and node.level == 1
        for alias in node.names
    ]


def _bound_families() -> list[str]:
    """The names of COSTMETRICS_BOUND_FAMILIES in cpp/bindings/bindings.hpp, in order."""
    text = (CPP / "bindings" / "bindings.hpp").read_text(encoding="utf-8")
    match = re.search(r"#define COSTMETRICS_BOUND_FAMILIES\(X\)((?:[^\n]*\\\n)*[^\n]*)", text)
    assert match, "bindings.hpp: no COSTMETRICS_BOUND_FAMILIES list"
    return re.findall(r"X\((\w+)\)", match.group(1))


def test_registry_is_well_formed() -> None:
    assert len(set(names())) == len(FAMILIES) >= 10
    assert all(re.fullmatch(r"[a-z]+", f.name) for f in FAMILIES)
    assert family("chain") is FAMILIES[1] and isinstance(family("time"), Family)
    with pytest.raises(ValueError, match="name: unknown family 'matrix_chain'"):
        family("matrix_chain")
    for wrong in (None, 1, b"time"):  # a type, not a value, is wrong: TypeError
        with pytest.raises(TypeError, match="name: expected a family name"):
            family(wrong)  # type: ignore[arg-type]
    commands = [c for f in FAMILIES for c in f.commands]
    assert len(commands) == len(set(commands))


# ------------------------------------------------------------------ Python package


@BY_NAME
def test_python_module(fam: Family) -> None:
    assert (PACKAGE / f"{fam.name}.py").is_file()
    module = importlib.import_module(f"costmetrics.{fam.name}")
    assert getattr(cm, fam.name) is module
    assert fam.name in cm._LAZY_SUBMODULES
    assert (fam.name in cm.__all__) == (fam.name != "time")  # time would shadow the stdlib's


def test_package_lists_derive_from_the_registry() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py")} - NOT_FAMILIES
    assert modules == set(names()), "a module of no registered family, or a family without one"
    assert cm._LAZY_SUBMODULES == (*names(), "explore")
    # Type checkers need static imports: they must name every family (sorted, as ruff sorts).
    assert _type_checking_imports(PACKAGE / "__init__.py") == sorted(names())


# ------------------------------------------------------------------ C++ core and bindings


@BY_NAME
def test_core_layers(fam: Family) -> None:
    files = [
        CPP / "include" / "costmetrics" / f"{fam.name}.hpp",
        CPP / "src" / f"{fam.name}.cpp",
        CPP / "tests" / f"test_{fam.name}.cpp",
        CPP / "bindings" / f"{fam.name}.cpp",
        PACKAGE / "_core" / f"{fam.name}.pyi",
    ]
    if not fam.core:
        assert not any(f.exists() for f in files) and not hasattr(_core, fam.name)
        return
    for path in files:
        assert path.is_file(), f"{fam.name}: missing {path.relative_to(ROOT)}"
    assert inspect.ismodule(getattr(_core, fam.name))
    binding = (CPP / "bindings" / f"{fam.name}.cpp").read_text(encoding="utf-8")
    assert f"void register_{fam.name}(py::module_& m)" in binding


def test_core_lists_name_every_family_with_a_core() -> None:
    core = [f.name for f in FAMILIES if f.core]
    assert _bound_families() == core
    assert _stub_imports() == sorted(core)
    headers = {p.stem for p in (CPP / "include" / "costmetrics").glob("*.hpp")}
    assert headers - SHARED_HEADERS == set(core)
    bindings = {p.stem for p in (CPP / "bindings").glob("*.cpp")} - {"module"}
    assert bindings == set(core)
    stubs = {p.stem for p in (PACKAGE / "_core").glob("*.pyi")} - {"__init__"}
    assert stubs == set(core)
    # C++ tests are named after their family: test_<family>.cpp or test_<family>_<what>.cpp.
    for path in (CPP / "tests").glob("test_*.cpp"):
        stem = path.stem.removeprefix("test_")
        assert any(stem == n or stem.startswith(n + "_") for n in core), path.name


# ------------------------------------------------------------------ experiments, notebooks, docs


@BY_NAME
def test_experiment(fam: Family) -> None:
    path = PACKAGE / "experiments" / f"{fam.name}.py"
    assert path.is_file() == fam.experiment
    if fam.experiment:
        module = importlib.import_module(f"costmetrics.experiments.{fam.name}")
        assert callable(module.run)
        assert (ROOT / "tests" / "reference" / fam.name / "report.json").is_file()


def test_experiment_lists_derive_from_the_registry() -> None:
    assert EXPERIMENTS == tuple(f.name for f in FAMILIES if f.experiment)
    modules = {p.stem for p in (PACKAGE / "experiments").glob("*.py")} - {"__init__"}
    assert modules == set(EXPERIMENTS)
    pinned = {p.name for p in (ROOT / "tests" / "reference").iterdir() if p.is_dir()}
    assert pinned == set(EXPERIMENTS)


@BY_NAME
def test_notebook(fam: Family) -> None:
    if fam.notebook is None:
        return
    assert re.fullmatch(rf"\d\d_{fam.name}", fam.notebook), fam.notebook
    path = ROOT / "notebooks" / f"{fam.notebook}.ipynb"
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    first = "".join(cells[0]["source"]).splitlines()[0]
    # The number is written once, in the file name; the heading is the registry's title.
    assert first == f"# {fam.title}", f"{path.name}: heading {first!r}"


def test_notebooks_are_numbered_once_and_belong_to_a_family() -> None:
    stems = {p.stem for p in (ROOT / "notebooks").glob("*.ipynb")}
    registered = {f.notebook for f in FAMILIES if f.notebook}
    assert stems - OTHER_NOTEBOOKS == registered
    numbers = sorted(int(s[:2]) for s in stems)
    assert numbers == list(range(1, len(stems) + 1)), "notebook numbers 01, 02, ... once each"


@BY_NAME
def test_docs_page(fam: Family) -> None:
    assert (ROOT / "docs" / f"{fam.docs}.md").is_file()
    if fam.docs != fam.name:  # documented with another family
        assert fam.docs in names()


@BY_NAME
def test_tests(fam: Family) -> None:
    assert (ROOT / "tests" / f"test_{fam.name}.py").is_file()


# ------------------------------------------------------------------ command line


def test_cli_subcommands_derive_from_the_registry() -> None:
    listed = [name for name, _ in cli.SUBCOMMANDS]
    assert listed == ["reproduce", "presets", *(c for f in FAMILIES for c in f.commands)]
    for fam in FAMILIES:
        assert fam.commands, f"{fam.name}: no subcommand"


# ------------------------------------------------------------------ figures in one layer


@BY_NAME
def test_figures_are_drawn_in_the_experiment_layer(fam: Family) -> None:
    # docs/api-conventions.md, "Figures": the library module computes, the experiment draws.
    source = (PACKAGE / f"{fam.name}.py").read_text(encoding="utf-8")
    assert "matplotlib" not in source, f"costmetrics.{fam.name} imports matplotlib"
    module = importlib.import_module(f"costmetrics.{fam.name}")
    plots = [n for n in dir(module) if n.startswith("plot")]
    assert not plots, f"costmetrics.{fam.name} draws figures: {plots}"
    if fam.experiment:
        experiment = importlib.import_module(f"costmetrics.experiments.{fam.name}")
        assert any(n.startswith("plot_") for n in dir(experiment)), fam.name


def test_benchmarks_are_named_after_their_family() -> None:
    # benchmarks/bench_<family>.py or bench_<family>_<what>.py (.cpp for the core alone).
    for path in (ROOT / "benchmarks").glob("*"):
        if path.suffix not in (".py", ".cpp"):
            continue
        stem = path.stem.removeprefix("bench_")
        assert path.stem.startswith("bench_") and any(
            stem == n or stem.startswith(n + "_") for n in names()
        ), path.name


#: Test files of layers shared by every family (the rest are named after a family).
SHARED_TESTS = {"cli", "conventions", "data_files", "explore", "families", "files", "notebooks",
                "presets", "report", "reproduce_pinned", "stubs"}  # fmt: skip


def test_test_files_are_organized_by_family() -> None:
    # tests/test_<family>.py or test_<family>_<what>.py, never a file named after an issue.
    for path in (ROOT / "tests").glob("test_*.py"):
        stem = path.stem.removeprefix("test_")
        assert stem in SHARED_TESTS or any(
            stem == n or stem.startswith(n + "_") for n in names()
        ), path.name
