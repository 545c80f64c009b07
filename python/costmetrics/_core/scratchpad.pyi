"""Scratchpad data movement (Baskaran et al., PPoPP 2008): typed stub of ``_core.scratchpad``."""

from collections.abc import Sequence
from typing import Any

class Reference:
    array: str
    write: bool
    coeffs: list[list[int]]
    offsets: list[int]
    def __init__(
        self, *, array: str, write: bool, coeffs: Sequence[Sequence[int]], offsets: Sequence[int]
    ) -> None: ...

class Statement:
    lower: list[int]
    upper: list[int]
    refs: list[Reference]
    def __init__(
        self, *, lower: Sequence[int], upper: Sequence[int], refs: Sequence[Reference]
    ) -> None: ...

class TileProblem:
    extents: list[int]
    refs: list[Reference]
    processes: float
    sync_cost: float
    cost_per_word: float
    memory_limit_words: float
    ceil_occurrences: bool
    def __init__(
        self,
        *,
        extents: Sequence[int],
        refs: Sequence[Reference],
        processes: float,
        sync_cost: float,
        cost_per_word: float,
        memory_limit_words: float,
        ceil_occurrences: bool = False,
    ) -> None: ...

class LocalArray:
    array: str
    partition: int
    lower: list[int]
    upper: list[int]
    extents: list[int]
    size_words: int
    move_in_bound_words: int
    move_out_bound_words: int
    move_in_exact_words: int
    move_out_exact_words: int
    _fields: tuple[str, ...]
    def __init__(self, **kwargs: Any) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class TileArray:
    array: str
    placement: int
    occurrences: float
    size_words: float
    move_in_words: float
    move_out_words: float
    cost: float
    _fields: tuple[str, ...]
    def __init__(self, **kwargs: Any) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class TileEvaluation:
    cost: float
    memory_words: float
    product: float
    within_extents: bool
    fits_memory: bool
    enough_parallelism: bool
    feasible: bool
    _fields: tuple[str, ...]
    def __init__(self, **kwargs: Any) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class TileSearchResult:
    tiles: list[int]
    cost: float
    memory_words: float
    points_visited: int
    feasible_points: int
    found: bool
    _fields: tuple[str, ...]
    def __init__(self, **kwargs: Any) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

def movement_cost(
    occurrences: float,
    processes: float,
    sync_cost: float,
    volume_words: float,
    cost_per_word: float,
) -> float: ...
def local_arrays(
    statements: Sequence[Statement], reading: str = "per_array", max_points: int = ...
) -> list[LocalArray]: ...
def evaluate_tiles(problem: TileProblem, tiles: Sequence[float]) -> TileEvaluation: ...
def tile_arrays(problem: TileProblem, tiles: Sequence[float]) -> list[TileArray]: ...
def integer_optimum(
    problem: TileProblem,
    max_points: int = 50000000,
    threads: int = 0,
    candidates: Sequence[Sequence[int]] = ...,
) -> TileSearchResult: ...
