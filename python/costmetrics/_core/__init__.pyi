"""Type stubs of the compiled core ``costmetrics._core`` (one ``<family>.pyi`` per submodule)."""

from typing import Any

from . import exasat as exasat

__version__: str

# Submodules without a stub yet stay untyped (the foundation helper replaces this file).
def __getattr__(name: str) -> Any: ...
