"""Stencil Processing Unit model (thesis 003): typed stub of ``_core.spu``."""

from typing import Any

class Problem:
    n: int
    k: int
    tile: int
    grid: int
    _fields: tuple[str, ...]
    def __init__(self, *, n: int, k: int, tile: int, grid: int) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class OffChip:
    flops: int
    lower_bound: int
    gpu_closed_form: float
    gpu_exact: int
    spu_closed_form: float
    spu_exact: int
    spill_restore_closed_form: float
    spill_restore_exact: int
    ccr_gpu_closed_form: float
    ccr_gpu_exact: float
    ccr_spu_closed_form: float
    ccr_spu_exact: float
    blocks_per_dim: int
    passes_per_dim: int
    partial_passes: bool
    _fields: tuple[str, ...]
    def __init__(self, **kwargs: Any) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class Configuration:
    blocks_per_dim: int
    threads_per_dim: int
    tiles_per_block: int
    passes_per_dim: int
    partial_passes: bool
    partial_pass_max_occupancy: float
    cb_words_per_tile_face: int
    _fields: tuple[str, ...]
    def __init__(self, **kwargs: Any) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class GlobalSync:
    syncs_per_block: int
    spilling_vius: int
    useful_spills_per_viu: int
    spills_per_viu: int
    accesses: int
    localized_accesses: int
    _fields: tuple[str, ...]
    def __init__(self, **kwargs: Any) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class EnergySplit:
    compute_j: float
    memory_j: float
    static_j: float
    dynamic_j: float
    total_j: float
    _fields: tuple[str, ...]
    def __init__(self, **kwargs: Any) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

def off_chip(problem: Problem) -> OffChip: ...
def configuration(problem: Problem, subtile: int) -> Configuration: ...
def max_tile_for_cb(cb_bytes: int, word_bytes: int) -> int: ...
def total_cb_bytes(n_sms: int, n_ius: int, cb_bytes: int) -> int: ...
def global_sync(problem: Problem, extra_syncs_per_pass: int = 0) -> GlobalSync: ...
def spills_per_viu_from_accesses(problem: Problem, observed_accesses: int) -> float: ...
def energy_split(
    flops: float,
    accesses: float,
    e_comp_j: float,
    e_mem_j: float,
    static_power_w: float,
    time_s: float,
) -> EnergySplit: ...
def energy_mj_from_cycles(cycles: float, power_w: float, frequency_mhz: float) -> float: ...
def break_even_static_power_w(
    accesses_gpu: float,
    accesses_spu: float,
    e_mem_j: float,
    static_power_gpu_w: float,
    time_gpu_s: float,
    time_spu_s: float,
) -> float: ...
def relative_change(value: float, reference: float) -> float: ...
