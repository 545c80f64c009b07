"""Explorer of the execution-time model: the T_alg landscape and the best tiles (000 App. A).

``costmetrics.explore.time_landscape("heat2d", "gtx980")`` shows T_alg over a slice of
the tile space, (tS2, tT) at a fixed tS1 as in Fig. A.5, with sliders for tS1, tT and the
problem size and pickers for the GPU and the stencil. Every change re-runs the exhaustive
search :func:`costmetrics.time.best_tiles` (milliseconds) and redraws.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

import numpy as np
import numpy.typing as npt
from matplotlib.figure import Figure

from costmetrics import time as cm_time
from costmetrics.explore._base import Explorer, register
from costmetrics.presets import gpu as gpu_preset
from costmetrics.presets import gpus, stencils
from costmetrics.presets import stencil as stencil_preset

__all__ = ["SPACE_SIZES", "TIME_SIZES", "TimeLandscape", "time_landscape"]

#: Problem sizes offered by the space-size slider, by number of space dimensions (every
#: space extent is set to the chosen value). 2D and 3D span the sizes of Sec. A.5.
SPACE_SIZES: dict[int, tuple[int, ...]] = {
    1: (65536, 262144, 1048576, 4194304),
    2: (1024, 2048, 4096, 8192, 16384, 32768),
    3: (128, 256, 384, 512, 640, 768, 1024),
}
#: Time extents offered by the time-size slider, by number of space dimensions.
TIME_SIZES: dict[int, tuple[int, ...]] = {
    1: (1024, 4096, 16384, 65536),
    2: (256, 512, 1024, 2048, 4096, 8192, 16384),
    3: (64, 128, 256, 384, 512, 640),
}
_DEFAULT_SIZES = {1: (1048576, 4096), 2: (8192, 8192), 3: (512, 512)}
_DEFAULT_TS1 = 8  # Fig. A.5


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name}: must be positive, got {value}")
    return int(value)


class TimeLandscape(Explorer):
    """T_alg of a stencil on a GPU over a (tS2, tT) slice of the tile space.

    Build it with :func:`time_landscape`. The slice fixes tS1 (and, in 3D, tS3 at the best
    tile's value); a 1D stencil's slice is its whole (tS1, tT) space. The tile candidates
    are those of :func:`costmetrics.time.default_search_space`.

    Attributes
    ----------
    stencil, gpu : str
        Preset keys.
    space_size, time_size : int
        Every space extent S1 (= S2 = S3) and the time extent T.
    tS1 : int
        The fixed tS1 of the slice (ignored for 1D stencils).
    tT : int
        The tT of the cross-section drawn beside the map.
    best : costmetrics.time.BestTiles
        The exhaustive search at the current stencil, GPU and sizes.
    map_values, tT_values : numpy.ndarray
        Axes of the slice: the mapped tile size (tS2, or tS1 in 1D) and tT.
    talg_s : numpy.ndarray, shape (len(tT_values), len(map_values))
        T_alg on the slice in seconds, NaN where infeasible.
    """

    title = "T_alg landscape and best tiles (000 App. A)"

    def __init__(
        self,
        stencil: str = "heat2d",
        gpu: str = "gtx980",
        space_size: int | None = None,
        time_size: int | None = None,
        tS1: int | None = None,
        tT: int | None = None,
    ) -> None:
        super().__init__()
        self.stencil = ""
        self.gpu = ""
        self.space_size = 0
        self.time_size = 0
        self.tS1 = 0
        self.tT = 0
        self._apply(
            stencil=stencil,
            gpu=gpu,
            space_size=space_size,
            time_size=time_size,
            tS1=tS1,
            tT=tT,
        )
        self._start()

    # -- state -----------------------------------------------------------------------

    @property
    def n_space_dims(self) -> int:
        """Space dimensions of the current stencil."""
        return stencil_preset(self.stencil).n_space_dims

    @property
    def sizes(self) -> tuple[int, ...]:
        """The problem sizes ``(S1, [S2, [S3,]] T)`` of the current state."""
        return (self.space_size,) * self.n_space_dims + (self.time_size,)

    @property
    def slice_tiles(self) -> tuple[int, ...]:
        """The best tiles on the current slice (empty when none is feasible)."""
        if np.all(np.isnan(self.talg_s)):
            return ()
        i, j = np.unravel_index(np.nanargmin(self.talg_s), self.talg_s.shape)
        return self._tiles(int(self.map_values[j]), int(self.tT_values[i]))

    def _tiles(self, mapped: int, tT: int) -> tuple[int, ...]:
        d = self.n_space_dims
        if d == 1:
            return (mapped, tT)
        if d == 2:
            return (self.tS1, mapped, tT)
        return (self.tS1, mapped, self.best.tiles[2], tT)

    def update(  # type: ignore[override]
        self,
        *,
        stencil: str | None = None,
        gpu: str | None = None,
        space_size: int | None = None,
        time_size: int | None = None,
        tS1: int | None = None,
        tT: int | None = None,
    ) -> None:
        """Change any of the inputs and recompute the search and the slice.

        Parameters
        ----------
        stencil, gpu : str, optional
            Preset names (:func:`costmetrics.stencils`, :func:`costmetrics.gpus`).
        space_size, time_size : int, optional
            Every space extent and the time extent. When the stencil changes its number of
            space dimensions, sizes and tiles not given return to that dimension's defaults.
        tS1 : int, optional
            tS1 of the slice; one of the candidates of the default search space.
        tT : int, optional
            tT of the cross-section; one of the candidates (default: the best tile's).

        Raises
        ------
        ValueError
            Unknown preset, a size or tile that is not positive or not a candidate.
        TypeError
            A size or tile that is not an integer.
        OverflowError
            Sizes too large to compute exactly.
        """
        super().update(
            stencil=stencil,
            gpu=gpu,
            space_size=space_size,
            time_size=time_size,
            tS1=tS1,
            tT=tT,
        )

    def _apply(  # type: ignore[override]
        self,
        *,
        stencil: str | None = None,
        gpu: str | None = None,
        space_size: int | None = None,
        time_size: int | None = None,
        tS1: int | None = None,
        tT: int | None = None,
    ) -> None:
        new_stencil = stencil_preset(stencil if stencil is not None else self.stencil).key
        new_gpu = gpu_preset(gpu if gpu is not None else self.gpu).key
        d = stencil_preset(new_stencil).n_space_dims
        same_dims = bool(self.stencil) and stencil_preset(self.stencil).n_space_dims == d
        default_s, default_t = _DEFAULT_SIZES[d]
        s = _positive_int(space_size, "space_size") if space_size is not None else None
        t = _positive_int(time_size, "time_size") if time_size is not None else None
        s = s if s is not None else (self.space_size if same_dims else default_s)
        t = t if t is not None else (self.time_size if same_dims else default_t)
        space = cm_time.default_search_space(d)
        if tS1 is not None:
            tS1 = _positive_int(tS1, "tS1")
            if d >= 2 and tS1 not in space.space[0]:
                raise ValueError(f"tS1: {tS1} is not a candidate of the search space")
        else:
            tS1 = self.tS1 if same_dims else min(_DEFAULT_TS1, max(space.space[0]))
        if tT is not None:
            tT = _positive_int(tT, "tT")
            if tT not in space.time:
                raise ValueError(f"tT: {tT} is not a candidate of the search space")
        sizes = (s,) * d + (t,)
        best = cm_time.best_tiles(new_stencil, new_gpu, sizes, space=space)
        tT = tT if tT is not None else (self.tT if same_dims else best.tiles[-1])
        # Everything is valid: commit, then compute the slice.
        self.stencil, self.gpu, self.space_size, self.time_size = new_stencil, new_gpu, s, t
        self.tS1, self.tT, self.best = tS1, tT, best
        self._compute()

    def _compute(self) -> None:
        space = cm_time.default_search_space(self.n_space_dims)
        self.tT_values: npt.NDArray[np.int64] = np.asarray(space.time, dtype=np.int64)
        mapped = space.space[1] if self.n_space_dims >= 2 else space.space[0]
        self.map_values: npt.NDArray[np.int64] = np.asarray(mapped, dtype=np.int64)
        grid = np.asarray(
            [self._tiles(int(m), int(t)) for t in self.tT_values for m in self.map_values],
            dtype=np.int64,
        )
        result = cm_time.talg_batch(self.stencil, self.gpu, self.sizes, grid)
        self.talg_s: npt.NDArray[np.float64] = result.talg_s.reshape(
            len(self.tT_values), len(self.map_values)
        )

    # -- views -----------------------------------------------------------------------

    def _tile_names(self) -> list[str]:
        return [*["tS1", "tS2", "tS3"][: self.n_space_dims], "tT"]

    def _map_name(self) -> str:
        return "tS2" if self.n_space_dims >= 2 else "tS1"

    def summary_html(self) -> str:
        """Return the best tiles, the best tiles of the slice and the search size, as HTML.

        Returns
        -------
        str
            An HTML fragment.
        """
        b = self.best
        names = ", ".join(self._tile_names())
        lines = [
            f"<b>Best tiles</b> ({names}) = <code>{b.tiles}</code>: "
            f"T_alg = {b.talg_s:.4g} s "
            f"(exhaustive search of {b.n_points:,} points, {b.n_feasible:,} feasible, "
            f"{len(b.near_optimal_talg_s):,} within {b.within:.0%} of the minimum).",
        ]
        here = self.slice_tiles
        fixed = f"tS1 = {self.tS1}" if self.n_space_dims >= 2 else "all tiles"
        if self.n_space_dims == 3:
            fixed += f", tS3 = {b.tiles[2]}"
        if here:
            t = float(np.nanmin(self.talg_s))
            lines.append(
                f"Slice {escape(fixed)}: best <code>{here}</code>, T_alg = {t:.4g} s "
                f"({100 * (t / b.talg_s - 1):+.1f}% over the best)."
            )
        else:
            lines.append(f"Slice {escape(fixed)}: no feasible tile.")
        return "<br>".join(lines)

    def figure(self) -> Figure:
        """Return the slice as a heat map beside the T_alg cross-section at tT.

        Returns
        -------
        matplotlib.figure.Figure
            Left: T_alg over the slice (blank: infeasible), the slice minimum (red) and
            the overall best tile when it lies on the slice (white star); dashed: the tT
            of the cross-section. Right: T_alg against the mapped tile size at that tT.
        """
        st, g = stencil_preset(self.stencil), gpu_preset(self.gpu)
        fig = Figure(figsize=(10.5, 4.0), layout="constrained")
        ax_map, ax_cut = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.3, 1.0]})
        name = self._map_name()
        fixed = f"tS1 = {self.tS1}" if self.n_space_dims >= 2 else "all tiles"
        if self.n_space_dims == 3:
            fixed += f", tS3 = {self.best.tiles[2]}"
        if np.all(np.isnan(self.talg_s)):
            ax_map.text(0.5, 0.5, "no feasible tile on this slice", ha="center")
        else:
            mesh = ax_map.pcolormesh(
                self.map_values, self.tT_values, self.talg_s, shading="nearest", cmap="viridis"
            )
            fig.colorbar(mesh, ax=ax_map, label="T_alg [s]")
            here = self.slice_tiles
            x = here[1] if self.n_space_dims >= 2 else here[0]  # the mapped tile size
            ax_map.plot([x], [here[-1]], "o", color="red", label=f"slice min {here}")
            if here == self.best.tiles:
                ax_map.plot([x], [here[-1]], "*", ms=14, color="white", mec="k", label="best")
            ax_map.legend(loc="upper right", fontsize="small")
        ax_map.axhline(self.tT, color="white", ls="--", lw=1)
        ax_map.set_xlabel(name)
        ax_map.set_ylabel("tT")
        ax_map.set_title(f"T_alg, {fixed}", fontsize=10)
        row = int(np.searchsorted(self.tT_values, self.tT))
        cut = self.talg_s[row]
        ax_cut.plot(self.map_values, cut, "-o", ms=3)
        if not np.all(np.isnan(cut)):
            j = int(np.nanargmin(cut))
            ax_cut.plot([self.map_values[j]], [cut[j]], "o", color="red")
        ax_cut.axhline(self.best.talg_s, color="0.5", ls=":", lw=1, label="best T_alg")
        ax_cut.set_xlabel(name)
        ax_cut.set_ylabel("T_alg [s]")
        ax_cut.set_title(f"cross-section at tT = {self.tT}", fontsize=10)
        ax_cut.legend(fontsize="small")
        ax_cut.grid(alpha=0.3)
        fig.suptitle(f"{st.name} on {g.name}, sizes {self.sizes}", fontsize=11)
        return fig

    def _make_controls(self, ipw: Any) -> list[list[Any]]:
        style = {"description_width": "initial"}
        self.controls = {
            "gpu": ipw.Dropdown(options=gpus(), description="GPU", style=style),
            "stencil": ipw.Dropdown(options=stencils(), description="stencil", style=style),
            "space_size": ipw.SelectionSlider(
                options=[1], description="S (each space extent)", style=style
            ),
            "time_size": ipw.SelectionSlider(options=[1], description="T", style=style),
            "tS1": ipw.SelectionSlider(options=[1], description="tS1 (slice)", style=style),
            "tT": ipw.SelectionSlider(options=[2], description="tT (cross-section)", style=style),
        }
        for control in self.controls.values():
            control.continuous_update = False
        c = self.controls
        return [[c["gpu"], c["stencil"]], [c["space_size"], c["time_size"]], [c["tS1"], c["tT"]]]

    def _sync_controls(self) -> None:
        d = self.n_space_dims
        space = cm_time.default_search_space(d)
        c = self.controls

        def show(name: str, options: Sequence[int], value: int) -> None:
            opts = tuple(sorted(set(options) | {value}))
            if tuple(c[name].options) != opts:
                c[name].options = opts
            c[name].value = value

        c["gpu"].value = self.gpu
        c["stencil"].value = self.stencil
        show("space_size", SPACE_SIZES[d], self.space_size)
        show("time_size", TIME_SIZES[d], self.time_size)
        show("tS1", space.space[0], self.tS1 if d >= 2 else space.space[0][0])
        c["tS1"].disabled = d == 1
        show("tT", space.time, self.tT)


@register("time", "T_alg landscape of a stencil on a GPU and its best tiles (000 App. A)")
def time_landscape(
    stencil: str = "heat2d",
    gpu: str = "gtx980",
    *,
    space_size: int | None = None,
    time_size: int | None = None,
    tS1: int | None = None,
    tT: int | None = None,
) -> TimeLandscape:
    """Open the T_alg landscape explorer.

    Parameters
    ----------
    stencil, gpu : str
        Preset names.
    space_size, time_size : int, optional
        Every space extent and the time extent (default 8192 and 8192 for 2D stencils,
        512 and 512 for 3D).
    tS1 : int, optional
        tS1 of the slice (default 8, as in Fig. A.5).
    tT : int, optional
        tT of the cross-section (default: the best tile's).

    Returns
    -------
    TimeLandscape
        Displayed as a widget in Jupyter, as a static figure elsewhere.

    Examples
    --------
    >>> import costmetrics as cm
    >>> ex = cm.explore.time_landscape("heat2d", "gtx980", space_size=4096, time_size=1024)
    >>> ex.best.tiles == cm.time.best_tiles("heat2d", "gtx980", (4096, 4096, 1024)).tiles
    True
    """
    return TimeLandscape(stencil, gpu, space_size, time_size, tS1, tT)
