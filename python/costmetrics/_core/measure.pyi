# Type stub of costmetrics._core.measure (cpp/bindings/measure.cpp).
import numpy as np
import numpy.typing as npt

class RunConfig:
    _fields: tuple[str, ...]
    stencil: str
    size_s1: int
    size_s2: int
    size_s3: int
    size_t: int
    tile_s1: int
    tile_s2: int
    tile_s3: int
    tile_t: int
    threads: int
    repeats: int
    warmup: int
    pin: bool
    check: bool
    energy_path: str
    energy_range_uj: float
    schedule: str
    def __init__(
        self,
        *,
        stencil: str,
        size_s1: int,
        size_s2: int,
        size_s3: int,
        size_t: int,
        tile_s1: int,
        tile_s2: int,
        tile_s3: int,
        tile_t: int,
        threads: int,
        repeats: int,
        warmup: int,
        pin: bool,
        check: bool,
        energy_path: str,
        energy_range_uj: float,
        schedule: str,
    ) -> None: ...
    def _asdict(self) -> dict[str, object]: ...

class RunResult:
    _fields: tuple[str, ...]
    time_min_s: float
    time_median_s: float
    time_max_s: float
    cpu_time_s: float
    energy_j: float
    checked: bool
    correct: bool
    max_abs_error: float
    n_wavefronts: int
    n_tiles: int
    n_subtiles: int
    points: int
    words_loaded: int
    words_stored: int
    buffer_words: int
    pinned_threads: int
    def _asdict(self) -> dict[str, object]: ...

class MicroResult:
    _fields: tuple[str, ...]
    value_s: float
    median_s: float
    max_s: float
    repeats: int
    units: int
    def __init__(
        self, *, value_s: float, median_s: float, max_s: float, repeats: int, units: int
    ) -> None: ...
    def _asdict(self) -> dict[str, object]: ...

def kernel_names() -> list[str]: ...
def kernel_space_dims(stencil: str) -> int: ...
def harness_version() -> str: ...
def schedule_names() -> list[str]: ...
def simd_lanes_float() -> int: ...
def compiler_description() -> str: ...
def run(config: RunConfig) -> RunResult: ...
def tiled(config: RunConfig) -> npt.NDArray[np.float32]: ...
def naive(
    stencil: str, size_s1: int, size_s2: int, size_s3: int, size_t: int
) -> npt.NDArray[np.float32]: ...
def bench_copy(
    threads: int, working_set_words: int, segment_words: int, repeats: int, pin: bool
) -> MicroResult: ...
def bench_barrier(threads: int, repeats: int, pin: bool) -> MicroResult: ...
def bench_compute(
    stencil: str, threads: int, n_configs: int, repeats: int, seed: int, pin: bool
) -> MicroResult: ...
def bench_row(stencil: str, threads: int, repeats: int, pin: bool) -> MicroResult: ...
