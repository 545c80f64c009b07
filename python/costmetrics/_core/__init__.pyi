# Type stubs of the compiled extension costmetrics._core (the .so wins at import time).
from typing import Any

from . import area as area
from . import codesign as codesign

__version__: str

def __getattr__(name: str) -> Any: ...
