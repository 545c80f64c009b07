# Stubs of costmetrics._core.time (cpp/bindings/time.cpp, cpp/include/costmetrics/time.hpp).
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

class GpuParams:
    _fields: ClassVar[tuple[str, ...]]
    n_sm: int
    n_v: int
    smem_per_sm_words: float
    smem_per_block_words: float
    max_blocks_per_sm: int
    l_s_per_word: float
    tau_sync_s: float
    t_sync_s: float
    def __init__(
        self,
        *,
        n_sm: int,
        n_v: int,
        smem_per_sm_words: float,
        smem_per_block_words: float,
        max_blocks_per_sm: int,
        l_s_per_word: float,
        tau_sync_s: float,
        t_sync_s: float,
    ) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class StencilParams:
    _fields: ClassVar[tuple[str, ...]]
    n_space_dims: int
    c_iter_s: float
    def __init__(self, *, n_space_dims: int, c_iter_s: float) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class ProblemSize:
    _fields: ClassVar[tuple[str, ...]]
    space: list[int]
    time_steps: int
    def __init__(self, *, space: list[int], time_steps: int) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class TileSizes:
    _fields: ClassVar[tuple[str, ...]]
    space: list[int]
    time: int
    def __init__(self, *, space: list[int], time: int) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class Breakdown:
    _fields: ClassVar[tuple[str, ...]]
    n_wavefronts: int
    tiles_per_wavefront: int
    k: int
    n_subtiles: int
    w_tile: float
    pitch: float
    m_tile_words: float
    m_io_words: float
    m_prime_s: float
    c_s: float
    t_tile_s: float
    t_sync_total_s: float
    talg_s: float
    t_ideal_s: float
    @property
    def t_overhead_s(self) -> float: ...
    @property
    def below_ideal(self) -> bool: ...
    def __init__(
        self,
        *,
        n_wavefronts: int,
        tiles_per_wavefront: int,
        k: int,
        n_subtiles: int,
        w_tile: float,
        pitch: float,
        m_tile_words: float,
        m_io_words: float,
        m_prime_s: float,
        c_s: float,
        t_tile_s: float,
        t_sync_total_s: float,
        talg_s: float,
        t_ideal_s: float,
    ) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class SearchSpace:
    _fields: ClassVar[tuple[str, ...]]
    space: list[list[int]]
    time: list[int]
    def __init__(self, *, space: list[list[int]], time: list[int]) -> None: ...
    def __len__(self) -> int: ...
    def _asdict(self) -> dict[str, Any]: ...

class SearchResult:
    _fields: ClassVar[tuple[str, ...]]
    best: TileSizes
    best_breakdown: Breakdown
    talg_min_s: float
    near_optimal: list[TileSizes]
    near_optimal_talg_s: list[float]
    n_points: int
    n_feasible: int
    def __init__(
        self,
        *,
        best: TileSizes,
        best_breakdown: Breakdown,
        talg_min_s: float,
        near_optimal: list[TileSizes],
        near_optimal_talg_s: list[float],
        n_points: int,
        n_feasible: int,
    ) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

FEASIBLE: int
NON_POSITIVE_TILE: int
ODD_TIME_TILE: int
INNERMOST_NOT_WARP_MULTIPLE: int
EXCEEDS_BLOCK_SHARED_MEMORY: int
EXCEEDS_SM_SHARED_MEMORY: int
MAX_SM_COUNT: int
MAX_BLOCKS_PER_SM: int
MAX_SMEM_WORDS: float
MAX_TIME_PARAMETER_S: float
MAX_ITERATION_POINTS: int
MAX_SEARCH_POINTS: int

def check_variant(variant: object) -> str: ...
def describe_infeasibility(reasons: int) -> str: ...
def validate_inputs(gpu: GpuParams, stencil: StencilParams, size: ProblemSize) -> None: ...
def feasibility(gpu: GpuParams, n_space_dims: int, tiles: TileSizes) -> int: ...
def m_tile_words(n_space_dims: int, tiles: TileSizes) -> float: ...
def hyperthreading_factor(gpu: GpuParams, m_tile_words: float) -> int: ...
def t_ideal_s(gpu: GpuParams, stencil: StencilParams, size: ProblemSize) -> float: ...
def t_overhead_closed_form_s(
    gpu: GpuParams, stencil: StencilParams, size: ProblemSize, tiles: TileSizes
) -> float: ...
def evaluate(
    gpu: GpuParams,
    stencil: StencilParams,
    size: ProblemSize,
    tiles: TileSizes,
    variant: str = "exact",
) -> Breakdown: ...
def evaluate_batch(
    gpu: GpuParams,
    stencil: StencilParams,
    size: ProblemSize,
    tiles: npt.NDArray[np.integer[Any]],
    variant: str = "exact",
    threads: int = 0,
    with_terms: bool = True,
) -> dict[str, npt.NDArray[Any]]: ...
def default_search_space(n_space_dims: int) -> SearchSpace: ...
def search(
    gpu: GpuParams,
    stencil: StencilParams,
    size: ProblemSize,
    space: SearchSpace,
    within: float = 0.1,
    variant: str = "exact",
    threads: int = 0,
) -> SearchResult: ...
def tiles_to_array(tiles: list[TileSizes], n_space_dims: int) -> npt.NDArray[np.int64]: ...
def max_hexagonal_face_tiles(
    gpu: GpuParams, n_space_dims: int, space: SearchSpace
) -> npt.NDArray[np.int64]: ...
