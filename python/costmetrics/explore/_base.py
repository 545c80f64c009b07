"""The :class:`Explorer` base class and the registry of explorers."""

from __future__ import annotations

import base64
import importlib
import io
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from html import escape
from typing import Any, TypeVar

from matplotlib.figure import Figure

from costmetrics import _convert

__all__ = ["Explorer", "ExplorerInfo", "figure_png", "register", "registry", "widgets_module"]


def widgets_module() -> Any:
    """Return the ``ipywidgets`` module, or None when it is not installed.

    Returns
    -------
    module or None
        ``ipywidgets`` (an optional dependency: ``pip install "costmetrics[jupyter]"``).
    """
    try:
        return importlib.import_module("ipywidgets")
    except ImportError:
        return None


def figure_png(fig: Figure, dpi: int = 96) -> bytes:
    """Render a figure to PNG bytes (no pyplot, no display needed).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    dpi : int
        Resolution.

    Returns
    -------
    bytes
        The PNG file.

    Raises
    ------
    TypeError
        If ``fig`` is not a matplotlib Figure or ``dpi`` not a real number.
    ValueError
        If ``dpi`` is not finite and positive.
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig: expected a matplotlib Figure, got {type(fig).__name__}")
    resolution = _convert.real(dpi, "dpi")
    if not (math.isfinite(resolution) and resolution > 0):
        raise ValueError(f"dpi: must be finite and > 0, got {dpi!r}")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


class Explorer:
    """An interactive view of a model: controls, a text summary and a figure.

    The state of an explorer lives in plain attributes that :meth:`update` changes and
    validates, so an explorer also works without ipywidgets (as a static figure). With
    ipywidgets, ``controls`` holds one widget per keyword of :meth:`update`; moving
    one calls :meth:`update` with that keyword and the control's new value, shows the new
    state in every control (options may change) and redraws ``outputs``.

    Displayed in Jupyter, an explorer shows its widget; where no widget can be shown (no
    ipywidgets, nbconvert, a static documentation page) it shows its summary and
    :meth:`figure` as a PNG (the display data holds HTML, PNG and plain-text versions).

    Subclasses implement ``_apply`` (the validated state change behind :meth:`update`),
    :meth:`figure`, :meth:`summary_html`, ``_make_controls`` and ``_sync_controls``, and
    call ``_start`` at the end of ``__init__``.

    Attributes
    ----------
    controls : dict of str to ipywidgets widget
        The input widgets, keyed by the :meth:`update` keyword each sets (empty without
        ipywidgets).
    outputs : dict of str to ipywidgets widget
        ``"summary"`` (HTML) and ``"plot"`` (PNG image) (empty without ipywidgets).
    widget : ipywidgets.VBox or None
        Everything, laid out; None without ipywidgets.
    error : str or None
        The message of the last input that could not be applied, shown in the summary;
        None when the last update succeeded.
    """

    #: Shown above the controls.
    title: str = "Explorer"

    def __init__(self) -> None:
        self.controls: dict[str, Any] = {}
        self.outputs: dict[str, Any] = {}
        self.widget: Any = None
        self.error: str | None = None
        self._syncing = False
        self._png: bytes | None = None  # what the plot widget shows

    # -- to implement ----------------------------------------------------------------

    def update(self, **values: Any) -> None:
        """Change the state, recompute, and redraw the widget (subclasses name the keywords).

        Parameters
        ----------
        **values
            New values, by name; names left out keep their value.

        Raises
        ------
        ValueError, TypeError, OverflowError
            On invalid values; the state is then unchanged.
        """
        self._apply(**values)
        self.error = None
        self._show()

    def _apply(self, **values: Any) -> None:
        """Validate ``values``, then change the state and recompute (nothing on error)."""
        raise NotImplementedError

    def figure(self) -> Figure:
        """Return a figure of the current state (the static view).

        Returns
        -------
        matplotlib.figure.Figure
            A new figure.
        """
        raise NotImplementedError

    def summary_html(self) -> str:
        """Return the text shown above the figure, as HTML.

        Returns
        -------
        str
            An HTML fragment.
        """
        raise NotImplementedError

    def _make_controls(self, ipw: Any) -> list[list[Any]]:
        """Create :attr:`controls` and return them as rows for the layout."""
        raise NotImplementedError

    def _sync_controls(self) -> None:
        """Show the state in the controls (options may depend on the state)."""
        for name, control in self.controls.items():
            control.value = getattr(self, name)

    # -- machinery -------------------------------------------------------------------

    def _start(self) -> None:
        """Build the widget, if ipywidgets is installed, and show the initial state."""
        ipw = widgets_module()
        if ipw is None:
            return
        rows = self._make_controls(ipw)
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.outputs = {"summary": ipw.HTML(), "plot": ipw.Image(format="png")}
        self.widget = ipw.VBox(
            [
                ipw.HTML(f"<b>{escape(self.title)}</b>"),
                *(ipw.HBox(row) for row in rows),
                self.outputs["summary"],
                self.outputs["plot"],
            ]
        )
        self._show()

    def _on_change(self, change: Mapping[str, Any]) -> None:
        if self._syncing:
            return
        owner = change.get("owner")
        names = [name for name, control in self.controls.items() if control is owner]
        if not names:
            return
        try:
            self._apply(**{names[0]: change.get("new")})
        except (ValueError, TypeError, OverflowError) as exc:
            self.error = str(exc)
            self._redraw(plot=False)
        else:
            self.error = None
            self._show()

    def _show(self) -> None:
        """Show the state in the controls and redraw the outputs."""
        if self.widget is None:
            return
        self._syncing = True
        try:
            self._sync_controls()
        finally:
            self._syncing = False
        self._redraw()

    def _redraw(self, plot: bool = True) -> None:
        if self.widget is None:
            return
        message = ""
        if self.error is not None:
            message = f'<p style="color:#b00020">Not applied: {escape(self.error)}</p>'
        self.outputs["summary"].value = message + self.summary_html()
        if plot:
            self._png = figure_png(self.figure())
            self.outputs["plot"].value = self._png

    def _repr_mimebundle_(
        self, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None
    ) -> dict[str, Any]:
        # With a widget, the plot it shows is the current state's (redrawn on each change).
        png = self._png if self.widget is not None and self._png else figure_png(self.figure())
        png_b64 = base64.b64encode(png).decode("ascii")
        bundle: dict[str, Any] = {
            "text/plain": f"<{type(self).__name__}: {self.title}>",
            "text/html": (
                f"<div>{self.summary_html()}<br>"
                f'<img src="data:image/png;base64,{png_b64}" style="max-width:100%"></div>'
            ),
            "image/png": png_b64,
        }
        if self.widget is not None:
            bundle.update(self.widget._repr_mimebundle_())
            bundle["text/plain"] = f"<{type(self).__name__}: {self.title}>"
        return bundle


F = TypeVar("F", bound=Callable[..., Explorer])


@dataclass(frozen=True)
class ExplorerInfo:
    """A registered explorer.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"time"``.
    summary : str
        One line on what it shows.
    factory : callable
        Called with keyword arguments, returns the :class:`Explorer`.
    """

    name: str
    summary: str
    factory: Callable[..., Explorer]


_REGISTRY: dict[str, ExplorerInfo] = {}


def register(name: str, summary: str) -> Callable[[F], F]:
    """Register an explorer factory under ``name`` (a decorator).

    Parameters
    ----------
    name : str
        Registry key, e.g. ``"time"``.
    summary : str
        One line on what the explorer shows.

    Returns
    -------
    callable
        The decorator; it returns the factory unchanged.

    Raises
    ------
    TypeError
        If ``name`` or ``summary`` is not a str, or the factory is not callable.
    ValueError
        If ``name`` is empty or already registered by another factory.
    """
    # Checked here: a non-str name broke sorted(registry()) for every later caller.
    name = _convert.string(name, "name", nonempty=True)
    summary = _convert.string(summary, "summary")

    def decorate(factory: F) -> F:
        if not callable(factory):
            raise TypeError(f"factory: expected a callable, got {type(factory).__name__}")
        known = _REGISTRY.get(name)
        if known is not None and known.factory is not factory:
            raise ValueError(f"name: explorer {name!r} is already registered")
        _REGISTRY[name] = ExplorerInfo(name, summary, factory)
        return factory

    return decorate


def registry() -> dict[str, ExplorerInfo]:
    """Return the registered explorers, by name (a copy).

    Returns
    -------
    dict of str to ExplorerInfo
        Every explorer registered so far.
    """
    return dict(sorted(_REGISTRY.items()))
