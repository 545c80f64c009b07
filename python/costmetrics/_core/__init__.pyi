# Type stubs of the compiled extension costmetrics._core (cpp/bindings/). The compiled
# module wins at import time; these files only describe it to type checkers.
# One submodule per model family: add `from . import <family> as <family>` and a
# `<family>.pyi` beside this file.
from typing import Any, ClassVar, type_check_only

from . import area as area
from . import chain as chain
from . import codesign as codesign
from . import energy as energy
from . import exasat as exasat
from . import measure as measure
from . import scratchpad as scratchpad
from . import spu as spu
from . import time as time

__version__: str

# What every bound class and every record has at run time, declared once here. These two
# classes exist only for type checkers (the run-time classes share these members but not
# a Python base class): records are bound by bind_record, other classes by pybind11.
@type_check_only
class _BoundType(type): ...  # pybind11's metaclass of every bound class

@type_check_only
class _Bound(metaclass=_BoundType): ...

@type_check_only
class _Record(_Bound):
    """A record: read-only fields, keyword-only constructor, ==, pickling (bind_record)."""

    _fields: ClassVar[tuple[str, ...]]
    def __init__(self, **fields: Any) -> None: ...
    def _asdict(self) -> dict[str, Any]: ...
    def __eq__(self, other: object) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]
    def __getstate__(self) -> tuple[Any, ...]: ...
    def __setstate__(self, state: tuple[Any, ...]) -> None: ...
