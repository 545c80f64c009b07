"""The one Python record base, for results computed in Python (fits, sweeps, tables).

Records computed in C++ are bound by ``bind_record`` (``cpp/bindings/bindings.hpp``);
records assembled in Python use :func:`record`, which gives them the same behaviour:

- frozen fields, ``_fields`` and ``_asdict()``;
- ``==`` field by field (but fields declared ``field(compare=False)``), NumPy arrays
  compared by shape and value (NaN equal to NaN, so that a record equals its pickled
  copy), ``hash`` refused as for the bound records;
- a readable ``repr`` that summarizes large arrays (shape and dtype);
- pickling (they are plain frozen dataclasses).

"Not measured" is NaN in a float field, never a sentinel such as -1.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar, dataclass_transform

import numpy as np

__all__ = ["Record", "record", "values_equal"]

T = TypeVar("T")
#: Arrays with at most this many entries are shown whole in a repr.
_REPR_MAX_ITEMS = 8


def values_equal(a: object, b: object) -> bool:
    """Compare two field values: arrays by shape and value, NaN equal to NaN.

    Parameters
    ----------
    a, b : object
        Field values (numbers, strings, arrays, sequences, mappings, records).

    Returns
    -------
    bool
        Whether they are equal.
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        x, y = np.asarray(a), np.asarray(b)
        if x.shape != y.shape:
            return False
        if x.dtype.kind in "fc" and y.dtype.kind in "fc":
            return bool(np.array_equal(x, y, equal_nan=True))
        return bool(np.array_equal(x, y))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(values_equal(x, y) for x, y in zip(a, b, strict=False))
        )
    return bool(a == b)


def _short(value: object) -> str:
    if isinstance(value, np.ndarray) and value.size > _REPR_MAX_ITEMS:
        return f"array(shape={value.shape}, dtype={value.dtype})"
    if isinstance(value, Mapping) and len(value) > _REPR_MAX_ITEMS:
        return f"{{...{len(value)} entries}}"
    if isinstance(value, (list, tuple)) and len(value) > _REPR_MAX_ITEMS:
        return f"{type(value).__name__}(len={len(value)})"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k!r}: {_short(v)}" for k, v in value.items()) + "}"
    return repr(value)


class Record:
    """Base of the Python records: ``==``, ``repr``, ``_fields`` and ``_asdict()``.

    Subclasses are declared with :func:`record`. Fields whose name starts with ``_`` are
    private (kept out of ``_fields``, ``==`` and ``repr``).
    """

    _fields: ClassVar[tuple[str, ...]] = ()
    #: The fields ``==`` compares: all but those declared ``field(compare=False)`` (e.g.
    #: a wall time, which differs between two runs of the same computation).
    _compared: ClassVar[tuple[str, ...]] = ()
    __hash__: ClassVar[None] = None  # type: ignore[assignment]

    def _asdict(self) -> dict[str, Any]:
        """Every public field as a dict (nested records stay records)."""
        return {name: getattr(self, name) for name in self._fields}

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(values_equal(getattr(self, n), getattr(other, n)) for n in self._compared)

    def __repr__(self) -> str:
        body = ", ".join(f"{n}={_short(getattr(self, n))}" for n in self._fields)
        return f"{type(self).__name__}({body})"


@dataclass_transform(frozen_default=True, eq_default=False, field_specifiers=(dataclasses.field,))
def record(cls: type[T]) -> type[T]:
    """Declare a frozen dataclass that is a :class:`Record`.

    Parameters
    ----------
    cls : type
        A subclass of :class:`Record` with annotated fields.

    Returns
    -------
    type
        The class, as a frozen dataclass with ``_fields`` set.
    """
    if not issubclass(cls, Record):
        raise TypeError(f"record: {cls.__name__} must derive from costmetrics._record.Record")
    out: Any = dataclasses.dataclass(frozen=True, eq=False, repr=False)(cls)
    names = tuple(f.name for f in dataclasses.fields(out) if not f.name.startswith("_"))
    out._fields = names
    out._compared = tuple(
        f.name for f in dataclasses.fields(out) if f.compare and not f.name.startswith("_")
    )
    made: type[T] = out
    return made
