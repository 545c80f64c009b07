# Type stubs of the compiled extension costmetrics._core (one .pyi per submodule).
# Submodules without a stub yet are typed loosely through __getattr__.
from typing import Any

from . import energy as energy
from . import exasat as exasat

__version__: str

def __getattr__(name: str) -> Any: ...
