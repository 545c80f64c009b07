# Type stubs of the compiled extension costmetrics._core (cpp/bindings/). The compiled
# module wins at import time; these files only describe it to type checkers.
# One submodule per model family: add `from . import <family> as <family>` and a
# `<family>.pyi` beside this file.
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
