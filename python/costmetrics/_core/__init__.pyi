# Type stubs of the compiled extension costmetrics._core (one .pyi per submodule).
# Submodules without a stub yet are typed loosely through __getattr__.
from typing import Any

from . import scratchpad as scratchpad
from . import spu as spu

__version__: str

def __getattr__(name: str) -> Any: ...
