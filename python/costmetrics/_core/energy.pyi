# Stub of costmetrics._core.energy (cpp/bindings/energy.cpp).
from typing import Any

import numpy as np
import numpy.typing as npt

from costmetrics._core import _Record

PARAM_NAMES: tuple[str, ...]

class Params(_Record):
    @property
    def p_stat_w(self) -> float: ...
    @property
    def e_gs_j(self) -> float: ...
    @property
    def e_sr_j(self) -> float: ...
    @property
    def e_fadd_j(self) -> float: ...
    @property
    def e_fmul_j(self) -> float: ...
    @property
    def e_iadd_j(self) -> float: ...
    @property
    def e_imax_j(self) -> float: ...

class OpMix(_Record):
    @property
    def fadd(self) -> float: ...
    @property
    def fmul(self) -> float: ...
    @property
    def iadd(self) -> float: ...
    @property
    def imax(self) -> float: ...

class Breakdown(_Record):
    @property
    def e_alg_j(self) -> float: ...
    @property
    def e_static_j(self) -> float: ...
    @property
    def e_dynamic_j(self) -> float: ...
    @property
    def e_gs_j(self) -> float: ...
    @property
    def e_sr_j(self) -> float: ...
    @property
    def e_ar_j(self) -> float: ...
    @property
    def e_tile_j(self) -> float: ...
    @property
    def e_iter_j(self) -> float: ...
    @property
    def talg_s(self) -> float: ...
    @property
    def n_tiles(self) -> float: ...
    @property
    def v_tile(self) -> float: ...
    @property
    def m_io_words(self) -> float: ...
    @property
    def sr_words(self) -> float: ...

class Kernel(_Record):
    # No Python constructor: kernels come from builtin_kernel() and custom_kernel().
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
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
