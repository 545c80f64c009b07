# Stub of costmetrics._core.energy (cpp/bindings/energy.cpp).
from typing import Any

import numpy as np
import numpy.typing as npt

PARAM_NAMES: tuple[str, ...]

class Params:
    p_stat_w: float
    e_gs_j: float
    e_sr_j: float
    e_fadd_j: float
    e_fmul_j: float
    e_iadd_j: float
    e_imax_j: float
    _fields: tuple[str, ...]
    def __init__(self, **kwargs: float) -> None: ...
    def _asdict(self) -> dict[str, float]: ...

class OpMix:
    fadd: float
    fmul: float
    iadd: float
    imax: float
    _fields: tuple[str, ...]
    def __init__(self, **kwargs: float) -> None: ...
    def _asdict(self) -> dict[str, float]: ...

class Breakdown:
    e_alg_j: float
    e_static_j: float
    e_dynamic_j: float
    e_gs_j: float
    e_sr_j: float
    e_ar_j: float
    e_tile_j: float
    e_iter_j: float
    talg_s: float
    n_tiles: float
    v_tile: float
    m_io_words: float
    sr_words: float
    _fields: tuple[str, ...]
    def __init__(self, **kwargs: float) -> None: ...
    def _asdict(self) -> dict[str, float]: ...

class Kernel:
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def n_space_dims(self) -> int: ...
    @property
    def ops(self) -> OpMix: ...
    @property
    def expressions(self) -> dict[str, str]: ...

def builtin_kernel(name: str) -> Kernel: ...
def custom_kernel(
    name: str,
    n_space_dims: int,
    ops: OpMix,
    m_io_words: str,
    sr_words: str,
    v_tile: str,
    n_tiles: str,
) -> Kernel: ...
def evaluate(
    kernel: Kernel,
    size: Any,
    tiles: Any,
    subtile: int,
    params: Params,
    talg_s: float | None = None,
    gpu: Any = None,
    stencil: Any = None,
    variant: str = "exact",
) -> Breakdown: ...
def evaluate_batch(
    kernel: Kernel,
    sizes: npt.ArrayLike,
    tiles: npt.ArrayLike,
    subtiles: npt.ArrayLike,
    talg_s: npt.ArrayLike,
    params: Params,
    threads: int = 0,
) -> dict[str, npt.NDArray[np.float64]]: ...
def design_matrix(
    kernel: Kernel,
    sizes: npt.ArrayLike,
    tiles: npt.ArrayLike,
    subtiles: npt.ArrayLike,
    talg_s: npt.ArrayLike,
) -> npt.NDArray[np.float64]: ...
def identifiability(design: npt.ArrayLike, rel_tol: float = 1e-10) -> dict[str, Any]: ...
def fit_least_squares(
    design: npt.ArrayLike, energy_j: npt.ArrayLike, rel_tol: float = 1e-10
) -> dict[str, Any]: ...
def optimization_error(
    group: npt.ArrayLike, predicted_j: npt.ArrayLike, measured_j: npt.ArrayLike
) -> dict[str, Any]: ...
def energy_per_operation_j(
    e_alg_j: float, p_stat_w: float, talg_s: float, op_count: float
) -> float: ...
def search(
    kernel: Kernel,
    size: Any,
    subtile: int,
    params: Params,
    space: Any,
    within: float = 0.1,
    talg_s: float | None = None,
    gpu: Any = None,
    stencil: Any = None,
    variant: str = "exact",
    threads: int = 0,
) -> dict[str, Any]: ...
