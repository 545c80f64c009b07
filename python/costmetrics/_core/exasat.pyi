"""Type stubs of ``costmetrics._core.exasat`` (cpp/bindings/exasat.cpp)."""

from collections.abc import Sequence
from typing import Any

MAX_OFFSET: int
MAX_POINTS_PER_ACCESS: int
MAX_LOOPS: int
MAX_BOX_EDGE: int
DEFAULT_MAX_SIM_ACCESSES: int
HARD_MAX_SIM_ACCESSES: int

class _Record:
    _fields: tuple[str, ...]
    def _asdict(self) -> dict[str, Any]: ...

class Machine(_Record):
    alpha_flops_per_s: float
    beta_bytes_per_s: float
    cache_bytes: int
    word_bytes: int
    line_bytes: int
    divide_weight: float
    transcendental_weight: float
    write_allocate: bool
    def __init__(self, **kwargs: Any) -> None: ...

class Flops(_Record):
    adds: float
    muls: float
    divides: float
    transcendentals: float
    def __init__(self, **kwargs: Any) -> None: ...

class Box(_Record):
    nx: int
    ny: int
    nz: int
    def __init__(self, **kwargs: Any) -> None: ...

class Blocking(_Record):
    bx: int
    by: int
    def __init__(self, **kwargs: Any) -> None: ...

class ArrayTraffic(_Record):
    array: str
    role: str
    read_words: int
    write_words: int
    need_level: int
    def __init__(self, **kwargs: Any) -> None: ...

class GroupResult(_Record):
    loops: list[int]
    bx: int
    by: int
    level: int
    ws_bytes: list[float]
    weighted_flops: float
    read_words: int
    write_words: int
    arrays: list[ArrayTraffic]
    def __init__(self, **kwargs: Any) -> None: ...

class Estimate(_Record):
    groups: list[GroupResult]
    weighted_flops: float
    read_bytes: float
    write_bytes: float
    traffic_bytes: float
    t_compute_s: float
    t_memory_s: float
    t_s: float
    bytes_per_flop: float
    def __init__(self, **kwargs: Any) -> None: ...

class Simulation(_Record):
    accesses: int
    read_bytes: int
    write_bytes: int
    traffic_bytes: int
    group_traffic_bytes: list[int]
    def __init__(self, **kwargs: Any) -> None: ...

def weighted_flops(flops: Flops, machine: Machine) -> float: ...
def peak_bytes_per_flop(machine: Machine) -> float: ...
def level_name(level: int) -> str: ...
def footprint_words(block: Sequence[int], offsets: Sequence[Sequence[int]]) -> int: ...
def fusion_groups(kernel: Any, strategy: str) -> list[list[int]]: ...
def stencil_dependency(kernel: Any, i: int, j: int) -> bool: ...
def evaluate(
    kernel: Any,
    machine: Machine,
    box: Box,
    groups: Sequence[Sequence[int]],
    blockings: Sequence[Blocking],
    force_level: int = -1,
) -> Estimate: ...
def best_blocking(
    kernel: Any,
    machine: Machine,
    box: Box,
    groups: Sequence[Sequence[int]],
    candidates: Sequence[int],
) -> Estimate: ...
def simulated_accesses(kernel: Any, box: Box, groups: Sequence[Sequence[int]]) -> int: ...
def simulate_lru(
    kernel: Any,
    machine: Machine,
    box: Box,
    groups: Sequence[Sequence[int]],
    blockings: Sequence[Blocking],
    max_accesses: int = ...,
) -> Simulation: ...
def simulate_lru_sweep(
    kernel: Any,
    machine: Machine,
    box: Box,
    groups: Sequence[Sequence[int]],
    blockings: Sequence[Blocking],
    cache_bytes: Sequence[int],
    max_accesses: int = ...,
    threads: int = 0,
) -> list[Simulation]: ...
