"""Matrix chain products: op count and off-chip data movement (thesis 000, Appendix D).

Every model lives in the C++ core (``cpp/src/chain.cpp``); this module converts arguments
and returns the core's records, each declared once in ``cpp/include/costmetrics/chain.hpp``
and carried with every field (``_fields``, ``_asdict()``, ``==``, pickling).

Conventions
-----------
A chain ``A1 ... An`` has ``dims = (P0, ..., Pn)``; ``Ai`` is ``P[i-1] x P[i]`` and node
``<i,j>`` is the product ``Ai ... Aj``. Op counts are scalar multiplications (exact Python
ints). Data movement is in words (matrix elements) moved between off-chip and on-chip
memory; ``M`` is the on-chip capacity in words. ``beta="printed"`` uses the right-fusion
ratio as the seed prints it (beta = P0/P1, which reproduces every number it reports);
``beta="derived"`` uses beta = P0/P2, the minimizer of the seed's own count D.11 (see
``docs/chain.md``).

Limits: :func:`optimal_order` takes up to ``_core.chain.MAX_ORDER_MATRICES`` (2000)
matrices; :func:`pareto_front` up to ``_core.chain.MAX_PARETO_MATRICES`` (32); the minimum
op count must fit a signed 64-bit integer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Literal, Union

from costmetrics import _convert, _core
from costmetrics._record import Record, record

__all__ = [
    "DEFAULT_DISTRIBUTION",
    "Beta",
    "ChainDistribution",
    "ChainNode",
    "ChainReduction",
    "DataMovement",
    "FusedTwoMM",
    "JointComparison",
    "OptimalOrder",
    "ParetoPoint",
    "SingleMM",
    "SingleMMCase",
    "TreeNode",
    "TwoMM",
    "data_movement",
    "joint_comparisons",
    "optimal_order",
    "pareto_front",
    "random_chain",
    "random_chain_reductions",
    "single_mm",
    "two_mm",
]

Beta = Literal["printed", "derived"]
_BETAS = ("printed", "derived")
_core_chain = _core.chain

#: A nested-tuple parenthesization: a leaf is the matrix index ``i`` of ``Ai``.
Tree = Union[int, tuple["Tree", "Tree"]]

#: An internal node of the minimum op-count tree: ``label`` (T1, T2, ... bottom-up, Fig.
#: D.10), ``i, j, k``, ``height``, ``left, right, parent`` (indices in the same list, -1 for
#: a matrix or the root's parent).
TreeNode = _core_chain.TreeNode
#: One choice of the matrix kept on chip for ``R = A1 A2`` (Table D.2): ``resident``,
#: ``tile``, ``tile_dims``, ``words`` (None when not valid), ``valid``, ``reason``.
SingleMMCase = _core_chain.SingleMMCase
#: ``cases`` (R, A1, A2 in this order) and ``best`` (the resident name, or None).
SingleMM = _core_chain.SingleMM
#: One fused two-multiply schedule (Table D.3): ``ratio``, ``ratio_prime``, ``tile``,
#: ``words`` (None when not valid), ``valid``, ``reason``.
FusedTwoMM = _core_chain.FusedTwoMM
#: ``left``, ``right`` (FusedTwoMM) and ``unfused_left_words``, ``unfused_right_words``.
TwoMM = _core_chain.TwoMM
#: Per-node terms of Fig. D.11: every field of TreeNode, ``S`` (D.18), ``hp, hl, hr``
#: (D.20-D.22), ``Fp, Fl, Fr, F`` (D.23-D.26), ``choice``, ``tile``, ``tile_exact``,
#: ``tile_fits``, ``absorbed``.
ChainNode = _core_chain.NodeCost
#: OP-DM and hyper-node totals (000 App. D.5-D.7): ``dims``, ``M``, ``beta``, ``op_count``,
#: ``parenthesization``, ``single_mm_total``, ``fused_internal``, ``output_words``,
#: ``fused_total``, ``reduction_percent``, ``hypernode_parenthesization``, ``nodes``.
DataMovement = _core_chain.DataMovement
#: One point of the (op count, off-chip words) Pareto front: ``ops``, ``words``, ``plan``.
ParetoPoint = _core_chain.ParetoPoint
#: Table D.1 value of one synthetic chain: ``n``, ``index``, ``M``, ``reduction_percent``.
ChainReduction = _core_chain.ChainReduction
#: The joint front against the fixed tree for one synthetic chain: ``n``, ``index``, ``M``,
#: ``traffic_gain_percent``, ``ops_increase_percent``, ``front_size``.
JointComparison = _core_chain.JointComparison


# --------------------------------------------------------------------------------------
# Argument handling: types here, values in the core
# --------------------------------------------------------------------------------------


def _dims(dims: object) -> list[int]:
    # n matrices have n + 1 dimensions; the core names a longer chain itself.
    return _convert.int_sequence(dims, "dims", max_len=_core_chain.MAX_ORDER_MATRICES + 1)


def _beta(beta: object) -> str:
    return _convert.choice(beta, "beta", _BETAS)


# --------------------------------------------------------------------------------------
# OP-opcount (Algorithm 10)
# --------------------------------------------------------------------------------------


@record
class OptimalOrder(Record):
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
    _core_order: _core.chain.OpOrder = field(repr=False, compare=False)

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
        return int(self._core_order.split_at(i, j))

    def nodes(self) -> list[TreeNode]:
        """Return the internal nodes of the tree, bottom-up (the root is last)."""
        return list(_core_chain.tree_nodes(self._core_order))

    def tree(self) -> Tree:
        """Return the tree as nested pairs, e.g. ``((1, (2, 3)), ((4, 5), 6))``."""
        if self.n == 1:
            return 1
        built: list[Tree] = []
        for nd in self.nodes():  # bottom-up: children are built before their parent
            left: Tree = built[nd.left] if nd.left >= 0 else nd.i
            right: Tree = built[nd.right] if nd.right >= 0 else nd.k + 1
            built.append((left, right))
        return built[-1]


def optimal_order(
    dims: Sequence[int],
    *,
    threads: int = 0,
    min_work_per_thread: int = int(_core_chain.DEFAULT_MIN_WORK_PER_THREAD),
) -> OptimalOrder:
    """Minimum op-count parenthesization of a matrix chain (000 App. D.4, Algorithm 10).

    Parameters
    ----------
    dims : sequence of int
        ``(P0, ..., Pn)``, all positive; at least two entries, at most 2001.
    threads : int, optional
        Worker threads for long chains (0: all cores); more than the cores (at least 2)
        are not started, since each would only add its start-up on every anti-diagonal.
    min_work_per_thread : int, optional
        Inner-loop iterations each thread must get before an anti-diagonal of the DP is
        split over threads. The default (2^18) keeps chains shorter than ~1500 matrices on
        one thread, where starting threads costs more than it saves; 1 forces the threaded
        path (used by the tests).

    Returns
    -------
    OptimalOrder
        Minimum op count (exact) and the parenthesization. Ties between splits go to the
        smallest ``k``, as in Algorithm 10 and NumPy's ``multi_dot``.

    Raises
    ------
    TypeError
        ``dims`` is not an ordered sequence of integers (a set, dict, str or bytes is not).
    ValueError
        Fewer than two dims, a dim that is not positive, or too long a chain.
    OverflowError
        A dim beyond 64 bits, or a minimum op count that does not fit in 64 bits.
    """
    p = _dims(dims)
    order = _core_chain.optimal_order(
        p,
        _convert.integer(threads, "threads"),
        _convert.integer(min_work_per_thread, "min_work_per_thread"),
    )
    return OptimalOrder(
        dims=tuple(p),
        cost=int(order.min_ops),
        parenthesization=str(order.parenthesization),
        _core_order=order,
    )


# --------------------------------------------------------------------------------------
# Single and two fused multiplies (D.2-D.14)
# --------------------------------------------------------------------------------------


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
        One record per choice of resident matrix (``cases``: R, A1, A2). Outside the closed
        forms' range (a tile larger than its matrix) a case is flagged ``valid=False`` with
        ``words=None``, never given a negative transfer count.
    """
    args = [_convert.integer(v, n) for v, n in ((P0, "P0"), (P1, "P1"), (P2, "P2"), (M, "M"))]
    result: SingleMM = _core_chain.single_mm(*args)
    return result


def two_mm(P0: int, P1: int, P2: int, P3: int, M: int, *, beta: Beta = "printed") -> TwoMM:
    """Fused and unfused transfers of ``R = A1 A2 A3`` (000 Eqs. D.7-D.17, Table D.3).

    Parameters
    ----------
    P0, P1, P2, P3 : int
        ``A1`` is ``P0 x P1``, ``A2`` is ``P1 x P2``, ``A3`` is ``P2 x P3``.
    M : int
        On-chip capacity in words.
    beta : {"printed", "derived"}
        Reading of beta for right fusion (module docstring).

    Returns
    -------
    TwoMM
        Left and right fusion with their tiles, and the unfused counterparts (None unless
        every size exceeds ``sqrt(M)``, the validity condition of every closed form).
    """
    result: TwoMM = _core_chain.two_mm(
        _convert.integer(P0, "P0"),
        _convert.integer(P1, "P1"),
        _convert.integer(P2, "P2"),
        _convert.integer(P3, "P3"),
        _convert.integer(M, "M"),
        _beta(beta),
    )
    return result


# --------------------------------------------------------------------------------------
# OP-DM and hyper-nodes (D.18-D.26)
# --------------------------------------------------------------------------------------


def data_movement(dims: Sequence[int], M: int, *, beta: Beta = "printed") -> DataMovement:
    """Off-chip data movement over the minimum op-count tree (000 Eqs. D.18-D.26).

    Parameters
    ----------
    dims : sequence of int
        ``(P0, ..., Pn)`` with ``n >= 2``; every size must exceed ``sqrt(M)`` (the closed
        forms assume matrices larger than the on-chip memory).
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
    TypeError
        Arguments of the wrong type.
    ValueError
        Bad dims, a single matrix, non-positive ``M``, or a size not above ``sqrt(M)``.
    OverflowError
        Sizes whose products overflow 64-bit op counts.
    """
    result: DataMovement = _core_chain.data_movement(
        _dims(dims), _convert.integer(M, "M"), _beta(beta), 1
    )
    return result


# --------------------------------------------------------------------------------------
# Joint Pareto front (beyond the seed)
# --------------------------------------------------------------------------------------


def pareto_front(dims: Sequence[int], M: int, *, beta: Beta = "printed") -> list[ParetoPoint]:
    """Exact Pareto front over all parenthesizations and legal fusion choices.

    The seed fixes the tree to the minimum op-count one; this solves the joint problem by
    a dynamic program over intervals (``docs/chain.md``). Its cost grows as ``n^4``
    times the front sizes, so it accepts at most 32 matrices (about a second).

    Parameters
    ----------
    dims : sequence of int
        ``(P0, ..., Pn)`` with ``2 <= n <= 32``; every size must exceed ``sqrt(M)``.
    M : int
        On-chip capacity in words.
    beta : {"printed", "derived"}
        Reading of beta for right fusion.

    Returns
    -------
    list of ParetoPoint
        Ops ascending, words strictly descending (words include the final write
        ``P0 Pn``). The first point has the minimum op count.

    Raises
    ------
    ValueError
        If ``dims`` has fewer than 2 or more than 32 matrices, a size is at most
        ``sqrt(M)``, or ``M`` is not positive.
    OverflowError
        If the op count of *any* parenthesization exceeds 2^63 - 1. The front counts every
        tree, so ``pareto_front([2, 2**40, 2, 2**40], 1)`` raises (the tree
        ``(A1 (A2 A3))`` takes 2^81 ops) although :func:`data_movement` answers on the
        minimum op-count tree (2^43 ops).
    """
    result: list[ParetoPoint] = _core_chain.pareto_front(
        _dims(dims), _convert.integer(M, "M"), _beta(beta)
    )
    return result


# --------------------------------------------------------------------------------------
# Random chains (Table D.1); the statistics over chains live in experiments/chain.py
# --------------------------------------------------------------------------------------


@record
class ChainDistribution(Record):
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


def _dist_args(d: object) -> tuple[str, int, int, int, int]:
    if not isinstance(d, ChainDistribution):
        raise TypeError(f"distribution: expected a ChainDistribution, got {type(d).__name__} {d!r}")
    kind = _convert.choice(d.kind, "distribution.kind", ("uniform", "loguniform"))
    seed = d.seed
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"distribution.seed: expected an integer, got {type(seed).__name__}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"distribution.seed: must be in [0, 2**64), got {seed}")
    return (
        kind,
        _convert.integer(d.lo, "distribution.lo"),
        _convert.integer(d.hi, "distribution.hi"),
        _convert.integer(d.step, "distribution.step"),
        seed,
    )


def random_chain(
    n: int, index: int, distribution: ChainDistribution = DEFAULT_DISTRIBUTION
) -> list[int]:
    """Return the dims of synthetic chain ``index`` of length ``n`` (as the experiments draw).

    Parameters
    ----------
    n : int
        Number of matrices (1 to 1000).
    index : int
        Chain number, 0-based.
    distribution : ChainDistribution
        How dims are drawn.

    Returns
    -------
    list of int
        ``n + 1`` dims.
    """
    return list(
        _core_chain.random_chain(
            _convert.integer(n, "n"), _convert.integer(index, "index"), *_dist_args(distribution)
        )
    )


_SpecArgs = tuple[int, int, int, list[int], str, int, int, int, int, str, int]


def _spec_args(
    capacities: object,
    lengths: object,
    chains_per_length: object,
    distribution: object,
    beta: object,
    threads: object,
) -> _SpecArgs:
    caps = _convert.int_sequence(capacities, "capacities", max_len=_core_chain.MAX_CAPACITIES)
    for i, cap in enumerate(caps):
        if cap <= 0:  # named here: the core's check names M, its own symbol
            raise ValueError(f"capacities[{i}]: must be positive (words), got {cap}")
    n_min, n_max = _convert.int_sequence(lengths, "lengths", length=2)
    kind, lo, hi, step, seed = _dist_args(distribution)
    return (
        n_min,
        n_max,
        _convert.integer(chains_per_length, "chains_per_length"),
        caps,
        kind,
        lo,
        hi,
        step,
        seed,
        _beta(beta),
        _convert.integer(threads, "threads"),
    )


def random_chain_reductions(
    capacities: Sequence[int] = (65536, 98304),
    *,
    lengths: tuple[int, int] = (2, 20),
    chains_per_length: int = 1000,
    distribution: ChainDistribution = DEFAULT_DISTRIBUTION,
    beta: Beta = "printed",
    threads: int = 0,
) -> list[ChainReduction]:
    """Reduction of ``F(1,n) + P0 Pn`` over ``S(1,n)`` for every synthetic chain (Table D.1).

    The seed's Table D.1 gives the average, minimum and maximum over 1,000 random chains
    per length; ``costmetrics.experiments.chain.table_d1`` aggregates these values
    the same way.

    Parameters
    ----------
    capacities : sequence of int
        On-chip capacities in words (the seed's "64KB" and "96KB": 65536 and 98304).
    lengths : tuple of int
        Smallest and largest chain length ``n`` (inclusive), ``2 <= n_min <= n_max <= 1000``.
    chains_per_length : int
        Chains drawn per length (the seed: 1,000), 1 to 10^6. The records of a call,
        ``(n_max - n_min + 1) * chains_per_length * len(capacities)``, are at most
        ``_core.chain.MAX_CHAIN_RECORDS`` (2^24, about 150 bytes each): more raise
        ``ValueError`` before any work.
    distribution : ChainDistribution
        How dims are drawn (the seed does not say; this is synthetic data).
    beta : {"printed", "derived"}
        Reading of beta for right fusion.
    threads : int
        Worker threads (0: all cores).

    Returns
    -------
    list of ChainReduction
        One record per chain, in the order capacity, n, index; independent of ``threads``.
    """
    args = _spec_args(capacities, lengths, chains_per_length, distribution, beta, threads)
    result: list[ChainReduction] = _core_chain.random_chain_reductions(*args)
    return result


def joint_comparisons(
    capacities: Sequence[int] = (65536, 98304),
    *,
    lengths: tuple[int, int] = (2, 20),
    chains_per_length: int = 100,
    distribution: ChainDistribution = DEFAULT_DISTRIBUTION,
    beta: Beta = "printed",
    threads: int = 0,
) -> list[JointComparison]:
    """How much traffic the fixed minimum op-count tree leaves on the table, per chain.

    For each synthetic chain, compares the joint Pareto front (:func:`pareto_front`) with
    the hyper-node optimum on the fixed tree (:func:`data_movement`).

    The arguments are those of :func:`random_chain_reductions`, with chains of at most 32
    matrices (the joint front's search).

    Returns
    -------
    list of JointComparison
        One record per chain, in the order capacity, n, index.
    """
    args = _spec_args(capacities, lengths, chains_per_length, distribution, beta, threads)
    result: list[JointComparison] = _core_chain.joint_comparisons(*args)
    return result
