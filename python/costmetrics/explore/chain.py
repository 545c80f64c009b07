"""Explorer of matrix chains: the op-count tree, its fused nodes and the Pareto front (000 App. D).

``costmetrics.explore.matrix_chain([936, 1008, 552, 368, 1016, 616, 544])`` shows the
minimum op-count tree with the fusion decisions of the hyper-node recurrence (D.19-D.26)
and the joint (op count, off-chip words) Pareto front of :func:`costmetrics.chain.pareto_front`;
the dims are editable as text, and the on-chip capacity and the reading of beta can be
picked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import Any

from matplotlib.figure import Figure

from costmetrics import _convert, _core
from costmetrics import chain as cm_chain
from costmetrics.experiments.chain import CAPACITIES, load_seed_d7, plot_tree
from costmetrics.explore._base import Explorer, register

__all__ = ["MAX_MATRICES", "MatrixChain", "matrix_chain"]

#: Longest chain the explorer accepts (the Pareto front is intended for n <= 20).
MAX_MATRICES = 20


def _parse_dims(dims: str | Sequence[int]) -> tuple[int, ...]:
    if isinstance(dims, str):
        words = [w for w in re.split(r"[\s,;]+", dims.strip().strip("()[]")) if w]
        out = []
        for w in words:
            try:
                out.append(int(w))
            except ValueError:
                raise ValueError(f"dims: {w!r} is not an integer") from None
        values: Sequence[object] = out
    elif isinstance(dims, (bytes, bytearray)):
        # A Sequence of small ints: b"abc" was read as the sizes (97, 98, 99).
        raise TypeError(f"dims: expected a sequence of int or a string, got {type(dims).__name__}")
    else:
        values = dims
    # NumPy integers and 1-D integer arrays too, as everywhere else.
    result = _convert.int_sequence(values, "dims", max_len=_core.chain.MAX_ORDER_MATRICES + 1)
    if len(result) < 3:
        raise ValueError(f"dims: need at least 3 sizes (two matrices), got {len(result)}")
    if len(result) - 1 > MAX_MATRICES:
        raise ValueError(
            f"dims: at most {MAX_MATRICES} matrices ({MAX_MATRICES + 1} sizes), "
            f"got {len(result) - 1}"
        )
    return tuple(result)


class MatrixChain(Explorer):
    """The minimum op-count tree of a chain, its fused nodes and the joint Pareto front.

    Build it with :func:`matrix_chain`.

    Attributes
    ----------
    dims : tuple of int
        ``(P0, ..., Pn)``.
    M : int
        On-chip capacity in words.
    beta : str
        Reading of beta for right fusion (``"printed"`` or ``"derived"``).
    result : costmetrics.chain.DataMovement
        OP-DM and hyper-node totals over the minimum op-count tree.
    front : list of costmetrics.chain.ParetoPoint
        The joint Pareto front of (op count, off-chip words).
    """

    title = "Matrix chain: op-count tree, fused nodes, joint Pareto front (000 App. D)"

    def __init__(
        self, dims: str | Sequence[int], M: int = CAPACITIES[0], beta: cm_chain.Beta = "printed"
    ) -> None:
        super().__init__()
        self.dims: tuple[int, ...] = ()
        self.M = 0
        self.beta: cm_chain.Beta = "printed"
        self._apply(dims=dims, M=M, beta=beta)
        self._start()

    def update(  # type: ignore[override]
        self,
        *,
        dims: str | Sequence[int] | None = None,
        M: int | None = None,
        beta: cm_chain.Beta | None = None,
    ) -> None:
        """Change the chain, the capacity or the reading of beta, and recompute.

        Parameters
        ----------
        dims : str or sequence of int, optional
            ``(P0, ..., Pn)``, or the same as text (``"936, 1008, 552, 368"``); from 2 to
            :data:`MAX_MATRICES` matrices, every size above ``sqrt(M)``.
        M : int, optional
            On-chip capacity in words.
        beta : {"printed", "derived"}, optional
            Reading of beta.

        Raises
        ------
        ValueError
            Sizes that are not integers, too few or too many, or not above ``sqrt(M)``.
        TypeError
            Values of the wrong type.
        OverflowError
            Sizes whose op counts overflow.
        """
        super().update(dims=dims, M=M, beta=beta)

    def _apply(  # type: ignore[override]
        self,
        *,
        dims: str | Sequence[int] | None = None,
        M: int | None = None,
        beta: cm_chain.Beta | None = None,
    ) -> None:
        new_dims = _parse_dims(dims) if dims is not None else self.dims
        new_m = M if M is not None else self.M
        new_beta = beta if beta is not None else self.beta
        result = cm_chain.data_movement(new_dims, new_m, beta=new_beta)
        front = cm_chain.pareto_front(new_dims, new_m, beta=new_beta)
        self.dims, self.M, self.beta = new_dims, int(new_m), new_beta
        self.result, self.front = result, front

    def summary_html(self) -> str:
        """Return the plans, totals, per-node decisions and the Pareto front, as HTML.

        Returns
        -------
        str
            An HTML fragment.
        """
        r = self.result
        head = (
            f"<b>Minimum op-count tree</b> <code>{escape(r.parenthesization)}</code>, "
            f"{r.op_count:,} ops. <b>Hyper-nodes</b> "
            f"<code>{escape(r.hypernode_parenthesization)}</code>: "
            f"F(1,n) + P0 Pn = {r.fused_total:,.0f} words vs S(1,n) = "
            f"{r.single_mm_total:,.0f} without fusion ({r.reduction_percent:.1f}% less)."
        )
        cell = 'style="padding:0 8px;text-align:right;white-space:nowrap"'
        node_rows = "".join(
            f"<tr><td {cell}>{nd.label}</td><td {cell}>&lt;{nd.i},{nd.j}&gt;</td>"
            f"<td {cell}>{'(absorbed)' if nd.absorbed else nd.choice}</td>"
            f"<td {cell}>{nd.tile}</td><td {cell}>{nd.F:,.0f}</td></tr>"
            for nd in r.nodes
        )
        nodes = (
            f"<table><tr><th {cell}>node</th><th {cell}>&lt;i,j&gt;</th>"
            f"<th {cell}>fusion</th><th {cell}>tile (x, y)</th><th {cell}>F [words]</th></tr>"
            f"{node_rows}</table>"
        )
        front_rows = "".join(
            f"<tr><td {cell}>{p.ops:,}</td><td {cell}>{p.words:,.0f}</td>"
            f"<td {cell}><code>{escape(p.plan)}</code></td></tr>"
            for p in self.front
        )
        front = (
            f"<table><tr><th {cell}>ops</th><th {cell}>words</th><th {cell}>plan</th></tr>"
            f"{front_rows}</table>"
        )
        return (
            f"{head}<br><b>Nodes</b> (bottom-up, Fig. D.11){nodes}"
            f"<b>Joint Pareto front</b> (M = {self.M:,} words){front}"
        )

    def figure(self) -> Figure:
        """Return the tree with its fused edges beside the joint Pareto front.

        Returns
        -------
        matplotlib.figure.Figure
            Left: the minimum op-count tree (:func:`costmetrics.experiments.chain.plot_tree`:
            fused edges red, absorbed nodes hollow). Right: the Pareto front of (op count,
            off-chip words) over all trees and fusions, and the minimum op-count tree with
            (S) and without (F + P0 Pn) fusion.
        """
        n = len(self.dims) - 1
        fig = Figure(figsize=(max(10.0, 1.0 * n + 6.5), 4.2), layout="constrained")
        ax_tree, ax_front = fig.subplots(1, 2, gridspec_kw={"width_ratios": [max(1.2, n / 5), 1]})
        plot_tree(self.result, title=" ", ax=ax_tree)
        ax_tree.set_title(self.result.hypernode_parenthesization, fontsize=9)
        r = self.result
        ops = [p.ops for p in self.front]
        words = [p.words for p in self.front]
        ax_front.plot(ops, words, "-o", ms=4, drawstyle="steps-post", label="joint Pareto front")
        ax_front.plot([r.op_count], [r.single_mm_total], "x", color="0.3", label="min-op tree, S")
        ax_front.plot(
            [r.op_count], [r.fused_total], "s", mfc="none", color="tab:red", label="min-op tree, F"
        )
        ax_front.set_xlabel("op count")
        ax_front.set_ylabel("off-chip words")
        ax_front.set_title(f"M = {self.M:,} words, beta {self.beta}", fontsize=9)
        ax_front.legend(fontsize="small")
        ax_front.grid(alpha=0.3)
        fig.suptitle(f"Matrix chain {list(self.dims)}", fontsize=10)
        return fig

    def _make_controls(self, ipw: Any) -> list[list[Any]]:
        capacities = sorted({*CAPACITIES, self.M})
        self.controls = {
            "dims": ipw.Text(
                description="dims P0..Pn",
                continuous_update=False,
                style={"description_width": "initial"},
                layout=ipw.Layout(width="60%"),
            ),
            "M": ipw.Dropdown(options=[(f"{m:,} words", m) for m in capacities], description="M"),
            "beta": ipw.Dropdown(options=["printed", "derived"], description="beta"),
        }
        c = self.controls
        return [[c["dims"]], [c["M"], c["beta"]]]

    def _sync_controls(self) -> None:
        self.controls["dims"].value = ", ".join(str(p) for p in self.dims)
        self.controls["M"].value = self.M
        self.controls["beta"].value = self.beta


@register("chain", "Matrix chain: op-count tree, fused nodes and joint Pareto front (000 App. D)")
def matrix_chain(
    dims: str | Sequence[int] | None = None,
    M: int = CAPACITIES[0],
    beta: cm_chain.Beta = "printed",
) -> MatrixChain:
    """Open the matrix-chain explorer.

    Parameters
    ----------
    dims : str or sequence of int, optional
        ``(P0, ..., Pn)`` (default: the App. D.7 example chain).
    M : int
        On-chip capacity in words (default 65,536, the seed's "64KB").
    beta : {"printed", "derived"}
        Reading of beta for right fusion.

    Returns
    -------
    MatrixChain
        Displayed as a widget in Jupyter, as a static figure elsewhere.

    Examples
    --------
    >>> import costmetrics as cm
    >>> ex = cm.explore.matrix_chain([936, 1008, 552, 368, 1016, 616, 544])
    >>> ex.result.hypernode_parenthesization
    '({A1(A2A3)}{(A4A5)A6})'
    """
    if dims is None:
        dims = list(load_seed_d7()["dims"])
    return MatrixChain(dims, M, beta)
