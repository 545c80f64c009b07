# Type stubs of costmetrics._core.codesign (cpp/bindings/codesign.cpp).
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from costmetrics._core import _Record

from .area import Coefficients, RoundedCoefficients
from .time import _SmCosts

class MachineParams(_SmCosts): ...

class Design(_Record):
    @property
    def n_sm(self) -> int: ...
    @property
    def n_v(self) -> int: ...
    @property
    def smem_kb(self) -> int: ...
    @property
    def area_mm2(self) -> float: ...

class ThreadLimits(_Record):
    @property
    def max_threads_per_block(self) -> int: ...
    @property
    def max_threads_per_sm(self) -> int: ...
    @property
    def registers_per_sm(self) -> int: ...
    @property
    def registers_per_thread(self) -> int: ...

def thread_limits(
    thread_limits: ThreadLimits | Mapping[str, int] | None,
) -> ThreadLimits | None: ...
def default_hardware_space() -> dict[str, npt.NDArray[np.int64]]: ...
def enumerate_designs(
    n_sm: Sequence[int],
    n_v: Sequence[int],
    smem_kb: Sequence[int],
    coefficients: Coefficients,
    area_min_mm2: float,
    area_max_mm2: float,
    rounded: RoundedCoefficients | None = None,
    regs_kb_per_vu: float = 2.0,
) -> dict[str, npt.NDArray[Any]]: ...
def sweep(
    n_sm: npt.ArrayLike,
    n_v: npt.ArrayLike,
    smem_kb: npt.ArrayLike,
    area_mm2: npt.ArrayLike,
    instances: Sequence[tuple[int, float, Sequence[int]]],
    machine: MachineParams,
    variant: str = "exact",
    block_smem: str = "half",
    block_cap_kb: float = 48.0,
    prune: bool = True,
    threads: int = 0,
    progress: Callable[[int], None] | None = None,
    thread_limits: ThreadLimits | Mapping[str, int] | None = None,
) -> dict[str, Any]: ...
def pareto_front(
    area_mm2: Sequence[float], performance: Sequence[float]
) -> npt.NDArray[np.int64]: ...
def workload_gflops(
    talg_s: npt.ArrayLike, flops: Sequence[float], weights: Sequence[float]
) -> npt.NDArray[np.float64]: ...
