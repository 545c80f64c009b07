"""Sphinx configuration of the costmetrics documentation site.

Build it with ``bash tools/build-docs.sh``: it copies ``docs/`` to ``build/docs-src/`` and
runs ``sphinx-build -W --keep-going -b html build/docs-src build/docs`` there, so that the
pages generated here land under ``build/`` and never in the source tree. Everything that
changes when a model family is added is discovered here, so a new family needs no edit of
this file:

- the model pages are every other ``docs/*.md``, listed by ``models.md`` in the order of
  ``costmetrics.families.FAMILIES`` (see :func:`_write_models_page`);
- the notebooks are every ``notebooks/*.ipynb``, staged into ``notebooks/`` of the build
  copy (see :func:`_stage_notebooks`);
- the API reference lists ``costmetrics``, one module per entry of
  ``costmetrics._LAZY_SUBMODULES``, of ``costmetrics.explore.FAMILIES`` and of
  ``costmetrics.experiments.EXPERIMENTS``, and :data:`API_MODULES` (see
  :func:`_write_api_index`).
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
from pathlib import Path
from typing import Any

import costmetrics
from costmetrics.experiments import EXPERIMENTS

#: The Sphinx source folder: the copy build/docs-src/ of docs/ (tools/build-docs.sh).
DOCS = Path(__file__).resolve().parent
#: The repository: the nearest folder above DOCS with pyproject.toml.
ROOT = next(p for p in DOCS.parents if (p / "pyproject.toml").is_file())
if DOCS == ROOT / "docs":
    raise RuntimeError(
        "docs/conf.py generates pages into its source folder: build the site with "
        "`bash tools/build-docs.sh`, which builds from the copy build/docs-src/"
    )
#: Where tests/test_notebooks.py saves the notebooks it executed.
EXECUTED_NOTEBOOKS = ROOT / "build" / "executed-notebooks"
#: Generated at build time, in the build copy.
STAGED_NOTEBOOKS = DOCS / "notebooks"
API_INDEX = DOCS / "reference" / "api.rst"
MODELS_PAGE = DOCS / "models.md"
#: Top-level pages that are not model pages.
SECTION_PAGES = ("index", "models", "notebooks", "api-conventions")

#: Modules documented besides the model families, in this order.
API_MODULES = (
    "costmetrics.families",
    "costmetrics.presets",
    "costmetrics._record",
    "costmetrics.reproduce",
    "costmetrics.report",
    "costmetrics.experiments",
)

project = "costmetrics"
author = "the costmetrics developers"
copyright = "the costmetrics developers"
release = costmetrics.__version__
version = release

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinxarg.ext",
]
templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "reference/generated/*.md"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"

# Every reference must resolve: a broken cross-reference fails the build (-W).
nitpicky = True
#: Types from outside the package that appear in signatures (no intersphinx: the build
#: must work offline).
nitpick_ignore_regex = [
    (r"py:(class|obj|data)", r"(numpy|npt|np|matplotlib|pathlib|argparse|typing|types)\..*"),
    (r"py:(class|obj|data)", r"(collections\.abc|typing_extensions|dataclasses)\..*"),
    (r"py:(class|obj|data)", r"(Path|Figure|Axes|Sequence|Mapping|Iterable|Iterator)"),
    (r"py:(class|obj|data)", r"(Callable|Any|Literal|Union|Optional|ArrayLike|NDArray)"),
    (r"py:(class|obj|data)", r"(int|float|str|bool|bytes|object|dict|list|tuple|None)"),
    # Base class of the records bound with pybind11 (costmetrics._core).
    (r"py:class", r"pybind11_builtins\..*"),
    # Type aliases and type variables (single capitals) of the package.
    (r"py:class", r"Tree"),
    (r"py:class", r"costmetrics\..*\.[A-Z]"),
    # Standard-library classes (no intersphinx: the build runs offline).
    (r"py:class", r"concurrent\.futures\..*"),
    # Compiled-core classes that appear only in signatures.
    (r"py:class", r"costmetrics\._core\..*"),
]

# MyST: $...$ and $$...$$ math, ::: fences, header anchors for [text](#anchor) links.
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
# The Markdown pages are also read on the repository, where they link to source files
# outside docs/; those links are kept as plain links instead of failing the build.
suppress_warnings = ["myst.xref_missing"]

# Notebooks: rendered from the copies the test suite executed (no execution here), or
# executed now when there is no up-to-date executed copy (see _stage_notebooks).
nb_execution_mode = "off"
nb_execution_timeout = 120
nb_execution_raise_on_error = True
nb_execution_show_tb = True
# Widgets have no live kernel on a static page: show the static figure each explorer
# puts beside its widget (costmetrics.explore) instead of an empty widget view.
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
nb_ipywidgets_js: dict[str, dict[str, str]] = {}  # no widget JavaScript on the pages

# API reference: autosummary pages from the numpydoc docstrings.
autosummary_generate = True
autosummary_ignore_module_all = False  # a module's __all__ is its public API
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False  # "Attributes" as a table of names
# A public function, class or method without a docstring is a warning, hence an error.
numpydoc_validation_checks = {"GL08"}
# scratchpad.Reading is a Literal alias: numpydoc would validate typing's own docstring.
numpydoc_validation_exclude = {r"\.__\w+__$", r"\._\w+$", r"^costmetrics\.scratchpad\.Reading$"}

html_theme = "pydata_sphinx_theme"
html_title = f"costmetrics {release}"
html_static_path = ["_static"]
html_css_files = ["costmetrics.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars: dict[str, list[str]] = {"reference/sources": []}
html_show_sourcelink = False


# --------------------------------------------------------------------------------------
# Notebooks
# --------------------------------------------------------------------------------------


def _code_sources(notebook: dict[str, Any]) -> list[str]:
    """Return the source of every code cell (the part that decides the outputs)."""
    out = []
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            out.append(source if isinstance(source, str) else "".join(source))
    return out


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _drop_widget_state(notebook: dict[str, Any]) -> None:
    """Remove widget views and state: a static page shows the explorers' PNG instead."""
    notebook.get("metadata", {}).pop("widgets", None)
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)


def _library_mtime() -> float:
    """Return the time the documented library last changed.

    The newest modification time of a file of the imported package (its Python modules and
    the compiled ``_core``, wherever they are installed) and of the repository's ``data/``.
    """
    import costmetrics._core as core

    roots = [Path(costmetrics.__file__).parent, Path(str(core.__file__)), ROOT / "data"]
    newest = 0.0
    for root in roots:
        files = root.rglob("*") if root.is_dir() else [root]
        for path in files:
            if path.is_file():
                newest = max(newest, path.stat().st_mtime)
    return newest


def _stage_notebooks() -> None:
    """Copy every ``notebooks/*.ipynb`` into ``notebooks/`` of the build copy for myst-nb.

    A notebook whose code cells are unchanged since the test suite executed it, and whose
    executed copy is newer than the library (:func:`_library_mtime`), is staged from
    ``build/executed-notebooks/`` with its outputs; any other notebook is staged from its
    source and marked to be executed during the build, so that no page shows outputs of an
    older library. Stale staged files are removed.
    """
    STAGED_NOTEBOOKS.mkdir(exist_ok=True)
    library_mtime = _library_mtime()
    wanted = set()
    for source in sorted((ROOT / "notebooks").glob("*.ipynb")):
        wanted.add(source.name)
        notebook = json.loads(source.read_text(encoding="utf-8"))
        executed = EXECUTED_NOTEBOOKS / source.name
        staged = None
        if executed.is_file() and executed.stat().st_mtime >= library_mtime:
            ran = json.loads(executed.read_text(encoding="utf-8"))
            if _code_sources(ran) == _code_sources(notebook):
                # Keep the markdown of the source (text fixes need no re-execution).
                for cell, ran_cell in zip(notebook["cells"], ran["cells"]):
                    if cell.get("cell_type") == "code":
                        cell["outputs"] = ran_cell.get("outputs", [])
                        cell["execution_count"] = ran_cell.get("execution_count")
                staged = notebook
        if staged is None:
            notebook.setdefault("metadata", {})["mystnb"] = {"execution_mode": "force"}
            staged = notebook
        _drop_widget_state(staged)
        text = json.dumps(staged, indent=1, ensure_ascii=False) + "\n"
        target = STAGED_NOTEBOOKS / source.name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
    for old in STAGED_NOTEBOOKS.iterdir():
        if old.name not in wanted:
            if old.is_dir():
                shutil.rmtree(old)
            else:
                old.unlink()


# --------------------------------------------------------------------------------------
# Model pages
# --------------------------------------------------------------------------------------


def _write_models_page() -> None:
    """Write ``models.md``: a toctree of every ``*.md`` page but the section pages.

    The families' pages come first, in :data:`costmetrics.families.FAMILIES` order; any
    other page follows in name order.
    """
    from costmetrics.families import FAMILIES

    found = {p.stem for p in DOCS.glob("*.md") if p.stem not in SECTION_PAGES}
    ordered = list(dict.fromkeys(f.docs for f in FAMILIES if f.docs in found))
    pages = ordered + sorted(found - set(ordered))
    text = "\n".join(
        [
            "<!-- Generated by docs/conf.py from the docs/*.md files; do not edit. -->",
            "# Models",
            "",
            "One page per model: the equations as implemented, units, the readings chosen",
            "where a source is ambiguous, and the reproduced numbers beside the published ones.",
            "",
            "```{toctree}",
            ":maxdepth: 1",
            "",
            *pages,
            "```",
            "",
        ]
    )
    _write_if_changed(MODELS_PAGE, text)


def _write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` unless it already holds it (keeps Sphinx's cache valid)."""
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------------------
# API reference
# --------------------------------------------------------------------------------------


def _is_module_attribute(name: str) -> bool:
    """Whether ``name`` reaches a module by attribute access (autosummary's lookup).

    ``costmetrics.reproduce`` is the function re-exported by the package, which shadows
    the module of the same name: such a module gets no page of its own.
    """
    import importlib

    module = importlib.import_module(name)  # also makes it an attribute of its parent
    parent, _, attr = name.rpartition(".")
    if not parent:
        return True
    return getattr(importlib.import_module(parent), attr, None) is module


def api_modules() -> list[str]:
    """Every module of the API reference, in page order."""
    families = [f"costmetrics.{name}" for name in costmetrics._LAZY_SUBMODULES]
    experiments = [f"costmetrics.experiments.{name}" for name in EXPERIMENTS]
    explorers = []
    if "explore" in costmetrics._LAZY_SUBMODULES:
        from costmetrics import explore

        explorers = [f"costmetrics.explore.{name}" for name in explore.FAMILIES]
    names = ["costmetrics", *families, *explorers, *API_MODULES, *experiments]
    return [name for name in names if _is_module_attribute(name)]


def _documented_members(module: Any) -> list[str]:
    """Return the names autosummary documents on a module page (``__all__`` or its own)."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_") and getattr(obj, "__module__", None) == module.__name__
    ]


def _reexports() -> dict[str, str]:
    """``{"costmetrics.gpu": "costmetrics.presets.gpu", ...}`` over the API modules.

    A name that a module exports but another documented module defines is listed on the
    first module's page with a link to the second, instead of being documented twice.
    """
    import importlib

    modules = api_modules()
    documented = {
        f"{name}.{member}"
        for name in modules
        for member in _documented_members(importlib.import_module(name))
    }
    out = {}
    for name in modules:
        module = importlib.import_module(name)
        for member in getattr(module, "__all__", ()):
            home = getattr(getattr(module, member, None), "__module__", None)
            target = f"{home}.{member}"
            if isinstance(home, str) and home != name and target in documented:
                out[f"{name}.{member}"] = target
    return out


def _summaries() -> dict[str, str]:
    """First paragraph of the docstring of every documented member, by full name.

    The module pages show it in their summary tables; autosummary's own summaries stop at
    the first ". ", which cuts "(Sec. A.6)" and "S1 * ... * T" short.
    """
    import importlib

    out = {}
    for name in api_modules():
        module = importlib.import_module(name)
        for member in _documented_members(module):
            doc = inspect.getdoc(getattr(module, member, None)) or ""
            first = doc.strip().split("\n\n", 1)[0]
            out[f"{name}.{member}"] = " ".join(line.strip() for line in first.splitlines())
    return out


def _resolve_reexport(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """Resolve a Python reference to a re-exported name (``costmetrics.gpu``) at its home."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    module = node.get("py:module") or ""
    for candidate in (target, f"{module}.{target}" if module else target):
        home = REEXPORTS.get(candidate)
        if home is not None:
            return env.get_domain("py").resolve_xref(
                env, node["refdoc"], app.builder, node["reftype"], home, node, contnode
            )
    return None


def _write_api_index() -> None:
    """Write ``reference/api.rst``: one autosummary entry per module of the API."""
    lines = [
        ".. This file is generated by docs/conf.py; edit the module lists there.",
        "",
        "API reference",
        "=============",
        "",
        "One page per module, generated from the docstrings. ``costmetrics`` imports each",
        "model family on first use (``costmetrics.time``, ``costmetrics.chain``, ...).",
        "",
        ".. autosummary::",
        "   :toctree: generated",
        "",
        *(f"   {name}" for name in api_modules()),
        "",
    ]
    _write_if_changed(API_INDEX, "\n".join(lines))


_stage_notebooks()
_write_models_page()
_write_api_index()
REEXPORTS = _reexports()
autosummary_context = {"reexports": REEXPORTS, "summaries": _summaries()}


def setup(app: Any) -> None:
    """Resolve references to re-exported names (see :func:`_resolve_reexport`)."""
    app.connect("missing-reference", _resolve_reexport)


os.environ.setdefault("MPLBACKEND", "Agg")
