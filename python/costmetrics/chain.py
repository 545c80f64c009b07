"""Matrix chain products: op count and off-chip data movement (thesis 000, Appendix D).

Every model lives in the C++ core (``cpp/src/chain.cpp``); this module checks and
converts arguments and wraps results in typed, documented records.

Conventions
-----------
A chain ``A1 ... An`` has ``dims = (P0, ..., Pn)``; ``Ai`` is ``P[i-1] x P[i]`` and node
``<i,j>`` is the product ``Ai ... Aj``. Op counts are scalar multiplications (exact Python
ints). Data movement is in words (matrix elements) moved between off-chip and on-chip
memory; ``M`` is the on-chip capacity in words. ``beta="printed"`` uses the right-fusion
ratio as the seed prints it (beta = P0/P1, which reproduces every number it reports);
``beta="derived"`` uses beta = P0/P2, the minimizer of the seed's own count D.11 (see
``docs/matrix-chain.md``).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Union

from costmetrics import _core

__all__ = [
    "DEFAULT_DISTRIBUTION",
    "Beta",
    "ChainDistribution",
    "ChainNode",
    "DataMovement",
    "FusedTwoMM",
    "JointRow",
    "JointTable",
    "OptimalOrder",
    "ParetoPoint",
    "RandomChainTable",
    "ReductionRow",
    "SingleMM",
    "SingleMMCase",
    "TreeNode",
    "TwoMM",
    "data_movement",
    "joint_experiment",
    "optimal_order",
    "pareto_front",
    "random_chain",
    "random_chain_experiment",
    "single_mm",
    "two_mm",
]

Beta = Literal["printed", "derived"]
_core_chain: Any = _core.chain  # the compiled submodule (typed loosely: it has no stubs)
_INT64_MAX = 2**63 - 1

#: A nested-tuple parenthesization: a leaf is the matrix index ``i`` of ``Ai``.
Tree = Union[int, tuple["Tree", "Tree"]]


# --------------------------------------------------------------------------------------
# Argument handling
# --------------------------------------------------------------------------------------


def _as_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    v = int(value)
    if v > _INT64_MAX:
        raise OverflowError(f"{name} = {v} exceeds the 64-bit integer range")
    if v <= 0:
        raise ValueError(f"{name} must be positive, got {v}")
    return v


def _dims(dims: Sequence[int]) -> list[int]:
    if isinstance(dims, (str, bytes)) or not isinstance(dims, Sequence):
        try:
            dims = list(dims)  # e.g. a NumPy array
        except TypeError:
            raise TypeError(
                f"dims must be a sequence of integers, got {type(dims).__name__}"
            ) from None
    if len(dims) < 2:
        raise ValueError(f"dims: need at least two sizes (one matrix), got {len(dims)}")
    return [_as_int(d, f"dims[{t}]") for t, d in enumerate(dims)]


def _beta(beta: str) -> str:
    if beta not in ("printed", "derived"):
        raise ValueError(f"beta must be 'printed' or 'derived', got {beta!r}")
    return beta


def _none_if_nan(x: float) -> float | None:
    return None if x != x else float(x)


# --------------------------------------------------------------------------------------
# OP-opcount (Algorithm 10)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TreeNode:
    """An internal node ``<i,j>`` of a parenthesization tree, split after ``Ak``.

    Attributes
    ----------
    label : str
        ``"T1"``, ``"T2"``, ...: nodes numbered bottom-up by height, then left to right
        (the numbering of Fig. D.10).
    i, j, k : int
        The node computes ``Ai ... Aj`` as ``(Ai ... Ak)(Ak+1 ... Aj)``.
    height : int
        1 for a node whose two children are input matrices.
    left, right, parent : int or None
        Indices of the child and parent nodes in the same list (None for a leaf child, or
        for the root's parent).
    """

    label: str
    i: int
    j: int
    k: int
    height: int
    left: int | None
    right: int | None
    parent: int | None


def _opt_index(v: int) -> int | None:
    return None if v < 0 else int(v)


@dataclass(frozen=True)
class OptimalOrder:
    """The minimum op-count parenthesization of a chain (Algorithm 10, OP-opcount).

    Attributes
    ----------
    dims : tuple of int
        ``(P0, ..., Pn)``.
    cost : int
        Minimum number of scalar multiplications, ``opcount[1][n]``.
    parenthesization : str
        E.g. ``"((A1(A2A3))((A4A5)A6))"``.
    """

    dims: tuple[int, ...]
    cost: int
    parenthesization: str
    _core_order: Any = field(repr=False, compare=False)

    @property
    def n(self) -> int:
        """Number of matrices."""
        return len(self.dims) - 1

    def split(self, i: int, j: int) -> int:
        """Return the optimal split ``k`` of node ``<i,j>`` (``split[i][j]`` of Algorithm 10).

        Parameters
        ----------
        i, j : int
            1-based matrix indices with ``1 <= i < j <= n``.

        Returns
        -------
        int
            ``k`` with ``i <= k < j``.
        """
        if not (1 <= i < j <= self.n):
            raise ValueError(f"need 1 <= i < j <= {self.n}, got i={i}, j={j}")
        return int(self._core_order.split_at(i, j))

    def nodes(self) -> list[TreeNode]:
        """Return the internal nodes of the tree, bottom-up (the root is last)."""
        return [
            TreeNode(
                label=f"T{t + 1}",
                i=nd.i,
                j=nd.j,
                k=nd.k,
                height=nd.height,
                left=_opt_index(nd.left),
                right=_opt_index(nd.right),
                parent=_opt_index(nd.parent),
            )
            for t, nd in enumerate(_core_chain.tree_nodes(self._core_order))
        ]

    def tree(self) -> Tree:
        """Return the tree as nested pairs, e.g. ``((1, (2, 3)), ((4, 5), 6))``."""
        if self.n == 1:
            return 1
        built: list[Tree] = []
        for nd in self.nodes():  # bottom-up: children are built before their parent
            left: Tree = built[nd.left] if nd.left is not None else nd.i
            right: Tree = built[nd.right] if nd.right is not None else nd.k + 1
            built.append((left, right))
        return built[-1]


def optimal_order(dims: Sequence[int], *, threads: int = 0) -> OptimalOrder:
    """Minimum op-count parenthesization of a matrix chain (000 App. D.4, Algorithm 10).

    Parameters
    ----------
    dims : sequence of int
        ``(P0, ..., Pn)``, all positive; at least two entries.
    threads : int, optional
        Worker threads for long chains (0: all cores). Short chains run on one thread.

    Returns
    -------
    OptimalOrder
        Minimum op count (exact) and the parenthesization. Ties between splits go to the
        smallest ``k``, as in Algorithm 10 and NumPy's ``multi_dot``.

    Raises
    ------
    ValueError
        Fewer than two dims, or a dim that is not positive.
    OverflowError
        A dim beyond 64 bits, or a minimum op count that does not fit in 64 bits.
    """
    p = _dims(dims)
    order = _core_chain.optimal_order(p, int(threads))
    return OptimalOrder(
        dims=tuple(p),
        cost=int(order.min_ops),
        parenthesization=str(order.parenthesization),
        _core_order=order,
    )


# --------------------------------------------------------------------------------------
# Single and two fused multiplies (D.2-D.14)
# --------------------------------------------------------------------------------------

_TILE_DIMS = {"R": ("P0", "P2"), "A1": ("P0", "P1"), "A2": ("P1", "P2")}


@dataclass(frozen=True)
class SingleMMCase:
    """One choice of the matrix kept on chip for ``R = A1 A2`` (Table D.2).

    Attributes
    ----------
    resident : str
        ``"R"``, ``"A1"`` or ``"A2"``.
    tile : tuple of float
        Edges of the resident tile: ``R``: (x along P0, y along P2); ``A1``: (x along P0,
        z along P1); ``A2``: (z along P1, y along P2).
    tile_dims : tuple of str
        The problem dimension each tile edge runs along.
    words : float or None
        Off-chip words at the closed-form optimum (D.3, D.5, D.6); None when not valid.
    valid : bool
        The closed form holds: the tile fits inside the matrix it tiles.
    reason : str
        Why it is not valid (empty when valid).
    """

    resident: str
    tile: tuple[float, float]
    tile_dims: tuple[str, str]
    words: float | None
    valid: bool
    reason: str


@dataclass(frozen=True)
class SingleMM:
    """Off-chip data movement of one multiply ``R = A1 A2`` (000 App. D.2, Table D.2).

    Attributes
    ----------
    cases : dict of str to SingleMMCase
        Keyed ``"R"``, ``"A1"``, ``"A2"``.
    best : str or None
        The valid case with the fewest words; None when no case is valid.
    """

    cases: dict[str, SingleMMCase]
    best: str | None


def single_mm(P0: int, P1: int, P2: int, M: int) -> SingleMM:
    """Closed-form transfers and tiles of ``R = A1 A2`` (000 Eqs. D.2-D.6, Table D.2).

    Parameters
    ----------
    P0, P1, P2 : int
        ``A1`` is ``P0 x P1``, ``A2`` is ``P1 x P2``.
    M : int
        On-chip capacity in words.

    Returns
    -------
    SingleMM
        One record per choice of resident matrix. Outside the closed forms' range (a tile
        larger than its matrix) a case is flagged ``valid=False`` with ``words=None``,
        never given a negative transfer count.
    """
    args = [_as_int(v, name) for v, name in ((P0, "P0"), (P1, "P1"), (P2, "P2"), (M, "M"))]
    res = _core_chain.single_mm(*args)
    cases: dict[str, SingleMMCase] = {}
    for c in res.cases:
        cases[c.resident] = SingleMMCase(
            resident=c.resident,
            tile=(float(c.tile1), float(c.tile2)),
            tile_dims=_TILE_DIMS[c.resident],
            words=_none_if_nan(c.words),
            valid=bool(c.valid),
            reason=str(c.reason),
        )
    best = None if res.best < 0 else ("R", "A1", "A2")[res.best]
    return SingleMM(cases=cases, best=best)


@dataclass(frozen=True)
class FusedTwoMM:
    """One fused two-multiply schedule (Table D.3).

    Attributes
    ----------
    ratio : float
        alpha = P3/P1 (left) or beta (right: P0/P1 printed, P0/P2 derived).
    ratio_prime : float
        alpha' = (1 + 2 alpha)/(1 + alpha), or beta' likewise.
    tile : tuple of float
        (x, y) tile of the on-chip intermediate ``T``.
    words : float or None
        Off-chip words, D.10 or D.14; None when not valid.
    valid : bool
        The tile fits inside ``T``.
    reason : str
        Why it is not valid (empty when valid).
    """

    ratio: float
    ratio_prime: float
    tile: tuple[float, float]
    words: float | None
    valid: bool
    reason: str


@dataclass(frozen=True)
class TwoMM:
    """Fused and unfused data movement of ``R = A1 A2 A3`` (000 App. D.3, Table D.3).

    Attributes
    ----------
    left : FusedTwoMM
        ``(A1A2)A3`` with ``T = A1A2`` kept on chip (D.10).
    right : FusedTwoMM
        ``A1(A2A3)`` with ``T = A2A3`` kept on chip (D.14).
    unfused_left_words, unfused_right_words : float or None
        The same trees without fusion (D.16, D.17).
    """

    left: FusedTwoMM
    right: FusedTwoMM
    unfused_left_words: float | None
    unfused_right_words: float | None


def _fused(f: Any) -> FusedTwoMM:
    return FusedTwoMM(
        ratio=float(f.ratio),
        ratio_prime=float(f.ratio_prime),
        tile=(float(f.tile_x), float(f.tile_y)),
        words=_none_if_nan(f.words),
        valid=bool(f.valid),
        reason=str(f.reason),
    )


def two_mm(P0: int, P1: int, P2: int, P3: int, M: int, *, beta: Beta = "printed") -> TwoMM:
    """Closed-form transfers and tiles of two fused multiplies (000 Eqs. D.7-D.17).

    Parameters
    ----------
    P0, P1, P2, P3 : int
        ``A1`` is ``P0 x P1``, ``A2`` is ``P1 x P2``, ``A3`` is ``P2 x P3``.
    M : int
        On-chip capacity in words.
    beta : {"printed", "derived"}
        Reading of beta for the right fusion (module docstring).

    Returns
    -------
    TwoMM
        Left- and right-fused counts and tiles, and the unfused counts for comparison.
    """
    args = [
        _as_int(v, name) for v, name in ((P0, "P0"), (P1, "P1"), (P2, "P2"), (P3, "P3"), (M, "M"))
    ]
    res = _core_chain.two_mm(*args, _beta(beta))
    return TwoMM(
        left=_fused(res.left),
        right=_fused(res.right),
        unfused_left_words=_none_if_nan(res.unfused_left_words),
        unfused_right_words=_none_if_nan(res.unfused_right_words),
    )


# --------------------------------------------------------------------------------------
# OP-DM (D.18) and hyper-node parenthesization (D.19-D.26)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChainNode:
    """Data-movement costs at one internal node of the minimum op-count tree (Fig. D.11).

    All costs are in words. ``hl``/``Fl`` (``hr``/``Fr``) are None when the left (right)
    child is an input matrix, which cannot be fused.

    Attributes
    ----------
    label : str
        ``"T1"``, ... numbered as in Fig. D.10.
    i, j, k : int
        The node ``<i,j>`` and its split.
    S : float
        OP-DM total of the subtree, Eq. D.18.
    hp, hl, hr : float or None
        Local costs, Eqs. D.20-D.22.
    Fp, Fl, Fr : float or None
        Subtree totals, Eqs. D.24-D.26.
    F : float
        Eq. D.23, the minimum of the available totals.
    choice : str
        ``"none"``, ``"left"`` or ``"right"``: the argmin of D.23 at this node.
    tile : tuple of int
        Tile (x, y) of the node's output for ``choice``, rounded to integers.
    tile_exact : tuple of float
        The same tile before rounding.
    tile_fits : bool
        Whether the tile fits inside the matrix it tiles.
    absorbed : bool
        True when the parent's applied fusion keeps this node on chip (it is part of the
        parent's hyper-node and its own ``choice`` is not applied).
    """

    label: str
    i: int
    j: int
    k: int
    S: float
    hp: float
    hl: float | None
    hr: float | None
    Fp: float
    Fl: float | None
    Fr: float | None
    F: float
    choice: str
    tile: tuple[int, int]
    tile_exact: tuple[float, float]
    tile_fits: bool
    absorbed: bool

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a JSON-friendly dict."""
        return asdict(self)


@dataclass(frozen=True)
class DataMovement:
    """OP-DM and hyper-node totals for the minimum op-count tree (000 App. D.5-D.7).

    Attributes
    ----------
    dims : tuple of int
        ``(P0, ..., Pn)``.
    M : int
        On-chip capacity in words.
    beta : str
        Reading of beta used for right fusion.
    op_count : int
        Minimum op count of the tree.
    parenthesization : str
        The minimum op-count tree.
    single_mm_total : float
        ``S(1,n)``, Eq. D.18 (includes the final write of the result).
    fused_internal : float
        ``F(1,n)``, Eq. D.23 (excludes the final write).
    output_words : float
        ``P0 * Pn``, the final write.
    fused_total : float
        ``F(1,n) + P0 * Pn``.
    reduction_percent : float
        ``100 (S - fused_total) / S``.
    hypernode_parenthesization : str
        The tree with each fused pair in braces, e.g. ``"({A1(A2A3)}{(A4A5)A6})"``.
    nodes : tuple of ChainNode
        One record per internal node, bottom-up (root last).
    """

    dims: tuple[int, ...]
    M: int
    beta: str
    op_count: int
    parenthesization: str
    single_mm_total: float
    fused_internal: float
    output_words: float
    fused_total: float
    reduction_percent: float
    hypernode_parenthesization: str
    nodes: tuple[ChainNode, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a JSON-friendly dict."""
        return asdict(self)


def data_movement(dims: Sequence[int], M: int, *, beta: Beta = "printed") -> DataMovement:
    """Off-chip data movement over the minimum op-count tree (000 Eqs. D.18-D.26).

    Parameters
    ----------
    dims : sequence of int
        ``(P0, ..., Pn)``; every size must exceed ``sqrt(M)`` (the closed forms assume
        matrices larger than the on-chip memory).
    M : int
        On-chip capacity in words.
    beta : {"printed", "derived"}
        Reading of beta for right fusion (module docstring).

    Returns
    -------
    DataMovement
        ``S(1,n)``, ``F(1,n) + P0 Pn``, and the per-node table of Fig. D.11.

    Raises
    ------
    ValueError
        Bad dims, non-positive ``M``, or a size not above ``sqrt(M)``.
    OverflowError
        Sizes whose products overflow 64-bit op counts.
    """
    p = _dims(dims)
    m = _as_int(M, "M")
    res = _core_chain.data_movement(p, m, _beta(beta), 1)
    nodes = tuple(
        ChainNode(
            label=f"T{t + 1}",
            i=nd.i,
            j=nd.j,
            k=nd.k,
            S=nd.single_mm,
            hp=nd.hp,
            hl=nd.hl,
            hr=nd.hr,
            Fp=nd.Fp,
            Fl=nd.Fl,
            Fr=nd.Fr,
            F=nd.F,
            choice=nd.choice,
            tile=(round(nd.tile_x), round(nd.tile_y)),
            tile_exact=(nd.tile_x, nd.tile_y),
            tile_fits=bool(nd.tile_fits),
            absorbed=bool(nd.absorbed),
        )
        for t, nd in enumerate(res.nodes)
    )
    return DataMovement(
        dims=tuple(p),
        M=m,
        beta=beta,
        op_count=int(res.order.min_ops),
        parenthesization=str(res.order.parenthesization),
        single_mm_total=res.single_mm_total,
        fused_internal=res.fused_internal,
        output_words=res.output_words,
        fused_total=res.fused_total,
        reduction_percent=res.reduction_percent,
        hypernode_parenthesization=res.hypernode_parenthesization,
        nodes=nodes,
    )


# --------------------------------------------------------------------------------------
# Joint Pareto front (beyond the seed)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParetoPoint:
    """One point of the (op count, off-chip words) Pareto front.

    Attributes
    ----------
    ops : int
        Scalar multiplications of the tree.
    words : float
        Off-chip words, including the final write ``P0 Pn``.
    plan : str
        The tree with fused pairs in braces.
    """

    ops: int
    words: float
    plan: str


def pareto_front(dims: Sequence[int], M: int, *, beta: Beta = "printed") -> list[ParetoPoint]:
    """Exact Pareto front over all parenthesizations and legal fusion choices.

    The seed fixes the tree to the minimum op-count one; this solves the joint problem by
    a dynamic program over intervals (``docs/matrix-chain.md``). Intended for ``n <= 20``.

    Parameters
    ----------
    dims : sequence of int
        ``(P0, ..., Pn)``; every size must exceed ``sqrt(M)``.
    M : int
        On-chip capacity in words.
    beta : {"printed", "derived"}
        Reading of beta for right fusion.

    Returns
    -------
    list of ParetoPoint
        Ops ascending, words strictly descending. The first point has the minimum op count.
    """
    p = _dims(dims)
    m = _as_int(M, "M")
    return [
        ParetoPoint(ops=int(pt.ops), words=float(pt.words), plan=str(pt.plan))
        for pt in _core_chain.pareto_front(p, m, _beta(beta))
    ]


# --------------------------------------------------------------------------------------
# Random chains (Table D.1)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChainDistribution:
    """How the dims of synthetic random chains are drawn.

    Attributes
    ----------
    kind : {"uniform", "loguniform"}
        Uniform over the multiples of ``step`` in ``[lo, hi]``, or log-uniform in
        ``[lo, hi]`` rounded to a multiple of ``step``.
    lo, hi, step : int
        Range and granularity of the dims.
    seed : int
        Chain ``index`` of length ``n`` is a pure function of ``(seed, n, index)``.
    """

    kind: Literal["uniform", "loguniform"] = "uniform"
    lo: int = 320
    hi: int = 1024
    step: int = 8
    seed: int = 2024

    def describe(self) -> str:
        """Return a one-line description, e.g. ``"uniform multiples of 8 in [320, 1024]"``."""
        what = "uniform" if self.kind == "uniform" else "log-uniform"
        return f"{what} multiples of {self.step} in [{self.lo}, {self.hi}], seed {self.seed}"


#: The default synthetic distribution: multiples of 8 in [320, 1024]. Every dim of the
#: App. D.7 example is a multiple of 8 in this range, and 320 > sqrt(96K) = 313.5.
DEFAULT_DISTRIBUTION = ChainDistribution()


def _dist_args(d: ChainDistribution) -> tuple[str, int, int, int, int]:
    if d.kind not in ("uniform", "loguniform"):
        raise ValueError(f"distribution.kind must be 'uniform' or 'loguniform', got {d.kind!r}")
    if not 0 <= d.seed < 2**64:
        raise ValueError(f"distribution.seed must be in [0, 2**64), got {d.seed}")
    return (d.kind, _as_int(d.lo, "lo"), _as_int(d.hi, "hi"), _as_int(d.step, "step"), d.seed)


def random_chain(
    n: int, index: int, distribution: ChainDistribution = DEFAULT_DISTRIBUTION
) -> list[int]:
    """Return the dims of synthetic chain ``index`` of length ``n`` (as the experiments draw).

    Parameters
    ----------
    n : int
        Number of matrices.
    index : int
        Chain number, 0-based.
    distribution : ChainDistribution
        How dims are drawn.

    Returns
    -------
    list of int
        ``n + 1`` dims.
    """
    return list(_core_chain.random_chain(int(n), int(index), *_dist_args(distribution)))


@dataclass(frozen=True)
class ReductionRow:
    """Percentage reduction of ``F(1,n) + P0 Pn`` over ``S(1,n)`` for one chain length.

    Attributes
    ----------
    n : int or None
        Chain length; None for the row over all lengths.
    avg, min, max : float
        Average, minimum and maximum reduction in percent.
    chains : int
        Number of chains.
    """

    n: int | None
    avg: float
    min: float
    max: float
    chains: int


@dataclass(frozen=True)
class RandomChainTable:
    """Table D.1 recomputed on synthetic chains.

    Attributes
    ----------
    capacities : tuple of int
        On-chip capacities in words.
    rows : dict of int to list of ReductionRow
        Per capacity, one row per chain length.
    overall : dict of int to ReductionRow
        Per capacity, the row over all chains.
    distribution : ChainDistribution
        How the synthetic dims were drawn.
    beta : str
        Reading of beta used.
    """

    capacities: tuple[int, ...]
    rows: dict[int, list[ReductionRow]]
    overall: dict[int, ReductionRow]
    distribution: ChainDistribution
    beta: str


def _spec_args(
    capacities: Sequence[int],
    lengths: tuple[int, int],
    chains_per_length: int,
    distribution: ChainDistribution,
    beta: str,
    threads: int,
) -> tuple[Any, ...]:
    caps = [_as_int(c, f"capacities[{t}]") for t, c in enumerate(capacities)]
    n_min, n_max = (int(v) for v in lengths)
    return (
        n_min,
        n_max,
        _as_int(chains_per_length, "chains_per_length"),
        caps,
        *_dist_args(distribution),
        _beta(beta),
        int(threads),
    )


def random_chain_experiment(
    capacities: Sequence[int] = (65536, 98304),
    *,
    lengths: tuple[int, int] = (2, 20),
    chains_per_length: int = 1000,
    distribution: ChainDistribution = DEFAULT_DISTRIBUTION,
    beta: Beta = "printed",
    threads: int = 0,
) -> RandomChainTable:
    """Recompute Table D.1 on synthetic random chains (000 App. D.7).

    Parameters
    ----------
    capacities : sequence of int
        On-chip capacities in words (the seed's "64KB" and "96KB": 65536 and 98304).
    lengths : tuple of int
        Smallest and largest chain length ``n`` (inclusive).
    chains_per_length : int
        Chains drawn per length (the seed: 1,000).
    distribution : ChainDistribution
        How dims are drawn (the seed does not say; this is synthetic data).
    beta : {"printed", "derived"}
        Reading of beta for right fusion.
    threads : int
        Worker threads (0: all cores).

    Returns
    -------
    RandomChainTable
        Average, minimum and maximum reduction per length and overall.
    """
    args = _spec_args(capacities, lengths, chains_per_length, distribution, beta, threads)
    res = _core_chain.random_chain_experiment(*args)
    rows: dict[int, list[ReductionRow]] = {}
    overall: dict[int, ReductionRow] = {}
    for cap, cap_rows in zip(res.capacities_words, res.rows):
        conv = [
            ReductionRow(r.n if r.n > 0 else None, r.avg, r.min, r.max, r.chains) for r in cap_rows
        ]
        rows[int(cap)] = conv[:-1]
        overall[int(cap)] = conv[-1]
    return RandomChainTable(
        capacities=tuple(int(c) for c in res.capacities_words),
        rows=rows,
        overall=overall,
        distribution=distribution,
        beta=beta,
    )


@dataclass(frozen=True)
class JointRow:
    """What the joint optimum gains over the fixed minimum op-count tree, for one length.

    Attributes
    ----------
    n : int or None
        Chain length; None for the row over all lengths.
    chains : int
        Number of chains.
    avg_traffic_gain, max_traffic_gain : float
        Percent fewer off-chip words at the joint minimum-traffic point than
        ``F(1,n) + P0 Pn`` on the fixed tree.
    avg_ops_increase, max_ops_increase : float
        Percent more scalar multiplications at that point than the minimum op count.
    avg_front_size : float
        Average number of Pareto points.
    chains_with_gain : int
        Chains where the joint optimum moves fewer words than the fixed tree.
    """

    n: int | None
    chains: int
    avg_traffic_gain: float
    max_traffic_gain: float
    avg_ops_increase: float
    max_ops_increase: float
    avg_front_size: float
    chains_with_gain: int


@dataclass(frozen=True)
class JointTable:
    """Joint Pareto front against the fixed tree on synthetic random chains.

    Attributes
    ----------
    rows : dict of int to list of JointRow
        Per capacity, one row per chain length.
    overall : dict of int to JointRow
        Per capacity, the row over all chains.
    distribution : ChainDistribution
        How the synthetic dims were drawn.
    beta : str
        Reading of beta used.
    """

    rows: dict[int, list[JointRow]]
    overall: dict[int, JointRow]
    distribution: ChainDistribution
    beta: str


def joint_experiment(
    capacities: Sequence[int] = (65536, 98304),
    *,
    lengths: tuple[int, int] = (2, 20),
    chains_per_length: int = 100,
    distribution: ChainDistribution = DEFAULT_DISTRIBUTION,
    beta: Beta = "printed",
    threads: int = 0,
) -> JointTable:
    """How much traffic the fixed minimum op-count tree leaves on the table.

    For each synthetic chain, compares the joint Pareto front (:func:`pareto_front`) with
    the hyper-node optimum on the fixed tree (:func:`data_movement`).

    Parameters
    ----------
    capacities : sequence of int
        On-chip capacities in words.
    lengths : tuple of int
        Smallest and largest chain length (inclusive).
    chains_per_length : int
        Chains per length.
    distribution : ChainDistribution
        How dims are drawn (synthetic data).
    beta : {"printed", "derived"}
        Reading of beta for right fusion.
    threads : int
        Worker threads (0: all cores).

    Returns
    -------
    JointTable
        Per-length and overall statistics per capacity.
    """
    args = _spec_args(capacities, lengths, chains_per_length, distribution, beta, threads)
    res = _core_chain.joint_experiment(*args)
    rows: dict[int, list[JointRow]] = {}
    overall: dict[int, JointRow] = {}
    for cap, cap_rows in zip(args[3], res):
        conv = [
            JointRow(
                r.n if r.n > 0 else None,
                r.chains,
                r.avg_traffic_gain,
                r.max_traffic_gain,
                r.avg_ops_increase,
                r.max_ops_increase,
                r.avg_front_size,
                r.chains_with_gain,
            )
            for r in cap_rows
        ]
        rows[cap] = conv[:-1]
        overall[cap] = conv[-1]
    return JointTable(rows=rows, overall=overall, distribution=distribution, beta=beta)
