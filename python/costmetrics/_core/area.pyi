# Type stubs of costmetrics._core.area (cpp/bindings/area.cpp).
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

class Coefficients:
    _fields: ClassVar[tuple[str, ...]]
    beta_r_mm2_per_kb: float
    alpha_r_mm2: float
    beta_m_mm2_per_kb: float
    alpha_m_mm2: float
    beta_l1_mm2_per_kb: float
    alpha_l1_mm2: float
    beta_l2_mm2_per_kb: float
    alpha_l2_mm2: float
    beta_vu_mm2: float
    alpha_oh_mm2: float
    def __init__(self, **kwargs: float) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class RoundedCoefficients:
    _fields: ClassVar[tuple[str, ...]]
    vu_mm2: float
    reg_mm2_per_kb: float
    smem_mm2_per_kb: float
    l1_mm2_per_kb_per_sm: float
    l2_mm2_per_kb: float
    per_sm_mm2: float
    def __init__(self, **kwargs: float) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class Config:
    _fields: ClassVar[tuple[str, ...]]
    n_sm: int
    n_v: int
    smem_kb: float
    regs_kb_per_vu: float
    l1_kb_per_pair: float
    l2_kb: float
    def __init__(self, **kwargs: float) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class AreaBreakdown:
    _fields: ClassVar[tuple[str, ...]]
    vector_units_mm2: float
    registers_mm2: float
    shared_memory_mm2: float
    l1_mm2: float
    l2_mm2: float
    overhead_mm2: float
    total_mm2: float
    def __init__(self, **kwargs: float) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class LinearFit:
    _fields: ClassVar[tuple[str, ...]]
    slope: float
    intercept: float
    r_squared: float
    rmse: float
    n_points: int
    def __init__(self, **kwargs: float) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

class DieCalibration:
    _fields: ClassVar[tuple[str, ...]]
    alpha_oh_mm2: float
    beta_vu_from_die_mm2: float
    def __init__(self, **kwargs: float) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...

def structural(coefficients: Coefficients, config: Config) -> AreaBreakdown: ...
def rounded(coefficients: RoundedCoefficients, config: Config) -> float: ...
def structural_batch(
    coefficients: Coefficients,
    n_sm: npt.ArrayLike,
    n_v: npt.ArrayLike,
    smem_kb: npt.ArrayLike,
    regs_kb_per_vu: npt.ArrayLike,
    l1_kb_per_pair: npt.ArrayLike,
    l2_kb: npt.ArrayLike,
) -> npt.NDArray[np.float64]: ...
def rounded_batch(
    coefficients: RoundedCoefficients,
    n_sm: npt.ArrayLike,
    n_v: npt.ArrayLike,
    smem_kb: npt.ArrayLike,
    regs_kb_per_vu: npt.ArrayLike,
    l1_kb_per_pair: npt.ArrayLike,
    l2_kb: npt.ArrayLike,
) -> npt.NDArray[np.float64]: ...
def fit_linear(size_kb: list[float], area_mm2: list[float]) -> LinearFit: ...
def calibrate_die(
    memory: Coefficients, config: Config, die_mm2: float, overhead_mm2: float
) -> DieCalibration: ...
