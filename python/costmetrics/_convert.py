"""Type conversion at the public boundary, shared by every model family.

The C++ core validates values (ranges, positivity, feasibility); this module only converts
Python arguments to the types the core takes, so that a wrong type raises ``TypeError``
naming the parameter and the value, an integer beyond 64 bits ``OverflowError``, and a
malformed container ``ValueError``, before anything reaches ``costmetrics._core``:

- :func:`integer`: ``int`` or NumPy integer, never ``bool`` or ``float``;
- :func:`real`: ``int``, ``float`` or NumPy real, never ``bool``, ``str`` or ``None``;
- :func:`int_sequence`: an ordered sequence (list, tuple, range, 1-D integer array) of
  integers, never a ``str``, ``bytes``, ``set`` or ``dict``, read up to the core's limit
  for the parameter (an unbounded iterable fails fast);
- :func:`choice`: one of a fixed set of strings;
- :func:`string`: a ``str`` (optionally non-blank);
- :func:`boolean`: ``bool`` or NumPy bool, never ``int`` or ``str``;
- :func:`instances`: a sequence of records of one class (never one record, ``str`` or
  ``bytes``);
- :func:`extents`: problem sizes ``(S1, ..., T)`` or tiles ``(tS1, ..., tT)`` with the
  number of entries a stencil or kernel needs;
- :func:`rows`: an ``(n, d + 1)`` integer array of such tuples, for batch functions;
- :func:`variant`: a time-model variant name, parsed by the bindings' one parser;
- :func:`text_file`: the text of a UTF-8 file, a file that cannot be read a ``ValueError``.

Preset names (stencils, kernels, GPUs, machines) are normalized by one function,
:func:`costmetrics.presets.normalize_name`.
"""

from __future__ import annotations

import itertools
import numbers
import stat
from collections.abc import Iterable, Mapping, Sequence, Set, Sized
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt

T = TypeVar("T")

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "boolean",
    "choice",
    "extents",
    "int_sequence",
    "integer",
    "layout",
    "real",
    "rows",
    "string",
    "variant",
]

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def _describe(value: object) -> str:
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{type(value).__name__} {text}"


def integer(value: object, name: str, *, lo: int | None = None, hi: int | None = None) -> int:
    """Convert ``value`` to a Python ``int`` that fits a signed 64-bit integer.

    Parameters
    ----------
    value : object
        A Python or NumPy integer.
    name : str
        The parameter's name, used in messages.
    lo, hi : int, optional
        Inclusive bounds; outside them ``ValueError``.

    Returns
    -------
    int
        The value.

    Raises
    ------
    TypeError
        If ``value`` is not an integer (``bool`` and ``float`` are not).
    OverflowError
        If it does not fit a signed 64-bit integer.
    ValueError
        If it is outside ``[lo, hi]``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name}: expected an integer, got {_describe(value)}")
    v = int(value)
    if not INT64_MIN <= v <= INT64_MAX:
        raise OverflowError(f"{name}: {v} does not fit a signed 64-bit integer")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        low = "-inf" if lo is None else str(lo)
        high = "inf" if hi is None else str(hi)
        raise ValueError(f"{name}: must be in [{low}, {high}], got {v}")
    return v


def real(value: object, name: str) -> float:
    """Convert ``value``, a Python or NumPy real number, to a ``float``.

    ``bool``, ``str``, ``None`` and complex numbers raise ``TypeError``, an integer too large
    for a double ``OverflowError``, each naming ``name``. NaN and infinities pass: the core
    refuses them where they matter.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        raise TypeError(f"{name}: expected a real number, got {_describe(value)}")
    if isinstance(value, (complex, np.complexfloating)):
        raise TypeError(f"{name}: expected a real number, got {_describe(value)}")
    try:
        return float(value)
    except OverflowError:
        raise OverflowError(f"{name}: {value!r} does not fit a double") from None


def share(value: object, name: str, what: str) -> float:
    """Convert ``value`` (:func:`real`) to a share strictly between 0 and 1.

    ``ValueError`` names ``name``, the range, ``what`` the share is of, and the value (NaN
    and infinities included).
    """
    out = real(value, name)
    if not 0.0 < out < 1.0:
        raise ValueError(f"{name}: must be in (0, 1) ({what}), got {out!r}")
    return out


def number_array(values: object, name: str, *, real: bool = False) -> npt.NDArray[Any]:
    """Return a number or an array or (nested) sequence of real numbers as an int or float array.

    ``str``, ``bytes``, ``None``, bools, complex numbers, masked arrays and text or object
    entries raise ``TypeError`` naming ``name`` (``np.asarray(..., dtype=float)`` turned
    ``"1"`` into 1.0, ``True`` into 1.0, and ``"abc"`` into its own message). Python integers
    in an object array are read as int64; past 64 bits they raise ``OverflowError``, unless
    ``real`` (the values are reals: read as float64, ``OverflowError`` past the double
    range). NaN and infinities pass: the caller checks what it needs.
    """
    if isinstance(values, (str, bytes)) or values is None:
        raise TypeError(f"{name}: expected real numbers, got {_describe(values)}")
    if isinstance(values, np.ma.MaskedArray):
        # np.asarray drops the mask: the masked entries would be computed as if present.
        raise TypeError(f"{name}: a masked array's mask would be ignored; pass a plain array")
    try:
        array = np.asarray(values)
    except OverflowError:
        raise OverflowError(f"{name}: {_describe(values)} does not fit a 64-bit number") from None
    except ValueError:
        raise ValueError(f"{name}: expected a rectangular array of numbers") from None
    if (
        array.dtype == object
        and array.size
        and all(isinstance(v, int) and not isinstance(v, bool) for v in array.ravel())
    ):
        # Python ints (an object array of them, or beyond int64 in a list).
        try:
            return np.asarray(array, dtype=np.float64 if real else np.int64)
        except OverflowError:
            limit = "a double" if real else "a 64-bit integer"
            raise OverflowError(f"{name}: {_describe(values)} does not fit {limit}") from None
    if array.dtype == np.bool_ or array.dtype.kind not in "iuf":
        raise TypeError(f"{name}: expected real numbers, got dtype {array.dtype}")
    return array


def real_array(values: object, name: str) -> npt.NDArray[np.float64]:
    """Return :func:`number_array` (Python integers of any size read as reals) as float64."""
    return np.asarray(number_array(values, name, real=True), dtype=np.float64)


def int_sequence(
    values: object, name: str, *, length: int | None = None, max_len: int | None = None
) -> list[int]:
    """Convert an ordered sequence of integers to a list of ``int``.

    At most ``max_len + 1`` entries (``length + 1`` with ``length``) are read, so that an
    unbounded iterable (``itertools.count()``, ``range(10**12)``) fails at once instead of
    filling memory; one of ``length`` and ``max_len`` is required.

    Parameters
    ----------
    values : object
        A list, tuple, range, 1-D integer NumPy array or other ordered sequence.
    name : str
        The parameter's name, used in messages (entries are named ``name[i]``).
    length : int, optional
        The required number of entries; otherwise ``ValueError``.
    max_len : int, optional
        The most entries the core accepts for this parameter (its limit, read from
        ``costmetrics._core``); more raise ``ValueError``.

    Returns
    -------
    list of int
        The entries.

    Raises
    ------
    TypeError
        If ``values`` is not an ordered sequence (a ``str``, ``bytes``, ``set`` or ``dict``
        is not), or an entry is not an integer.
    OverflowError
        If an entry does not fit a signed 64-bit integer.
    ValueError
        If the number of entries is not ``length`` or is above ``max_len``, or an array is
        not 1-D.
    """
    if length is not None and max_len is None:
        limit = length
    elif max_len is not None and length is None:
        limit = max_len
    else:
        raise TypeError(f"int_sequence({name}): pass exactly one of length and max_len")
    if isinstance(values, (str, bytes, bytearray, memoryview, Mapping, Set)) or not isinstance(
        values, (Sequence, np.ndarray, Iterable)
    ):
        raise TypeError(
            f"{name}: expected a sequence of integers (list, tuple or 1-D array), "
            f"got {_describe(values)}"
        )
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {values.shape}")
    if isinstance(values, Sized):
        # Sized (a range of 10**9 included): refused by its length before it is read.
        count: int | None = len(values)
    else:
        count = None
    if count is None or count <= limit:
        # Iterators and generators have an order too (unordered collections were refused);
        # reading one past the limit tells "too long" without reading all of it.
        items: list[Any] = list(itertools.islice(values, limit + 1))
        count = len(items) if len(items) <= limit else None
    if length is not None and count != length:
        got = "more" if count is None else str(count)
        raise ValueError(f"{name}: expected {length} entries, got {got}")
    if count is None or count > limit:
        got = "more" if count is None else str(count)
        raise ValueError(f"{name}: at most {limit} entries, got {got}")
    return [integer(v, f"{name}[{i}]") for i, v in enumerate(items)]


def choice(value: object, name: str, options: Sequence[str]) -> str:
    """Return ``value`` if it is one of the strings ``options``.

    Not a ``str``: ``TypeError``; another string: ``ValueError``; both name ``name`` and list
    ``options``.
    """
    allowed = ", ".join(repr(o) for o in options)
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected one of {allowed}, got {_describe(value)}")
    if value not in options:
        raise ValueError(f"{name}: expected one of {allowed}, got {value!r}")
    return value


def string(value: object, name: str, *, nonempty: bool = False) -> str:
    """Return ``value`` if it is a ``str`` (and, with ``nonempty``, not blank).

    Not a ``str``: ``TypeError``; blank with ``nonempty``: ``ValueError``; both name ``name``.
    """
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected a string, got {_describe(value)}")
    if nonempty and not value.strip():
        raise ValueError(f"{name}: must not be empty")
    return value


def boolean(value: object, name: str) -> bool:
    """Convert a flag: ``bool`` or NumPy bool only, returned as a Python ``bool``.

    ``1``, ``"yes"`` or anything else raises ``TypeError`` naming ``name``.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name}: expected True or False, got {_describe(value)}")


def instances(values: object, name: str, cls: type[T]) -> list[T]:
    """Return ``values`` as a list of ``cls`` records; TypeError naming ``name`` otherwise."""
    if isinstance(values, (str, bytes, cls)) or not isinstance(values, Sequence):
        raise TypeError(f"{name}: expected a sequence of {cls.__name__}, got {_describe(values)}")
    for i, v in enumerate(values):
        if not isinstance(v, cls):
            raise TypeError(f"{name}[{i}]: expected a {cls.__name__}, got {_describe(v)}")
    return list(values)


def layout(n_space_dims: int, tile: bool) -> str:
    """Return ``"(S1, S2, T)"``-style text naming the entries of sizes or tiles."""
    names = ["S1", "S2", "S3"][:n_space_dims] if n_space_dims > 1 else ["S"]
    if tile:
        return "(" + ", ".join("t" + n for n in names) + ", tT)"
    return "(" + ", ".join(names) + ", T)"


def extents(values: object, name: str, n_space_dims: int, *, tile: bool) -> list[int]:
    """Convert problem sizes or tile sizes: space entries first, the time entry last.

    Parameters
    ----------
    values : object
        An ordered sequence of integers (list, tuple, 1-D array).
    name : str
        The parameter's name (``"sizes"`` or ``"tiles"``), used in messages.
    n_space_dims : int
        The space dimensions of the stencil or kernel: ``values`` needs one more entry.
    tile : bool
        Whether these are tiles (only the message's layout text differs).

    Returns
    -------
    list of int
        The entries; errors as :func:`int_sequence`, and ``ValueError`` unless there are
        ``n_space_dims + 1``.
    """
    from costmetrics import _core  # the compiled core, imported on first use

    # Read up to the longest layout any stencil has, so that a wrong count within it gets
    # the layout message below.
    items = int_sequence(values, name, max_len=_core.time.MAX_SPACE_DIMS + 1)
    if len(items) != n_space_dims + 1:
        raise ValueError(
            f"{name}: must have {n_space_dims + 1} entries {layout(n_space_dims, tile)} for "
            f"this stencil or kernel, got {len(items)}"
        )
    return items


def rows(values: object, name: str, n_space_dims: int, *, tile: bool = True) -> np.ndarray:
    """Convert rows of sizes or tiles to an ``(n, n_space_dims + 1)`` int64 array.

    A single row (a 1-D sequence of ``n_space_dims + 1`` entries) is one row.

    Parameters
    ----------
    values : object
        An integer array or a nested sequence of integers.
    name : str
        The parameter's name, used in messages.
    n_space_dims : int
        The space dimensions of the stencil or kernel.
    tile : bool
        Whether the rows are tiles (only the message's layout text differs).

    Returns
    -------
    numpy.ndarray
        A new C-contiguous int64 array.

    Raises
    ------
    TypeError
        If ``values`` is not an integer array (floats, bools, strings are not).
    OverflowError
        If an entry does not fit a signed 64-bit integer.
    ValueError
        If the shape is not ``(n, n_space_dims + 1)``.
    """
    text = layout(n_space_dims, tile)
    if isinstance(values, (str, bytes, Mapping, Set)):
        raise TypeError(f"{name}: expected an integer array, got {_describe(values)}")
    if isinstance(values, np.ma.MaskedArray):
        # np.asarray drops the mask: the masked entries would be computed as if present.
        raise TypeError(f"{name}: a masked array's mask would be ignored; pass a plain array")
    try:
        array = np.asarray(values)
    except ValueError:
        raise ValueError(f"{name}: rows must all have {n_space_dims + 1} entries {text}") from None
    if array.size == 0 and array.shape not in ((0,), (0, n_space_dims + 1)):
        # [[]] or [[], []] are rows without entries, not "no rows".
        raise ValueError(
            f"{name}: must have shape (n, {n_space_dims + 1}), one row {text} per entry, "
            f"got shape {array.shape}"
        )
    if not isinstance(values, np.ndarray):
        if array.size == 0:  # [] reads as float64: no rows
            return np.zeros((0, n_space_dims + 1), dtype=np.int64)
        if array.dtype != object and any(
            isinstance(v, (bool, np.bool_)) for v in np.asarray(values, dtype=object).ravel()
        ):
            # NumPy turns a bool among ints into 0 or 1: [4, 32, True] ran as tT = 1.
            raise TypeError(f"{name}: expected integers, got a bool entry in {values!r}")
        if array.dtype.kind == "f":
            # NumPy promotes int64 mixed with uint64 (e.g. [8, np.uint64(64), 8]) to float64;
            # integers only are converted one by one below, floats still refused.
            entries = np.asarray(values, dtype=object)
            if all(
                isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                for v in entries.ravel()
            ):
                array = entries
    if array.dtype == object:  # Python ints beyond int64, or mixed objects
        flat = [integer(v, f"{name} entry") for v in array.ravel()]
        array = np.asarray(flat, dtype=np.int64).reshape(array.shape)
    if array.ndim == 1 and array.size == n_space_dims + 1:
        array = array.reshape(1, -1)
    if array.dtype.kind not in "iu" or array.dtype == np.bool_:
        raise TypeError(f"{name}: expected an integer array, got dtype {array.dtype}")
    if array.ndim != 2 or array.shape[1] != n_space_dims + 1:
        raise ValueError(
            f"{name}: must have shape (n, {n_space_dims + 1}), one row {text} per entry, "
            f"got shape {array.shape}"
        )
    if array.dtype.kind == "u" and array.size and int(array.max()) > INT64_MAX:
        raise OverflowError(f"{name}: {int(array.max())} does not fit a signed 64-bit integer")
    return np.ascontiguousarray(array, dtype=np.int64)


def variant(value: object) -> Literal["paper", "exact", "machine"]:
    """Check a time-model variant name (``"exact"``, ``"paper"``, ``"machine"``) where it is stored.

    The bindings parse variants in one place (``enum_names<Variant>``); this asks that
    parser, for code that keeps a variant before any evaluation.

    Parameters
    ----------
    value : object
        The argument.

    Returns
    -------
    str
        The variant's name.

    Raises
    ------
    TypeError
        If ``value`` is not a ``str``.
    ValueError
        If it names no variant (the message lists the valid ones).
    """
    from costmetrics import _core  # the compiled core, imported on first use

    name = _core.time.check_variant(value)
    if name == "machine":
        return "machine"
    return "paper" if name == "paper" else "exact"


def regular_file_size(path: Path, name: str, what: str = "") -> int:
    """Return the size of ``path`` if it is a regular file, else raise ``ValueError``.

    Checked before a file is read: a FIFO blocked the read forever and ``/dev/zero`` filled
    the memory. A folder is "cannot read ...: Is a directory", a path with a NUL byte
    "cannot read ...: embedded null byte" (``stat``'s own ValueError named nothing); a
    missing file raises the ``OSError`` of ``stat`` for the caller to name.
    """
    try:
        info = path.stat()
    except ValueError as exc:  # an embedded NUL byte
        raise ValueError(f"{name}: cannot read {what}{path!r}: {exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{name}: cannot read {what}{path}: Is a directory")
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{name}: {what}{path} is not a regular file")
    return info.st_size


#: The largest file :func:`text_file` reads (bytes).
TEXT_FILE_LIMIT = 64 * 1024 * 1024


def text_file(path: object, name: str, what: str = "") -> tuple[Path, str]:
    """Return ``path`` as a Path and its UTF-8 text; what cannot be read names ``name``.

    ``what`` goes before the path in the message (e.g. ``"preset file "``). A path that is
    not a ``str`` or ``Path`` raises ``TypeError``; a missing file, a folder or a file that
    is not UTF-8 text ``ValueError``.
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"{name}: expected a str or Path, got {_describe(path)}")
    p = Path(path)
    try:
        # Presets and records are kilobytes: at most TEXT_FILE_LIMIT bytes are read.
        size = regular_file_size(p, name, what)
        if size > TEXT_FILE_LIMIT:
            raise ValueError(
                f"{name}: {what}{p} has {size} bytes, more than a text record "
                f"({TEXT_FILE_LIMIT} at most)"
            )
        return p, p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{name}: cannot read {what}{p}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{name}: {p} is not UTF-8 text (byte {exc.start}: {exc.reason})"
        ) from None
