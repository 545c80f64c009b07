# Stubs of costmetrics._core.chain (cpp/bindings/chain.cpp, cpp/include/costmetrics/chain.hpp).
from typing import Any, ClassVar

class OpOrder:
    _fields: ClassVar[tuple[str, ...]]
    dims: list[int]
    n: int
    min_ops: int
    split: list[int]
    def __init__(self, *, dims: list[int], n: int, min_ops: int, split: list[int]) -> None: ...
    def split_at(self, i: int, j: int) -> int: ...
    @property
    def parenthesization(self) -> str: ...
    def _asdict(self) -> dict[str, Any]: ...

class TreeNode:
    _fields: ClassVar[tuple[str, ...]]
    label: str
    i: int
    j: int
    k: int
    height: int
    left: int
    right: int
    parent: int
    def __init__(
        self,
        *,
        label: str,
        i: int,
        j: int,
        k: int,
        height: int,
        left: int,
        right: int,
        parent: int,
    ) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class SingleMMCase:
    _fields: ClassVar[tuple[str, ...]]
    resident: str
    tile: list[float]
    tile_dims: list[str]
    words: float | None
    valid: bool
    reason: str
    def __init__(
        self,
        *,
        resident: str,
        tile: list[float],
        tile_dims: list[str],
        words: float | None,
        valid: bool,
        reason: str,
    ) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class SingleMM:
    _fields: ClassVar[tuple[str, ...]]
    cases: list[SingleMMCase]
    best: str | None
    def __init__(self, *, cases: list[SingleMMCase], best: str | None) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class FusedTwoMM:
    _fields: ClassVar[tuple[str, ...]]
    ratio: float
    ratio_prime: float
    tile: list[float]
    words: float | None
    valid: bool
    reason: str
    def __init__(
        self,
        *,
        ratio: float,
        ratio_prime: float,
        tile: list[float],
        words: float | None,
        valid: bool,
        reason: str,
    ) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class TwoMM:
    _fields: ClassVar[tuple[str, ...]]
    left: FusedTwoMM
    right: FusedTwoMM
    unfused_left_words: float | None
    unfused_right_words: float | None
    def __init__(
        self,
        *,
        left: FusedTwoMM,
        right: FusedTwoMM,
        unfused_left_words: float | None,
        unfused_right_words: float | None,
    ) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class NodeCost:
    _fields: ClassVar[tuple[str, ...]]
    label: str
    i: int
    j: int
    k: int
    height: int
    left: int
    right: int
    parent: int
    S: float
    hp: float
    hl: float | None
    hr: float | None
    Fp: float
    Fl: float | None
    Fr: float | None
    F: float
    choice: str
    tile: list[int]
    tile_exact: list[float]
    tile_fits: bool
    absorbed: bool
    def __init__(self, **fields: Any) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class DataMovement:
    _fields: ClassVar[tuple[str, ...]]
    dims: list[int]
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
    nodes: list[NodeCost]
    def __init__(self, **fields: Any) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class ParetoPoint:
    _fields: ClassVar[tuple[str, ...]]
    ops: int
    words: float
    plan: str
    def __init__(self, *, ops: int, words: float, plan: str) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class ChainReduction:
    _fields: ClassVar[tuple[str, ...]]
    n: int
    index: int
    M: int
    reduction_percent: float
    def __init__(self, *, n: int, index: int, M: int, reduction_percent: float) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class JointComparison:
    _fields: ClassVar[tuple[str, ...]]
    n: int
    index: int
    M: int
    traffic_gain_percent: float
    ops_increase_percent: float
    front_size: int
    def __init__(
        self,
        *,
        n: int,
        index: int,
        M: int,
        traffic_gain_percent: float,
        ops_increase_percent: float,
        front_size: int,
    ) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

MAX_PARETO_MATRICES: int
MAX_ORDER_MATRICES: int
DEFAULT_MIN_WORK_PER_THREAD: int

def optimal_order(dims: list[int], threads: int = 0, min_work_per_thread: int = ...) -> OpOrder: ...
def tree_nodes(order: OpOrder) -> list[TreeNode]: ...
def single_mm(P0: int, P1: int, P2: int, M: int) -> SingleMM: ...
def two_mm(P0: int, P1: int, P2: int, P3: int, M: int, beta: str = "printed") -> TwoMM: ...
def data_movement(
    dims: list[int], M: int, beta: str = "printed", threads: int = 1
) -> DataMovement: ...
def pareto_front(dims: list[int], M: int, beta: str = "printed") -> list[ParetoPoint]: ...
def random_chain(
    n: int, index: int, distribution: str, lo: int, hi: int, step: int, seed: int
) -> list[int]: ...
def random_chain_reductions(
    n_min: int,
    n_max: int,
    chains_per_length: int,
    capacities: list[int],
    distribution: str,
    lo: int,
    hi: int,
    step: int,
    seed: int,
    beta: str,
    threads: int,
) -> list[ChainReduction]: ...
def joint_comparisons(
    n_min: int,
    n_max: int,
    chains_per_length: int,
    capacities: list[int],
    distribution: str,
    lo: int,
    hi: int,
    step: int,
    seed: int,
    beta: str,
    threads: int,
) -> list[JointComparison]: ...
