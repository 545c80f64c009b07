"""The ``costmetrics`` command-line tool.

Usage: ``costmetrics [--version] SUBCOMMAND [options]``; ``costmetrics SUBCOMMAND -h``
describes each subcommand.

Adding a subcommand
-------------------
Each model family adds its subcommands with one self-contained function ``_add_<command>``
per subcommand (dashes as underscores) and names them in its
:attr:`~costmetrics.families.Family.commands` (:mod:`costmetrics.families`), from which
:data:`SUBCOMMANDS` is derived::

    def _add_chain(parser: argparse.ArgumentParser) -> Handler:
        '''Optimal parenthesization of a matrix chain.'''  # first line: the help text
        parser.add_argument("dims", type=_int, nargs="+", help="matrix dimensions")
        add_json_flag(parser)

        def run(args: argparse.Namespace) -> int:
            result = ...                       # call the public Python API
            if args.json:
                print_json(result_as_dict)
            else:
                print(...)
            return 0

        return run

    Family("chain", ..., commands=("chain",))   # costmetrics/families.py

The function receives its own (already created) sub-parser, adds its arguments, and
returns the handler that runs it. Conventions: import heavy modules inside ``run``;
``--json`` (via :func:`add_json_flag`) prints machine-readable output, and nothing else,
on standard output; progress bars go to standard error; raise ``ValueError`` for bad
input: :func:`main` prints it as one line on standard error and exits with status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import stat
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from costmetrics._files import file_kind, writable_folder
from costmetrics._interrupt import Terminated, terminate_as_interrupt
from costmetrics.experiments import EXPERIMENTS
from costmetrics.families import FAMILIES

#: What a subcommand's setup function returns: runs the command, returns the exit status.
Handler = Callable[[argparse.Namespace], int]
#: A subcommand's setup function: adds arguments to its parser, returns its handler.
AddParser = Callable[[argparse.ArgumentParser], Handler]

#: Exit status for bad input (the same argparse uses for usage errors).
EXIT_USAGE = 2


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Add the standard ``--json`` flag to a subcommand's parser.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser.
    """
    parser.add_argument(
        "--json", action="store_true", help="print machine-readable JSON on standard output"
    )


def to_json(obj: Any) -> Any:
    """Convert records (anything with ``_asdict()``), tuples and NumPy values to JSON types.

    Parameters
    ----------
    obj : Any
        A record of the core, a dict, list, tuple, NumPy scalar or array, or a JSON value.

    Returns
    -------
    Any
        The same data as dicts, lists, numbers, strings and None. JSON has no NaN or
        infinity (strict parsers such as jq refuse the bare tokens): NaN becomes None
        (null), an infinity the string ``"inf"`` or ``"-inf"``, as ``energy design`` does.
    """
    if isinstance(obj, float):
        return _finite_or_text(obj)
    if hasattr(obj, "_asdict"):
        return {k: to_json(v) for k, v in obj._asdict().items()}
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_json(v) for v in obj]
    if hasattr(obj, "tolist"):
        return to_json(obj.tolist())
    return obj


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON on standard output.

    Records, tuples and NumPy values are converted by :func:`to_json`; paths and other
    non-JSON objects are written as strings.

    Parameters
    ----------
    obj : Any
        A JSON-serializable object (dicts, lists, numbers, strings, None, records).
    """
    json.dump(to_json(obj), sys.stdout, indent=2, default=str, allow_nan=False)
    sys.stdout.write("\n")


def _stat_mode(path: Path, option: str, what: str) -> int:
    """Return the mode of ``path`` (``stat`` alone); errors name ``option``."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        raise ValueError(f"{option}: no {what} {path}") from None
    except (OSError, ValueError) as exc:  # no permission, a NUL byte, a file as a folder
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ValueError(f"{option}: cannot read {path!s}: {reason}") from None


def check_input_file(path: Path, option: str) -> Path:
    """Make sure a file to read exists and is a file, before long work starts.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    option : str
        The option that named it, for the message.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ValueError
        If it does not exist, or is a folder or another kind of file that is not a regular
        file (a device such as /dev/zero, a FIFO, a socket); only ``stat`` is called.
    """
    mode = _stat_mode(path, option, "file")
    if stat.S_ISDIR(mode):
        raise ValueError(f"{option}: {path} is a folder, expected a file")
    if not stat.S_ISREG(mode):
        # /dev/zero exists: "no file" sent the user looking for a typo.
        raise ValueError(f"{option}: {path} is a {file_kind(mode)}, not a regular file")
    return path


def _check_calibration_folder(path: Path, option: str) -> Path:
    """Make sure ``path`` is a calibration folder (``costmetrics calibrate --out``).

    Checked before any work, by ``stat`` alone; :func:`costmetrics.measure.load_calibration`
    named its own parameter (``path: cannot read /nonexistent/calibration.json``).

    Raises
    ------
    ValueError
        Naming ``option`` and ``path`` if it is missing, not a folder, or has no
        ``calibration.json``.
    """
    mode = _stat_mode(path, option, "folder")
    if not stat.S_ISDIR(mode):
        raise ValueError(f"{option}: {path} is a {file_kind(mode)}, expected a folder")
    if not (path / "calibration.json").is_file():
        raise ValueError(
            f"{option}: {path} has no calibration.json (expected a folder written by "
            "costmetrics calibrate)"
        )
    return path


def check_output_file(path: Path, option: str, *, create_folder: bool = False) -> Path:
    """Make sure a file can be written (or appended to) before long work starts.

    An existing path that is not a regular file (a folder, a FIFO, a device such as
    /dev/null, a socket) is refused without being opened: opening a FIFO blocks, and the
    atomic rename of a result would replace a device node.

    Parameters
    ----------
    path : pathlib.Path
        The file.
    option : str
        The option that named it, for the message.
    create_folder : bool
        Create a missing folder (``measure --out``, as :func:`costmetrics.measure.measure`
        does); otherwise the folder must exist.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ValueError
        If it is not a regular file, or it or its folder is not writable (or missing).
    """
    from costmetrics._files import check_output_file as check

    return check(path, option, create_folder=create_folder)


def one_line(text: str) -> str:
    r"""Return ``text`` with each character that is not printable escaped (``\n``).

    For the command line and paths recorded in a measurement table's one-line header
    fields: a path may hold a line break, which would split the header.
    """
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


@contextlib.contextmanager
def _warnings_as_lines(command: str) -> Iterator[None]:
    """Print the warnings raised inside as ``costmetrics COMMAND: warning: ...`` lines.

    Python prints a warning as ``file.py:123: LoadWarning: ...`` followed by the source
    line; at the command line each is one line on standard error, worded like the errors
    :func:`main` prints. They are printed when the block ends without an error (a bad
    input's error stays the one line on standard error).

    Parameters
    ----------
    command : str
        The subcommand, for the prefix.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        print(f"costmetrics {command}: warning: {' '.join(str(w.message).split())}",
              file=sys.stderr)  # fmt: skip


@contextlib.contextmanager
def _options_named(options: Mapping[str, str]) -> Iterator[None]:
    """Name the command-line option in a bad-input error that names a Python parameter.

    The functions behind the subcommands check their parameters and name them
    (``n_configs: must be in [1, 1000], got 0``); at the command line the option was typed
    (``--configs``). A ``ValueError``, ``OverflowError`` or own ``TypeError`` (see
    :func:`_is_bad_input`) whose message starts with a key of ``options`` is raised again
    as a ``ValueError`` starting with its option (:func:`_rename`); any other error passes
    unchanged. The limits stay the function's own: nothing is checked twice.

    Parameters
    ----------
    options : mapping of str to str
        Parameter name (or the words a message starts with, e.g. ``"subtile sS"``) to the
        option as typed, e.g. ``{"n_configs": "--configs"}``.
    """
    try:
        yield
    except (ValueError, OverflowError, TypeError) as exc:
        renamed = _rename(str(exc), options) if _is_bad_input(exc) else None
        if renamed is None:
            raise
        raise ValueError(renamed) from None


#: What may follow a key of :func:`_options_named` at the start of a message: an element
#: index (``tiles[2]: ...``), the model's symbol (``n (N): ...``), then ``: `` or the rest
#: of a sentence (``subtile sS = 11 exceeds ...``).
_AFTER_KEY = re.compile(r"(?P<index>(\[\d+\])*)(?P<alias> \([^()]*\))?(?P<colon>: )?")


def _rename(message: str, options: Mapping[str, str]) -> str | None:
    """Return ``message`` starting with the option of its leading key, or None if none.

    ``tiles[2]: x`` becomes ``--tiles[2]: x`` (the element keeps its index), ``n (N): x``
    becomes ``--n: x``, and a message whose key is not followed by ``: `` keeps its words
    after the option (``subtile sS = 11 exceeds ...`` becomes ``--subtile: subtile sS =
    11 exceeds ...``; the key ``"iteration-space size"`` keeps ``iteration-space size
    S1*...*T: ...``). The longest matching key wins; a key matches whole words only.
    """
    for key in sorted(options, key=len, reverse=True):
        if not message.startswith(key):
            continue
        after = _AFTER_KEY.match(message, len(key))
        assert after is not None  # every group is optional
        end = after.end()
        if after["colon"]:
            return f"{options[key]}{after['index']}: {message[end:]}"
        if end == len(message) or message[end] == " ":
            return f"{options[key]}: {message}"
    return None


#: A TypeError of our own validation names the parameter first ("tiles: expected ...");
#: Python's own TypeErrors ("unsupported operand type(s)", "'NoneType' object is not
#: subscriptable") do not, and are bugs to report with their traceback.
_OWN_TYPE_ERROR = re.compile(r"^[\w.\[\]'\-]+(\(\))?: ")


def _is_bad_input(exc: BaseException) -> bool:
    """Whether an exception reports bad input (exit 2) rather than an internal error."""
    if isinstance(exc, (ValueError, OverflowError, OSError)):
        return True
    if isinstance(exc, TypeError):
        text = str(exc)
        return "incompatible function arguments" not in text and bool(_OWN_TYPE_ERROR.match(text))
    return False


def _table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)).rstrip()
        for row in rows
    )


# --------------------------------------------------------------------------------------
# Subcommands
# --------------------------------------------------------------------------------------


def _add_reproduce(parser: argparse.ArgumentParser) -> Handler:
    """Regenerate figures and tables; report them beside the seeds' values."""
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=_path,
        default=Path("results"),
        help="output folder for figures, tables and report.md/report.json (default: results)",
    )
    parser.add_argument(
        "--only",
        metavar="NAME",
        nargs="+",
        help=f"run only these experiments: {', '.join(EXPERIMENTS)} (default: all)",
    )
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics.reproduce import reproduce

        # Checked, not created: reproduce creates it once --only's names are checked.
        writable_folder(args.out, "--out", create=False)
        with _options_named({"only": "--only"}):
            results = reproduce(args.out, only=args.only, progress=True)
        md_path, json_path = args.out / "report.md", args.out / "report.json"
        if args.json:
            print_json(
                {
                    "out_dir": str(args.out),
                    "report_md": str(md_path),
                    "report_json": str(json_path),
                    "experiments": [
                        {
                            "name": r.name,
                            "n_values": len(r.values),
                            "files": [str(p) for p in r.files],
                        }
                        for r in results
                    ],
                }
            )
        else:
            for r in results:
                print(f"{r.name}: {len(r.values)} reproduced values, {len(r.files)} files")
            print(f"report: {md_path} and {json_path}")
        return 0

    return run


def _add_presets(parser: argparse.ArgumentParser) -> Handler:
    """List the GPU and stencil presets with their parameters."""
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        import costmetrics

        gpus = [costmetrics.gpu(k) for k in costmetrics.gpus()]
        stencils = [costmetrics.stencil(k) for k in costmetrics.stencils()]
        if args.json:
            print_json(
                {
                    "gpus": [g.to_dict() for g in gpus],
                    "stencils": [s.to_dict() for s in stencils],
                }
            )
            return 0
        gpu_rows = [
            ["key", "name", "n_sm", "n_v", "smem/SM [B]", "smem/block [B]", "R_SM",
             "banks", "MTB_SM", "L [s/GB]", "tau_sync [s]", "T_sync [s]"],
        ]  # fmt: skip
        for g in gpus:
            gpu_rows.append(
                [g.key, g.name, str(g.n_sm), str(g.n_v), str(g.smem_per_sm_bytes),
                 str(g.smem_per_block_bytes), str(g.registers_per_sm),
                 str(g.shared_memory_banks), str(g.max_blocks_per_sm), f"{g.l_s_per_gb:.3g}",
                 f"{g.tau_sync_s:.3g}", f"{g.t_sync_s:.3g}"]
            )  # fmt: skip
        gpu_keys = sorted({k for s in stencils for k in s.c_iter_s})
        stencil_rows = [["key", "name", "space dims", *(f"C_iter {k} [s]" for k in gpu_keys)]]
        for s in stencils:
            stencil_rows.append(
                [s.key, s.name, str(s.n_space_dims),
                 *(f"{s.c_iter_s[k]:.3g}" if k in s.c_iter_s else "-" for k in gpu_keys)]
            )  # fmt: skip
        print("GPUs")
        print(_table(gpu_rows))
        print()
        print("Stencils")
        print(_table(stencil_rows))
        return 0

    return run


def _path(text: str) -> Path:
    """Parse a path option (argparse ``type=``), refusing an empty one.

    ``Path("")`` is the working directory, so ``--out ''`` scattered a report's files
    there; argparse names the option in the message.
    """
    if text == "":
        raise argparse.ArgumentTypeError("expected a path, got an empty string")
    return Path(text)


#: One integer written in ASCII digits (``int()`` alone also takes ``8_192`` and full-width
#: or other non-ASCII digits), for :func:`_int` and each field of :func:`_int_list`.
_ASCII_INT = re.compile(r"\s*[+-]?[0-9]+\s*")


def _int(text: str) -> int:
    """Parse one integer of ASCII digits (argparse ``type=``).

    ``int()`` alone takes ``8_192`` and full-width or other non-ASCII digits (``"８0"`` read
    as 80, ``"١٢٨"`` as 128); the CLI refuses them, as :func:`_int_list` does. argparse
    names the option in the message.
    """
    if not _ASCII_INT.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    return int(text)


def _float(text: str) -> float:
    """Parse one number written in ASCII (argparse ``type=``).

    ``float()`` alone takes ``1_000`` and non-ASCII digits (``"٣"`` read as 3.0). Whether a
    value such as ``nan`` or ``inf`` is allowed is the option's own check, as before.
    """
    if not text.isascii() or "_" in text:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _int_list(text: str) -> list[int]:
    """Parse ``"8192,8192,8192"`` into integers (argparse ``type=``).

    Every field must be an integer of ASCII digits: an empty field (``"3,,5"``, ``"3,5,"``)
    is an error, never skipped, and so are ``8_192`` and full-width or other non-ASCII
    digits, which ``int()`` would take. argparse names the option in the message.
    """
    items = text.split(",")
    if not all(_ASCII_INT.fullmatch(item) for item in items):
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")
    return [int(item) for item in items]


def _add_time_arguments(parser: argparse.ArgumentParser, with_tiles: bool) -> None:
    parser.add_argument("--stencil", required=True, help="stencil preset, e.g. heat2d")
    parser.add_argument("--gpu", required=True, help="GPU preset, e.g. gtx980")
    parser.add_argument(
        "--sizes", required=True, type=_int_list, help="S1[,S2[,S3]],T e.g. 8192,8192,8192"
    )
    if with_tiles:
        parser.add_argument(
            "--tiles", required=True, type=_int_list, help="tS1[,tS2[,tS3]],tT e.g. 8,64,8"
        )
    parser.add_argument("--variant", choices=["exact", "paper", "machine"], default="exact")
    add_json_flag(parser)


def _grid_options(
    sizes: Sequence[int], tiles: Sequence[int] | None = None, option: str = "--sizes"
) -> dict[str, str]:
    """Return the options of the models' names of the ``--sizes`` and ``--tiles`` entries.

    The models name an entry by its symbol (``S1: must be positive``, ``tT: ...``) or by
    its index (``tiles[2]: ... does not fit a signed 64-bit integer``); at the command line
    both are the entry of the option as typed (``--sizes[0]``, ``--tiles[2]``). The last
    entry is the time steps (``T``, ``tT``). ``option`` is the sizes' option (tune's are
    its positional ``sizes``).
    """
    out = {"sizes": option, "iteration-space size": option}
    out.update({f"S{d + 1}": f"{option}[{d}]" for d in range(len(sizes) - 1)})
    out["T"] = f"{option}[{len(sizes) - 1}]"
    if tiles is not None:
        out["tiles"] = "--tiles"
        out.update({f"tS{d + 1}": f"--tiles[{d}]" for d in range(len(tiles) - 1)})
        out["tT"] = f"--tiles[{len(tiles) - 1}]"
    return out


def _time_options(args: argparse.Namespace) -> dict[str, str]:
    """Return the options of ``talg`` and ``best-tiles`` by the time model's names."""
    return {
        "stencil": "--stencil", "gpu": "--gpu", "variant": "--variant", "within": "--within",
        **_grid_options(args.sizes, getattr(args, "tiles", None)),
    }  # fmt: skip


_BELOW_IDEAL_NOTE = (
    "note: T_alg < T_ideal (below_ideal): the paper variant's hexagon geometry leaves gaps "
    "for small tiles; the exact variant never predicts below T_ideal (docs/api-conventions.md)"
)


def _add_talg(parser: argparse.ArgumentParser) -> Handler:
    """Predicted execution time T_alg of a tiled stencil and its breakdown (App. A)."""
    _add_time_arguments(parser, with_tiles=True)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import time as cm_time

        with _options_named(_time_options(args)):
            b = cm_time.breakdown(
                args.stencil, args.gpu, args.sizes, args.tiles, variant=args.variant
            )
        # below_ideal is a property of the record, not a field: it travels with it here
        # (docs/api-conventions.md, "Defaults").
        if args.json:
            print_json({**b._asdict(), "below_ideal": b.below_ideal})
        else:
            rows = [[name, f"{value:.6g}"] for name, value in b._asdict().items()]
            print(_table([*rows, ["below_ideal", str(b.below_ideal)]]))
            if b.below_ideal:
                print(_BELOW_IDEAL_NOTE)
        return 0

    return run


def _add_best_tiles(parser: argparse.ArgumentParser) -> Handler:
    """Exhaustive search for the tile sizes minimizing T_alg (Eq. A.32)."""
    _add_time_arguments(parser, with_tiles=False)
    parser.add_argument(
        "--within", type=_float, default=0.10, help="near-optimal fraction (default 0.10)"
    )

    def run(args: argparse.Namespace) -> int:
        from costmetrics import time as cm_time

        with _options_named(_time_options(args)):
            best = cm_time.best_tiles(
                args.stencil, args.gpu, args.sizes, within=args.within, variant=args.variant
            )
        if args.json:
            print_json(
                {
                    "tiles": list(best.tiles),
                    "talg_s": best.talg_s,
                    "t_ideal_s": best.breakdown.t_ideal_s,
                    "n_points": best.n_points,
                    "n_feasible": best.n_feasible,
                    "within": best.within,
                    "below_ideal": best.below_ideal,
                    "near_optimal": best.table(),
                }
            )
            return 0
        print(
            f"best tiles {best.tiles}: T_alg = {best.talg_s:.6g} s "
            f"(T_ideal = {best.breakdown.t_ideal_s:.6g} s); "
            f"{best.n_feasible} feasible of {best.n_points} points"
        )
        if best.below_ideal:
            print(_BELOW_IDEAL_NOTE)
        rows = best.table()
        print(f"{len(rows)} points within {100 * best.within:g}% of the minimum:")
        header = list(rows[0])
        print(
            _table(
                [header]
                + [
                    [f"{row[h]:.6g}" if h == "talg_s" else str(row[h]) for h in header]
                    for row in rows[:30]
                ]
            )
        )
        if len(rows) > 30:
            print(f"... {len(rows) - 30} more (use --json for all)")
        return 0

    return run


def _add_chain(parser: argparse.ArgumentParser) -> Handler:
    """Matrix chain: minimum op count and off-chip data movement (App. D)."""
    parser.add_argument(
        "--dims", required=True, type=_int_list, help="P0,P1,...,Pn e.g. 936,1008,552,368"
    )
    parser.add_argument(
        "--M", type=_int, default=None, help="on-chip capacity in words (omit: op count only)"
    )
    parser.add_argument("--beta", choices=["printed", "derived"], default="printed")
    parser.add_argument(
        "--pareto", action="store_true", help="also the joint (ops, words) Pareto front"
    )
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import chain as cm_chain

        if args.pareto and args.M is None:
            raise ValueError("--pareto: needs --M")
        with _options_named({"dims": "--dims", "M": "--M", "beta": "--beta"}):
            order = cm_chain.optimal_order(args.dims)
            dm = (
                None
                if args.M is None
                else cm_chain.data_movement(args.dims, args.M, beta=args.beta)
            )
            front = cm_chain.pareto_front(args.dims, args.M, beta=args.beta) if args.pareto else []
        out: dict[str, Any] = {"op_count": order.cost, "parenthesization": order.parenthesization}
        if dm is not None:
            out.update({k: v for k, v in dm._asdict().items() if k != "parenthesization"})
        if args.pareto:
            out["pareto_front"] = front
        if args.json:
            print_json(out)
            return 0
        print(f"min op count {order.cost:,}: {order.parenthesization}")
        if dm is not None:
            print(f"S(1,n) = {dm.single_mm_total:,.1f} words (OP-DM, Eq. D.18)")
            print(
                f"F(1,n) + P0Pn = {dm.fused_total:,.1f} words ({dm.reduction_percent:.2f}% less): "
                f"{dm.hypernode_parenthesization}"
            )
            cols = ["node", "i", "j", "hp", "hl", "hr", "Fp", "Fl", "Fr", "F", "choice", "tile"]
            rows = [cols]
            for nd in dm.nodes:
                costs = (nd.hp, nd.hl, nd.hr, nd.Fp, nd.Fl, nd.Fr, nd.F)
                rows.append(
                    [nd.label, str(nd.i), str(nd.j)]
                    + ["-" if v is None else f"{v:,.0f}" for v in costs]
                    + [nd.choice + (" (absorbed)" if nd.absorbed else ""), str(nd.tile)]
                )
            print(_table(rows))
        if args.pareto:
            print("Pareto front (ops, words, plan):")
            print(_table([[f"{p.ops:,}", f"{p.words:,.1f}", p.plan] for p in front]))
        return 0

    return run


def _add_probe(parser: argparse.ArgumentParser) -> Handler:
    """Check whether this machine is quiet enough for measurements that repeat."""
    parser.add_argument(
        "--seconds",
        type=_float,
        default=10.0,
        help="seconds of host-speed windows, about one each (default 10)",
    )
    parser.add_argument(
        "--threads",
        default=None,
        help="CPUs to probe: a count or 'all' (default: all this process may use)",
    )
    parser.add_argument(
        "--limit",
        type=_float,
        default=None,
        metavar="FRACTION",
        help="share of slow probe rounds judged quiet (default 0.1)",
    )
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import measure as cm_measure

        threads = None
        if args.threads is not None:
            counts = _thread_counts(args.threads)
            if len(counts) != 1:
                raise ValueError(f"--threads: one count or 'all', got {args.threads!r}")
            threads = counts[0]
        options = {"duration_s": "--seconds", "threads": "--threads", "limit": "--limit"}
        with _options_named(options):
            check = cm_measure.check_host(
                duration_s=args.seconds,
                threads=threads,
                limit=cm_measure.HOST_SLOW_LIMIT if args.limit is None else args.limit,
                progress=not args.json,
            )
        if args.json:
            print_json(check._asdict())
            return 0
        rows = [["CPU", "alone", "beside the others", "slower", "stalled", "longest stall"]]
        probe = check.cpus
        for cpu, (alone, together) in enumerate(zip(probe.alone_s, probe.together_s, strict=True)):
            rows.append(
                [
                    str(cpu), f"{1e3 * alone:.3f} ms", f"{1e3 * together:.3f} ms",
                    f"{100 * (together / alone - 1):+.1f}%" if alone > 0 else "-",
                    f"{100 * probe.stall_share[cpu]:.2f}%",
                    f"{1e3 * probe.longest_stall_s[cpu]:.2f} ms",
                ]
            )  # fmt: skip
        print(f"{check.cpu_model}, {check.threads} CPU(s), load average {check.loadavg_1m}")
        print(_table(rows))
        windows = " ".join(f"{100 * w.slow_share:.0f}%" for w in check.windows)
        print(
            f"host: {100 * check.slow_share:.0f}% of the probe rounds over 1.3x the fastest "
            f"({len(check.windows)} windows: {windows})"
        )
        for note in check.notes:
            print(f"note: {note}")
        if check.quiet:
            print("quiet: measurements here should repeat (their noise floor says how well)")
        else:
            print(
                "not quiet: measure later, or let measure wait for quiet stretches "
                "(--quiet-host 0.1) and tune measure until its pick stands out (--confidence 0.9)"
            )
        return 0

    return run


def _add_calibrate(parser: argparse.ArgumentParser) -> Handler:
    """Measure this CPU's time-model parameters (Sec. A.5.1 and the machine variant)."""
    parser.add_argument(
        "--out",
        type=_path,
        required=True,
        metavar="DIR",
        help="folder for gpus/<key>.yaml, stencils/<name>.yaml, calibration.json",
    )
    parser.add_argument(
        "--threads",
        default=None,
        help="thread counts, e.g. 1,2 or 1,all (default: all cores; 1 is always measured too)",
    )
    parser.add_argument(
        "--passes", type=_int, default=None, help="interleaved shuffled passes (default 5)"
    )
    parser.add_argument("--repeats", type=_int, default=None, help="former name of --passes")
    parser.add_argument(
        "--configs", type=_int, default=70, help="random tile shapes for C_iter (the seed uses 70)"
    )
    parser.add_argument(
        "--working-set-words",
        type=_int,
        default=2 * 514 * 514,
        help="main-array size of the L benchmark, floats",
    )
    parser.add_argument(
        "--max-working-set-words",
        type=_int,
        default=2**25,
        help="largest array of the per-level copy points, floats (default: the harness limit)",
    )
    parser.add_argument(
        "--budget-bytes",
        type=_int,
        default=None,
        help="tile-buffer budget M_SM per core (default: the L2 per core)",
    )
    _add_statistic(parser)
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import measure as cm_measure

        if args.passes is not None and args.repeats is not None:
            raise ValueError("--repeats: the former name of --passes; give only one")
        passes = args.repeats if args.passes is None else args.passes
        # 'all' as measure and tune take it (the argparse type refused it).
        threads = None if args.threads is None else _thread_counts(args.threads)
        # Before the ~10 s of benchmarks; created by save_calibration, after calibrate has
        # checked the other options (a refused one left an empty folder).
        writable_folder(args.out, "--out", create=False)
        options = {
            "threads": "--threads",
            "passes": "--passes" if args.repeats is None else "--repeats",
            "n_configs": "--configs",
            "working_set_words": "--working-set-words",
            "max_working_set_words": "--max-working-set-words",
            "buffer_budget_bytes": "--budget-bytes",
            "statistic": "--statistic",
        }
        with _options_named(options):  # calibrate checks them before measuring
            cal = cm_measure.calibrate(
                threads=threads,
                passes=5 if passes is None else passes,
                n_configs=args.configs,
                working_set_words=args.working_set_words,
                max_working_set_words=args.max_working_set_words,
                buffer_budget_bytes=args.budget_bytes,
                progress=not args.json,
                statistic=args.statistic,
            )
        files = cm_measure.save_calibration(cal, args.out)
        out = {
            "gpu": cal.gpu.to_dict(),
            "c_iter_s": {n: cal.c_iter_s(n) for n in cal.stencils},
            "micro": cal.micro,
            "files": [str(f) for f in files],
        }
        if args.json:
            print_json(out)
        else:
            g = cal.gpu
            print(
                f"{g.name}: n_sm={g.n_sm} n_v={g.n_v} M_SM={g.smem_per_sm_bytes} B "
                f"L={g.l_s_per_word:.3g} s/word tau_sync={g.tau_sync_s:.3g} s "
                f"T_sync={g.t_sync_s:.3g} s"
            )
            for n in cal.stencils:
                print(f"  C_iter[{n}] = {cal.c_iter_s(n):.3g} s per {g.n_v}-lane vector")
            print("wrote " + ", ".join(str(f) for f in files))
        return 0

    return run


def _thread_counts(text: str) -> list[int]:
    """Parse ``--threads`` (``1,2`` or ``all`` or ``1,all``).

    Each count is ASCII digits (:data:`_ASCII_INT`), as every other integer option's:
    ``int()`` alone took ``1_0`` and non-ASCII digits (``"١"`` read as 1).
    """
    from costmetrics.measure import default_threads

    out = []
    for item in text.split(","):
        if item.strip() == "all":
            out.append(default_threads())
        elif _ASCII_INT.fullmatch(item):
            out.append(int(item))
        else:
            raise ValueError(f"--threads: expected integers or 'all', got {text!r}")
    return out


def _add_statistic(parser: argparse.ArgumentParser) -> None:
    """Add ``--statistic``: a point's time over its interleaved passes."""
    parser.add_argument(
        "--statistic",
        choices=["median", "min"],
        default="median",
        help="a point's time over its passes: median (default) or min (docs/validate.md)",
    )


def _add_shuffled_passes(parser: argparse.ArgumentParser) -> None:
    """Add ``--threads``, ``--passes`` and ``--seed``: the shuffled-pass protocol's options.

    ``measure`` and ``tune`` both run the harness in shuffled passes over thread counts
    (:func:`costmetrics.measure.measure`), so they take these options alike.
    """
    parser.add_argument(
        "--threads", default="1,all", help="thread counts, e.g. 1,2 or 1,all (default: 1,all)"
    )
    parser.add_argument("--passes", type=_int, default=5, help="shuffled passes (default 5)")
    parser.add_argument("--seed", type=_int, default=0, help="seed of the shuffled orders")


def _add_measure(parser: argparse.ArgumentParser) -> Handler:
    """Measure tiled stencils on this CPU into a resumable table (shuffled passes)."""
    parser.add_argument("--out", type=_path, required=True, metavar="CSV", help="the table")
    parser.add_argument(
        "--calibration",
        type=_path,
        default=None,
        metavar="DIR",
        help="also measure the model's choices (optima, 10%% sets, baseline)",
    )
    parser.add_argument(
        "--stencils", nargs="+", default=None, help="default: all six (heat3d included)"
    )
    _add_shuffled_passes(parser)
    parser.add_argument("--warmup", type=_int, default=1, help="untimed runs before each run")
    parser.add_argument(
        "--schedule",
        default=None,
        help="tiles to threads: round-robin, block, or round-robin,block (both); default: "
        "each stencil's (block)",
    )
    parser.add_argument(
        "--sizes",
        choices=["default", "levels"],
        default="default",
        help="problem sizes: the shipped sweep's, or L2-resident to past L2 (levels)",
    )
    parser.add_argument(
        "--grid",
        choices=["full", "coarse"],
        default="full",
        help="tile grid: the broad grid, or a coarse subset (the 8-10 minute protocol sweep)",
    )
    parser.add_argument(
        "--limit",
        type=_int,
        default=None,
        help="measure only the first N points of the sweep (a quick partial sweep)",
    )
    parser.add_argument(
        "--noise-target",
        type=_float,
        default=None,
        metavar="FRACTION",
        help="then pairs of passes over each group (stencil, threads, schedule, memory "
        "level) whose noise floor of the median is above FRACTION (e.g. 0.05)",
    )
    parser.add_argument(
        "--max-passes",
        type=_int,
        default=None,
        help="with --noise-target: at most this many passes (default 4 x --passes)",
    )
    parser.add_argument(
        "--probe-cpus",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="before a new table, check how the CPUs run alone and side by side (about 1 s; "
        "written to the header, warns where they slow each other down or stall; default on)",
    )
    parser.add_argument(
        "--quiet-host",
        type=_float,
        default=None,
        metavar="FRACTION",
        help="before each pass, probe the host for 1 s and wait while more than FRACTION of "
        "the probe rounds run slow (e.g. 0.1; a '# host:' line per pass records it)",
    )
    parser.add_argument(
        "--quiet-wait",
        type=_float,
        default=None,
        metavar="SECONDS",
        help="with --quiet-host: the longest wait before a pass (default 600)",
    )
    parser.add_argument(
        "--quiet-every",
        type=_float,
        default=None,
        metavar="SECONDS",
        help="with --quiet-host: gate again inside a pass once SECONDS have passed since the "
        "last gate (default: at the start of each pass only)",
    )
    parser.add_argument(
        "--quiet-probe",
        type=_float,
        default=None,
        metavar="SECONDS",
        help="with --quiet-host: seconds of each gate's probe (default 1)",
    )
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import measure as cm_measure

        if args.quiet_host is None:
            # They only shape the quiet-host gate: given alone they were ignored.
            for flag in ("quiet_wait", "quiet_every", "quiet_probe"):
                if getattr(args, flag) is not None:
                    raise ValueError(f"--{flag.replace('_', '-')}: only with --quiet-host")
        check_output_file(args.out, "--out", create_folder=True)
        threads = _thread_counts(args.threads)
        cal = None
        if args.calibration is not None:
            _check_calibration_folder(args.calibration, "--calibration")
            cal = cm_measure.load_calibration(args.calibration)
        if cal is not None:
            cm_measure.check_same_machine(cal.machine, "--calibration")
            cm_measure.check_current_harness(cal.machine.get("harness_version"), "--calibration")
        stencils = cm_measure.STENCILS if args.stencils is None else tuple(args.stencils)
        sizes = None if args.sizes == "default" else cm_measure.LEVEL_SIZES
        with _options_named({"stencil": "--stencils", "stencils": "--stencils"}):
            points = cm_measure.default_points(
                stencils, sizes=sizes, calibration=cal, grid=args.grid
            )
        if args.limit is not None:
            if args.limit < 1:
                raise ValueError(f"--limit: must be positive, got {args.limit}")
            points = points[: args.limit]
        command = "costmetrics " + " ".join(sys.argv[1:]) if sys.argv[1:] else "costmetrics measure"
        notes = [f"calibration: {args.calibration}"] if args.calibration else []
        command, notes = one_line(command), [one_line(n) for n in notes]
        # measure() names its parameters ("out: ... is being measured by another process");
        # here the options were typed.
        options = {
            "out": "--out", "passes": "--passes", "warmup": "--warmup", "seed": "--seed",
            "threads": "--threads", "schedule": "--schedule", "noise_target": "--noise-target",
            "max_passes": "--max-passes", "quiet_host": "--quiet-host",
            "quiet_wait_s": "--quiet-wait", "quiet_every_s": "--quiet-every",
            "quiet_probe_s": "--quiet-probe",
        }  # fmt: skip
        with _warnings_as_lines("measure"), _options_named(options):
            cm_measure.measure(
                points,
                args.out,
                threads=threads,
                passes=args.passes,
                warmup=args.warmup,
                schedule=None if args.schedule is None else args.schedule.split(","),
                seed=args.seed,
                command=command,
                notes=notes,
                progress=not args.json,
                noise_target=args.noise_target,
                max_passes=args.max_passes,
                cpu_probe=args.probe_cpus,
                quiet_host=args.quiet_host,
                quiet_wait_s=600.0 if args.quiet_wait is None else args.quiet_wait,
                quiet_every_s=args.quiet_every,
                quiet_probe_s=1.0 if args.quiet_probe is None else args.quiet_probe,
            )
        table = cm_measure.read_table(args.out)
        energy = cm_measure.write_energy_csv(
            table.medians(), args.out.with_suffix(".energy.csv"), [f"from {args.out}"]
        )
        med = table.medians()
        out = {
            "out": str(args.out),
            "rows": len(table),
            "points": len(med),
            "passes": table.n_passes,
            "correct": int(table.correct.sum()),
            "energy_csv": None if energy is None else str(energy),
            "energy": table.header_value("energy"),
        }
        if args.json:
            print_json(out)
        else:
            print(
                f"{args.out}: {out['rows']} runs of {out['points']} points in {out['passes']} "
                f"passes, {out['correct']} match the naive stencil; energy: {out['energy']}"
            )
        return 0

    return run


def _pct(x: float) -> str:
    return "-" if x != x else f"{100 * x:.1f}%"


def _ci(ci: Sequence[float]) -> str:
    return "-" if ci[0] != ci[0] else f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _add_calibration_folders(parser: argparse.ArgumentParser, what: str) -> None:
    """Add the required, repeatable ``--calibration DIR`` (one folder per thread count)."""
    parser.add_argument(
        "--calibration",
        type=_path,
        required=True,
        action="append",
        metavar="DIR",
        help=f"{what}; repeat it for one per thread count",
    )


def _add_validate(parser: argparse.ArgumentParser) -> Handler:
    """Score the time model on a measured table (RMSE with noise floor, fits, selection)."""
    # --table CSV as energy's fit and table-b3 take it; positionally as this command
    # first took it (`validate sweep.csv`), never both.
    parser.add_argument(
        "--table", type=_path, default=None, metavar="CSV",
        help="measurement CSV (costmetrics measure)",
    )  # fmt: skip
    parser.add_argument(
        "table_positional", type=_path, nargs="?", default=None, metavar="table",
        help="the measurement CSV, given positionally instead of --table",
    )  # fmt: skip
    _add_calibration_folders(parser, "folder written by costmetrics calibrate")
    parser.add_argument(
        "--plot",
        type=_path,
        default=None,
        metavar="PNG",
        help="write the predicted-vs-measured figure (Fig. A.4)",
    )
    parser.add_argument(
        "--time",
        choices=["wall", "cpu"],
        default="wall",
        help="score the wall time (default) or the threads' CPU time (loaded machines)",
    )
    parser.add_argument(
        "--groups",
        action="store_true",
        help="also print every (stencil, memory level, threads) group",
    )
    parser.add_argument(
        "--confirm",
        type=_path,
        default=None,
        metavar="CSV",
        help="measure the runs each variant's tuner keeps and the grid's 3 fastest again "
        "into CSV (resumable) and score the tuner curves on them (docs/validate.md)",
    )
    parser.add_argument(
        "--confirm-passes",
        type=_int,
        default=None,
        metavar="P",
        help="with --confirm: fresh shuffled passes (default: as many as the table's "
        "most-measured point, at least 2)",
    )
    _add_statistic(parser)
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import measure as cm_measure
        from costmetrics import validate as cm_validate
        from costmetrics._files import save_figure_atomic
        from costmetrics.experiments.validate import plot_predicted_vs_measured

        if args.table is not None and args.table_positional is not None:
            raise ValueError(
                f"table: given both positionally ({str(args.table_positional)!r}) and with "
                "--table; use one"
            )
        table_option = "table" if args.table is None else "--table"
        if args.table is None:
            if args.table_positional is None:
                raise ValueError("--table: required (the CSV costmetrics measure wrote)")
            args.table = args.table_positional
        if args.confirm is None and args.confirm_passes is not None:
            # It only shapes --confirm's measurement: given alone it was ignored.
            raise ValueError("--confirm-passes: only with --confirm")
        # Both outputs are checked before the validation (and --confirm's measurements).
        if args.plot is not None:
            from matplotlib.backend_bases import FigureCanvasBase

            formats = FigureCanvasBase.get_supported_filetypes()
            if args.plot.suffix.lstrip(".").lower() not in formats:
                raise ValueError(
                    f"--plot: {args.plot} has no figure suffix matplotlib writes "
                    f"(one of {', '.join('.' + f for f in sorted(formats))})"
                )
            check_output_file(args.plot, "--plot")
        if args.confirm_passes is not None:
            cm_validate._confirm_passes(args.confirm_passes, "--confirm-passes")
        check_input_file(args.table, table_option)
        for folder in args.calibration:
            _check_calibration_folder(folder, "--calibration")
        # One line each, as tune's and measure's: read_table's (an unterminated last line),
        # the scoring's, and --confirm's measurement's (load, CPU interference).
        with _warnings_as_lines("validate"):
            with _options_named({"path": table_option}):  # read_table names its path
                table = cm_measure.read_table(args.table)  # read once: scored, header's probe
            if args.confirm is not None:
                # What confirm_selection refuses after the scoring (minutes), checked before
                # it, and before --confirm's folder and lock file are made: the runs are
                # measured again here, so the table must be this machine's and harness's.
                cm_validate._check_this_machines_table(table, f"--confirm: {args.table}")
                cm_validate.check_confirm_output(args.confirm, "--confirm")
            with _options_named({"calibration": "--calibration", "statistic": "--statistic"}):
                report = cm_validate.validate(
                    table, args.calibration, time=args.time, statistic=args.statistic
                )
            again: list[cm_validate.TunerCurve] = []
            vs_grid: list[cm_validate.TunerCurve] = []
            if args.confirm is not None:
                grid = table.per_point(args.statistic)
                again = cm_validate.confirm_selection(
                    grid, list(report.tuner.values()),
                    args.confirm, passes=args.confirm_passes, progress=not args.json,
                    command=one_line(
                        f"costmetrics validate {args.table} --confirm {args.confirm}"
                    ),
                )  # fmt: skip
                # The kept runs against the grid's best run, both timed again.
                best = cm_validate.tuner_curve_of(grid, grid.time_s, label="the grid's best",
                                                  ks=(1,))  # fmt: skip
                confirmation = cm_measure.read_table(args.confirm)
                vs_grid = [cm_validate.confirmed_curve(c, confirmation, reference=best)
                           for c in report.tuner.values()]  # fmt: skip
            if args.plot is not None:
                save_figure_atomic(plot_predicted_vs_measured(report), args.plot, dpi=120)
        probe = cm_measure.table_cpu_probe(table)
        gates = cm_measure.table_host_gates(table)
        if args.json:
            out = report.to_dict()
            out["dram_split"] = {
                f"fitted-{v}": cm_validate.dram_split(f) for v, f in report.fitted.items()
            }
            out["cpu_probe"] = None if probe is None else probe._asdict()
            out["host_gates"] = [g._asdict() for g in gates]
            out["tuner_re_measured"] = {c.variant: c.to_dict() for c in again}
            out["tuner_re_measured_vs_grid_best"] = {c.variant: c.to_dict() for c in vs_grid}
            print_json(out)
            return 0
        header = [
            "variant", "stencil", "level", "threads", "n", "RMSE all", "95% CI", "n top",
            "RMSE top", "95% CI", "noise floor", "within noise",
        ]  # fmt: skip
        rows = [header]
        scored = [*report.scores.values(), *(f.test_score for f in report.fitted.values())]
        for s in scored:
            for g in s.groups:
                if not (args.groups or g.memory_level == "all" or g.stencil == "all"):
                    continue
                rows.append(
                    [
                        s.variant, g.stencil, g.memory_level, str(g.threads or "all"),
                        str(g.n_all), _pct(g.rmse_all), _ci(g.rmse_all_ci), str(g.n_top),
                        _pct(g.rmse_top), _ci(g.rmse_top_ci), _pct(g.noise_floor),
                        ("all" if g.within_noise_all else "")
                        + (" top" if g.within_noise_top else ""),
                    ]
                )  # fmt: skip
        print(
            f"{args.table}: {report.n_rows} runs, {report.n_points} points, "
            f"{report.n_passes} pass(es), {report.n_correct} points correct, "
            f"load average {report.loadavg_1m[0]:.2f}-{report.loadavg_1m[2]:.2f}"
        )
        print(_table(rows))
        print(
            f"RMSE against each point's {report.statistic} over passes; 95% CI: percentile "
            "bootstrap resampling the points of the group; noise floor: RMS relative "
            f"difference of the {report.statistic}s of the even and odd passes; within "
            "noise: RMSE <= noise floor."
        )
        print("(fitted-*: parameters fitted leave-one-problem-out, scored on the held-out problem)")
        if "machine" in report.fitted:
            split = cm_validate.dram_split(report.fitted["machine"])
            mib = float(1 << 20)
            if split.rule in ("copy curve", "streaming copy curve"):
                points = ", ".join(
                    f"{b / mib:.3g} MiB {f:.2f}"
                    for b, f in zip(split.array_bytes, split.dram_share, strict=True)
                )
                print(f"fitted-machine: DRAM share read off the {split.rule}: {points}")
            else:
                c = split.cache_l3_bytes / mib
                print(f"fitted-machine: DRAM share 1 - C / B at C = {c:.3g} MiB")
        if probe is not None:
            slower = ", ".join(
                f"CPU {i} {100 * (b / a - 1):+.1f}%"
                for i, (a, b) in enumerate(zip(probe.alone_s, probe.together_s, strict=True))
            )
            stalled = max(probe.stall_share)
            print(f"CPUs at the start of the sweep (probe_cpus): side by side vs alone {slower}; "
                  f"stalled up to {100 * stalled:.2f}% of the time")  # fmt: skip
            for note in cm_measure.probe_notes(probe):
                print(f"note: {note}")
        if gates:
            quiet = sum(g.quiet for g in gates)
            shares = sorted(g.slow_share for g in gates)
            print(f"quiet-host gate: {len(gates)} pass(es), {quiet} started on a quiet host "
                  f"(slow probe rounds at most {100 * gates[0].limit:g}%), median "
                  f"{100 * shares[len(shares) // 2]:.1f}% slow, waited "
                  f"{sum(g.waited_s for g in gates):.0f} s in all")  # fmt: skip
        for v, err in report.fit_errors.items():
            print(f"fitted-{v}: not fitted: {err}")
        for n, m in report.calibration_threads.items():
            if n != m:
                print(f"note: {n}-thread rows predicted with the {m}-thread calibration (n_sm={n})")
        for v, summary in report.selection_summary.items():
            if summary.get("n_problems"):
                print(
                    f"tile selection ({v}): {summary['n_problems']} problems x threads, "
                    f"T(opt)/T(best) - 1 = {100 * summary['mean_opt_slowdown']:.1f}%, "
                    f"best within 10% vs baseline: "
                    f"{100 * summary['mean_gain_near_over_baseline']:+.1f}%"
                )

        def curve_line(curve: cm_validate.TunerCurve, what: str, sign: str = "") -> str:
            parts = [
                f"k={k}: mean {100 * d['mean']:{sign}.1f}% max {100 * d['max']:{sign}.1f}%"
                for k, d in curve.summary().items()
            ]
            return f"tuner ({what}): " + "; ".join(parts)

        for v, curve in report.tuner.items():
            print(curve_line(curve, f"{v}, distance to the measured grid's best"))
        if report.selection_floor is not None:
            # What noise alone costs a ranking: a distance at or below it is within noise.
            print(
                curve_line(
                    report.selection_floor,
                    "noise floor: the grid ranked by half of its passes, scored on the other half",
                )
            )
        for curve in again:
            print(curve_line(curve, f"{curve.variant} in {args.confirm}, distance to the "
                                    "fastest run measured again"))  # fmt: skip
        for curve in vs_grid:
            # Signed: the kept run may run faster than the grid's best measured again.
            print(curve_line(curve, f"{curve.variant} in {args.confirm}, the kept run over "
                                    "the grid's best run, both measured again", "+"))  # fmt: skip
        return 0

    return run


def _tune_problem(args: argparse.Namespace) -> tuple[str, list[int], str]:
    """Return tune's stencil, sizes and the name of the sizes' argument as typed.

    Either ``--stencil`` and ``--sizes`` (the spelling of ``talg`` and ``best-tiles``) or
    the positional ``stencil sizes...``; never a mix, so that no entry is silently
    dropped.
    """
    positional = args.stencil_positional is not None or bool(args.sizes_positional)
    named = args.stencil is not None or args.sizes is not None
    if positional and named:
        given = " ".join([args.stencil_positional or "", *map(str, args.sizes_positional)])
        raise ValueError(
            f"stencil: given both positionally ({given.strip()!r}) and with --stencil/--sizes; "
            "use one form (--stencil heat2d --sizes 512,512,128)"
        )
    if named:
        if args.stencil is None:
            raise ValueError("--stencil: required with --sizes (e.g. --stencil heat2d)")
        if args.sizes is None:
            raise ValueError("--sizes: required with --stencil (e.g. --sizes 512,512,128)")
        return str(args.stencil), list(args.sizes), "--sizes"
    if args.stencil_positional is None:
        raise ValueError("--stencil: required (e.g. --stencil heat2d --sizes 512,512,128)")
    if not args.sizes_positional:
        raise ValueError("--sizes: required (e.g. --sizes 512,512,128)")
    return str(args.stencil_positional), list(args.sizes_positional), "sizes"


def _add_tune(parser: argparse.ArgumentParser) -> Handler:
    """Rank (tile, threads) with the time model, measure the top k, report the best."""
    # --stencil and --sizes S1,...,T as in talg and best-tiles; the positional form
    # (`tune heat2d 512 512 128`, the first one this command had) is still read.
    parser.add_argument("--stencil", default=None, help="harness stencil (jacobi1d, jacobi2d, ...)")
    parser.add_argument(
        "--sizes", type=_int_list, default=None,
        help="S,T (1D), S1,S2,T (2D) or S1,S2,S3,T (heat3d), e.g. 512,512,128",
    )  # fmt: skip
    parser.add_argument(
        "stencil_positional", nargs="?", default=None, metavar="stencil",
        help="the stencil, given positionally instead of --stencil",
    )  # fmt: skip
    parser.add_argument(
        "sizes_positional", type=_int, nargs="*", default=[], metavar="sizes",
        help="the sizes, given positionally instead of --sizes (S1 S2 T)",
    )  # fmt: skip
    _add_calibration_folders(parser, "this machine's calibration folder")
    parser.add_argument("--variant", default="exact", help="ranking variant (default exact)")
    parser.add_argument(
        "--fit",
        type=_path,
        default=None,
        metavar="CSV",
        help="fit the variant's parameters on this machine's measured table first and rank "
        "with them (best: --variant machine --fit SWEEP, docs/validate.md)",
    )
    parser.add_argument("-k", type=_int, default=5, help="candidates to measure (default 5)")
    _add_shuffled_passes(parser)
    _add_statistic(parser)
    parser.add_argument(
        "--confidence",
        type=_float,
        default=None,
        metavar="SHARE",
        help="then pairs of passes over the candidates until the measured best is the fastest "
        "in SHARE of the bootstrap resamples (e.g. 0.9): on a noisy host, measure until the "
        "best stands out",
    )
    parser.add_argument(
        "--max-passes",
        type=_int,
        default=None,
        help="with --confidence: at most this many passes (default 4 x --passes)",
    )
    parser.add_argument("--out", type=_path, default=None, metavar="CSV", help="keep the runs here")
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import measure as cm_measure

        stencil, sizes, sizes_option = _tune_problem(args)
        if args.max_passes is not None and args.confidence is None:
            # It only bounds --confidence's passes: given alone it was ignored.
            raise ValueError("--max-passes: only with --confidence")
        if args.out is not None:
            # Before the fit (seconds) and the ranking; a missing folder is checked, not
            # created (measure creates it), so that a refused option leaves none.
            if args.out.parent.is_dir():
                check_output_file(args.out, "--out")
            else:
                writable_folder(args.out.parent, "--out", create=False)
        if args.fit is not None:
            check_input_file(args.fit, "--fit")
        threads = _thread_counts(args.threads)
        for folder in args.calibration:
            _check_calibration_folder(folder, "--calibration")
        options = {
            "calibration": "--calibration", "variant": "--variant", "k": "-k",
            "threads": "--threads", "passes": "--passes", "seed": "--seed", "out": "--out",
            "statistic": "--statistic", "fit": "--fit", "confidence": "--confidence",
            "max_passes": "--max-passes",
            **_grid_options(sizes, option=sizes_option),
        }  # fmt: skip
        # The warnings are its measurement's (load, CPU interference).
        with _warnings_as_lines("tune"), _options_named(options):
            result = cm_measure.tune(
                stencil,
                args.calibration,
                tuple(sizes),
                variant=args.variant,
                k=args.k,
                threads=threads,
                passes=args.passes,
                seed=args.seed,
                out=args.out,
                progress=not args.json,
                statistic=args.statistic,
                fit=args.fit,
                confidence=args.confidence,
                max_passes=args.max_passes,
            )
        if args.json:
            print_json(result._asdict())
            return 0
        measured = f"measured {result.statistic}"
        rows = [["rank", "tiles", "threads", "predicted", measured, "min-max", "fastest in"]]
        for c in result.candidates:
            rows.append(
                [
                    str(c.rank), "x".join(map(str, c.tiles)), str(c.threads),
                    f"{c.predicted_s:.4g} s", f"{c.time_s:.4g} s",
                    f"{c.time_min_s:.4g}-{c.time_max_s:.4g} s", f"{100 * c.fastest_share:.0f}%",
                ]
            )  # fmt: skip
        print(_table(rows))
        for n, m in result.calibration_threads.items():
            if n != m:
                print(
                    f"note: {n}-thread times predicted with the {m}-thread calibration (n_sm={n})"
                )
        print(
            f"best: tiles {'x'.join(map(str, result.tiles))}, {result.threads} thread(s), "
            f"{result.time_s:.4g} s ({result.statistic} of {len(result.runs)} passes); "
            f"runs in {result.table}"
        )
        share = next(c.fastest_share for c in result.candidates if c.tiles == result.tiles
                     and c.threads == result.threads)  # fmt: skip
        target = cm_measure.TOLD_APART_SHARE if result.confidence is None else result.confidence
        verdict = ""
        if not result.confident:
            verdict = (
                f"; under {100 * target:.0f}%: the candidates cannot be told apart on this "
                f"machine with {result.passes} passes"
                + (" (--confidence measures more)" if result.confidence is None else "")
            )
        print(
            f"the best is the fastest in {100 * share:.0f}% of 1000 bootstrap resamples of the "
            f"passes (fastest in: the same for every candidate){verdict}"
        )
        if not result.variant.startswith("fitted-"):
            print(
                f"note: ranked by the unfitted {result.variant} variant; a ranking fitted on a "
                "sweep of this machine (--variant machine --fit SWEEP) came closer to the best "
                "on the shipped runs (docs/validate.md, 'Which ranking to tune with')"
            )
        return 0

    return run


def _pm_pct(value: Any) -> str:
    if value is None:
        return "-"
    if value == "inf":
        return "inf"
    return f"{100 * float(value):.3g}"


def _finite_or_text(value: float) -> Any:
    """JSON has no inf/NaN: inf as the string 'inf', NaN as None."""
    if value != value:
        return None
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return value


def _energy_design(args: argparse.Namespace) -> dict[str, Any]:
    from costmetrics import energy as cm_energy

    if args.out is not None:
        check_output_file(args.out, "--out")
    if args.table is not None:
        if args.flop_heavy:
            raise ValueError("--flop-heavy: adds to the synthetic grid; not with --table")
    if args.flop_heavy < 0:  # 0 (the default) adds none; a count is flop_heavy_kernel's check
        raise ValueError(f"--flop-heavy: must be >= 0 (0: none), got {args.flop_heavy}")
    if args.table is not None:
        cands = cm_energy.Candidates.from_runs(args.table)
    else:
        extra = (
            [cm_energy.flop_heavy_kernel("fadd", args.flop_heavy),
             cm_energy.flop_heavy_kernel("fmul", args.flop_heavy)]
            if args.flop_heavy else []
        )  # fmt: skip
        cands = cm_energy.synthetic_candidates(flop_heavy=extra)
    d = cm_energy.design(
        cands, args.budget, noise_sigma=args.noise, level=args.level, precision=args.precision,
        n_random=args.random, seed=args.seed, progress=not args.json,
        replicates=args.replicates,
    )  # fmt: skip
    if args.out is not None:
        plan = d.runs.simulate(noise_sigma=0.0)
        notes = ["designed runs (costmetrics energy design): energy_j is the Model A "
                 "prediction; replace time_s and energy_j with measurements"]  # fmt: skip
        if args.replicates:
            notes.append("replicates: a run listed k times is measured k times, separately")
        cm_energy.write_runs(plan, args.out, [*plan.comments, *notes])
    return {
        "budget": d.budget,
        "n_candidates": d.n_candidates,
        "noise_sigma": d.noise_sigma,
        "level": d.level,
        "precision": d.precision,
        "criterion": d.criterion,
        "targets": list(d.targets),
        "expected": [
            {
                "quantity": e.name,
                "rel_halfwidth": _finite_or_text(e.rel_halfwidth),
                "random_rel_halfwidth": _finite_or_text(e.random_rel_halfwidth),
                "determined": e.determined,
                "budget_needed": _finite_or_text(e.budget_needed),
                "budget_extrapolated": e.budget_extrapolated,
            }
            for e in d.expected.values()
        ],
        "runs_per_kernel": {k: d.runs.kernel.count(k) for k in sorted(set(d.runs.kernel))},
        "distinct_runs": len(set(d.rows.tolist())),
        "runs": [
            {
                "kernel": d.runs.kernel[i],
                "sizes": d.runs.sizes[i].tolist(),
                "tiles": d.runs.tiles[i].tolist(),
                "subtile": int(d.runs.subtile[i]),
                "time_s": float(d.runs.time_s[i]),
            }
            for i in range(len(d.runs))
        ],
    }


def _energy_options(args: argparse.Namespace) -> dict[str, str]:
    """Return the options of an ``energy`` action by the energy model's names."""
    if args.action in ("eval", "best-tiles"):
        out = {
            "kernel": "--kernel", "params": "--params", "talg_s": "--talg-s", "gpu": "--gpu",
            "stencil": "--stencil", "variant": "--variant", "within": "--within",
            "subtile": "--subtile", "subtile sS": "--subtile",
            "give exactly one of talg_s": "--talg-s/--gpu",
            **_grid_options(args.sizes, getattr(args, "tiles", None)),
        }  # fmt: skip
        if args.talg_s is not None:
            # E_static = P_stat T_alg of a valid-looking but huge --talg-s.
            out["E_alg"] = "--talg-s"
        return out
    if args.action == "fit":
        return {
            "method": "--method", "train_fraction": "--train-fraction", "seed": "--seed",
            "weighting": "--weighting", "n_boot": "--n-boot", "level": "--level",
            "max_rel_halfwidth": "--max-rel-halfwidth", "prior": "--prior",
            "params": "--prior", "prior_weight": "--prior-weight",
        }  # fmt: skip
    if args.action == "design":
        return {
            "budget": "--budget", "noise_sigma": "--noise", "level": "--level",
            "precision": "--precision", "n_random": "--random", "seed": "--seed",
            "ops_per_iteration": "--flop-heavy",
        }  # fmt: skip
    return {"params": "--params"}  # table-b3


def _add_energy(parser: argparse.ArgumentParser) -> Handler:
    """Energy of tiled loop codes, parameter fits, energy-optimal tiles (App. B)."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    def model_arguments(p: argparse.ArgumentParser, with_tiles: bool) -> None:
        p.add_argument("--kernel", required=True, help="smith_waterman, jacobi1d or jacobi2d")
        p.add_argument("--sizes", required=True, type=_int_list, help="S[,S2],T e.g. 4096,1024")
        if with_tiles:
            p.add_argument("--tiles", required=True, type=_int_list, help="tS[,tS2],tT")
        p.add_argument("--subtile", type=_int, default=None, help="sS of SW and J1D (default tS)")
        p.add_argument("--params", default="model_a", help="model_a (default) or model_b")
        p.add_argument("--talg-s", type=_float, default=None, help="measured T_alg in seconds")
        p.add_argument("--gpu", default=None, help="GPU preset: T_alg from the time model")
        p.add_argument("--stencil", default=None, help="time-model stencil (default: kernel's)")
        p.add_argument(
            "--variant",
            choices=["exact", "paper", "machine"],
            default=None,
            help="time-model variant, with --gpu (default exact)",
        )
        add_json_flag(p)

    model_arguments(actions.add_parser("eval", help="E_alg and its terms for one run"), True)
    best = actions.add_parser("best-tiles", help="tiles minimizing E_alg (Eq. B.7)")
    model_arguments(best, False)
    best.add_argument("--within", type=_float, default=0.10, help="near-optimal fraction")
    fit = actions.add_parser("fit", help="fit the parameters to a measurement CSV (B.7.1)")
    fit.add_argument("--table", required=True, type=_path, help="CSV (docs/energy.md)")
    fit.add_argument("--method", choices=["l1", "lsq"], default="l1")
    fit.add_argument("--train-fraction", type=_float, default=0.1)
    fit.add_argument("--seed", type=_int, default=0)
    fit.add_argument("--weighting", choices=["relative", "absolute"], default="relative")
    fit.add_argument("--n-boot", type=_int, default=200, help="bootstrap resamples (0: none)")
    fit.add_argument("--level", type=_float, default=0.95, help="confidence level")
    fit.add_argument(
        "--max-rel-halfwidth", type=_float, default=0.5,
        help="wider intervals are reported as not determined (default 0.5: +-50%%)",
    )  # fmt: skip
    fit.add_argument("--prior", default=None, help="prior parameters, e.g. model_a")
    fit.add_argument("--prior-weight", type=_float, default=1.0, help="weight of the prior")
    add_json_flag(fit)
    des = actions.add_parser(
        "design", help="choose the runs that best determine the parameters (before measuring)"
    )
    des.add_argument("--budget", required=True, type=_int, help="runs to choose")
    des.add_argument(
        "--table", type=_path, default=None,
        help="candidate runs: a CSV (docs/energy.md); default: the synthetic grid",
    )  # fmt: skip
    des.add_argument(
        "--flop-heavy", type=_int, default=0, metavar="N",
        help="add two hypothetical kernels with N fadd / N fmul per iteration (synthetic grid)",
    )  # fmt: skip
    des.add_argument("--noise", type=_float, default=0.03, help="relative noise of one energy")
    des.add_argument("--level", type=_float, default=0.95, help="confidence level")
    des.add_argument(
        "--precision", type=_float, default=None,
        help="relative half-width for the budget each parameter needs (default 0.5)",
    )  # fmt: skip
    des.add_argument("--random", type=_int, default=20, help="random choices to compare")
    des.add_argument(
        "--replicates", action="store_true",
        help="a run may be chosen more than once (each time one more measurement of it)",
    )  # fmt: skip
    des.add_argument("--seed", type=_int, default=0)
    des.add_argument("--out", type=_path, default=None, help="write the chosen runs as CSV")
    add_json_flag(des)
    b3 = actions.add_parser("table-b3", help="optimization error over measured tile grids")
    b3.add_argument("--table", required=True, type=_path, help="CSV (docs/energy.md)")
    b3.add_argument("--params", default="model_a", help="model_a (default) or model_b")
    add_json_flag(b3)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import energy as cm_energy

        if getattr(args, "table", None) is not None:  # fit, design, table-b3
            check_input_file(args.table, "--table")
        with _options_named(_energy_options(args)):
            if args.action in ("eval", "best-tiles"):
                if args.talg_s is not None and args.variant is not None:
                    # The time model's variant, unused with a measured T_alg: it was ignored.
                    raise ValueError("--variant: only with --gpu (--talg-s is a measured T_alg)")
                variant = "exact" if args.variant is None else args.variant
                common = {"subtile": args.subtile, "stencil": args.stencil, "variant": variant}
                if args.action == "eval":
                    b = cm_energy.breakdown(
                        args.kernel, args.gpu, args.sizes, args.tiles, params=args.params,
                        talg_s=args.talg_s, **common,
                    )  # fmt: skip
                    out: dict[str, Any] = b._asdict()
                else:
                    r = cm_energy.best_tiles(
                        args.kernel, args.gpu, args.sizes, params=args.params, talg_s=args.talg_s,
                        within=args.within, **common,
                    )  # fmt: skip
                    out = {
                        "tiles": list(r.tiles),
                        "e_alg_j": r.e_alg_j,
                        "talg_s": r.breakdown.talg_s,
                        "n_points": r.n_points,
                        "n_feasible": r.n_feasible,
                        "within": r.within,
                        "near_optimal": r.table(),
                    }
            elif args.action == "fit":
                f = cm_energy.fit(
                    args.table, method=args.method, train_fraction=args.train_fraction,
                    seed=args.seed, weighting=args.weighting, prior=args.prior,
                    prior_weight=args.prior_weight, n_boot=args.n_boot, level=args.level,
                    max_rel_halfwidth=args.max_rel_halfwidth,
                )  # fmt: skip
                out = {
                    "method": f.method,
                    "weighting": f.weighting,
                    "rank": f.rank,
                    "parameters": f.parameters,
                    "estimates": [
                        {
                            "quantity": e.name,
                            "value": e.value,
                            "low": _finite_or_text(e.low),
                            "high": _finite_or_text(e.high),
                            "rel_halfwidth": _finite_or_text(e.rel_halfwidth),
                            "determined": e.determined,
                        }
                        for e in f.estimates.values()
                    ],
                    "n_boot": f.n_boot,
                    "level": f.level,
                    "max_rel_halfwidth": f.max_rel_halfwidth,
                    "prior": None if f.prior is None else f.prior._asdict(),
                    "prior_weight": f.prior_weight,
                    "n_train": f.n_train,
                    "n_test": f.n_test,
                    "train_rmse_pct": f.train_rmse_pct,
                    "test_rmse_pct": f.test_rmse_pct,
                    "kernel_rmse_pct": f.kernel_rmse_pct,
                }
            elif args.action == "design":
                out = _energy_design(args)
            else:
                errors = cm_energy.optimization_error(args.table, params=args.params)
                out = {k: vars(v) for k, v in errors.items()}
        if args.json:
            print_json(out)
            return 0
        if args.action == "fit":
            print(
                f"{out['method']} fit ({out['weighting']} errors), rank {out['rank']}, "
                f"{out['n_train']} training runs, {out['n_boot']} bootstrap resamples"
            )
            level = f"{100 * f.level:g}% interval"
            rows = [["quantity", "value", level]]
            for e in f.estimates.values():
                interval = "-" if f.n_boot == 0 else f"[{e.low:.4g}, {e.high:.4g}]"
                if e.value is None:
                    rows.append([e.name, "not determined", interval])
                else:
                    rows.append([e.name, f"{e.value:.6g}", interval])
            rows += [[f"error {k} [RMSE %]", f"{v:.4g}", ""] for k, v in f.kernel_rmse_pct.items()]
            print(_table(rows))
            if f.n_boot:
                print(
                    f"(not determined: interval wider than +-{100 * f.max_rel_halfwidth:g}% of "
                    "the estimate; the data do not fix the value)"
                )
        elif args.action == "design":
            rows = [["quantity", "designed +-%", "random +-%", "determined", "runs needed"]]
            for e in out["expected"]:
                needed = e["budget_needed"]
                need = (
                    "never"
                    if needed == "inf"
                    else f"{needed:.0f}" + (" (extrapolated)" if e["budget_extrapolated"] else "")
                )
                rows.append([
                    e["quantity"], _pm_pct(e["rel_halfwidth"]), _pm_pct(e["random_rel_halfwidth"]),
                    "yes" if e["determined"] else "no", need,
                ])  # fmt: skip
            print(
                f"{out['budget']} of {out['n_candidates']} candidate runs; expected "
                f"{100 * out['level']:g}% intervals at {100 * out['noise_sigma']:g}% noise "
                f"(runs needed for +-{100 * out['precision']:g}%)"
            )
            print(_table(rows))
            print("chosen runs per kernel: " + ", ".join(
                f"{k} {v}" for k, v in out["runs_per_kernel"].items()
            ) + f" ({out['distinct_runs']} distinct)")  # fmt: skip
        elif args.action == "best-tiles":
            print(
                f"best tiles {tuple(out['tiles'])}: E_alg = {out['e_alg_j']:.6g} J; "
                f"{out['n_feasible']} feasible of {out['n_points']} points; "
                f"{len(out['near_optimal'])} within {100 * out['within']:g}%"
            )
        elif args.action == "eval":
            print(_table([[k, f"{v:.6g}"] for k, v in out.items()]))
        else:
            rows = [["kernel", "experiments", "wrong", "RMSE %", "max %"]]
            rows += [
                [k, str(v["n_experiments"]), str(v["n_wrong"]), f"{v['rmse_pct']:.3g}",
                 f"{v['max_pct']:.3g}"]
                for k, v in out.items()
            ]  # fmt: skip
            print(_table(rows))
        return 0

    return run


def _add_exasat(parser: argparse.ArgumentParser) -> Handler:
    """ExaSAT-style model: weighted flops, DRAM traffic, time and bytes/flop (seed 002)."""
    parser.add_argument("--kernel", help="kernel preset (see --list) or a YAML/JSON kernel file")
    parser.add_argument(
        "--machine", default="hopper", help="machine preset or YAML file (default: hopper)"
    )
    parser.add_argument(
        "--box", type=_int_list, default=[128], help="box edge or nx,ny,nz (default 128)"
    )
    parser.add_argument("--fusion", choices=["none", "simple", "aggressive"], default="none")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--block", type=_int_list, help="X/Y block: b or bx,by (default: none)")
    group.add_argument(
        "--best-block", action="store_true", help="choose the least-traffic block per loop nest"
    )
    parser.add_argument("--cache-bytes", type=_int, help="override the machine's cache size")
    policy = parser.add_mutually_exclusive_group()
    policy.add_argument("--write-allocate", dest="write_allocate", action="store_true",
                        default=None, help="stores read their line first")  # fmt: skip
    policy.add_argument("--bypass", dest="write_allocate", action="store_false",
                        help="stores bypass the cache")  # fmt: skip
    parser.add_argument(
        "--simulate", action="store_true", help="also run the LRU simulation (small boxes)"
    )
    parser.add_argument("--list", action="store_true", help="list the presets and exit")
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import exasat as ex

        if args.list:
            listing = {"kernels": ex.kernels(), "machines": ex.machines()}
            if args.json:
                print_json(listing)
            else:
                print("kernels: " + ", ".join(listing["kernels"]))
                print("machines: " + ", ".join(listing["machines"]))
            return 0
        if not args.kernel:
            raise ValueError("--kernel: required (or --list)")

        def is_file(text: str) -> bool:
            return text.endswith((".yaml", ".yml", ".json")) or os.sep in text

        # A preset file's errors name it ("path: cannot read ...", "FILE, line 3: ...").
        with _options_named({"kernel": "--kernel", "path": "--kernel"}):
            kernel = ex.load_kernel(args.kernel) if is_file(args.kernel) else ex.kernel(args.kernel)
        with _options_named({"machine": "--machine", "path": "--machine"}):
            machine = (
                ex.load_machine(args.machine).machine
                if is_file(args.machine)
                else ex.machine(args.machine)
            )
        fields = machine._asdict()
        if args.cache_bytes is not None:
            fields["cache_bytes"] = args.cache_bytes
        if args.write_allocate is not None:
            fields["write_allocate"] = args.write_allocate
        with _options_named({"cache_bytes": "--cache-bytes"}):
            machine = ex.Machine(**fields)
        if len(args.box) not in (1, 3):
            raise ValueError(f"--box: give one edge or nx,ny,nz, got {args.box}")
        box = args.box[0] if len(args.box) == 1 else tuple(args.box)
        block = None
        if args.block is not None:
            if len(args.block) not in (1, 2):
                raise ValueError(f"--block: give b or bx,by, got {args.block}")
            block = args.block[0] if len(args.block) == 1 else tuple(args.block)
        # The model names an edge of the box and the block (nx, bx); one value is every edge.
        options = {"box": "--box", "block": "--block", "fusion": "--fusion"}
        edges = (("n", "xyz", "--box", args.box), ("b", "xy", "--block", args.block))
        for letter, axes, option, values in edges:
            for i, axis in enumerate(axes):  # nx, ny, nz; bx, by
                one = values is None or len(values) == 1
                options[letter + axis] = option if one else f"{option}[{i}]"
        with _options_named(options):
            if args.best_block:
                est = ex.best_blocking(kernel, machine, box, fusion=args.fusion)
            else:
                est = ex.estimate(kernel, machine, box, fusion=args.fusion, block=block)
            sim = (
                ex.simulate(
                    kernel,
                    machine,
                    box,
                    fusion=args.fusion,
                    block=[[g.bx, g.by] for g in est.groups],
                )
                if args.simulate
                else None
            )
        groups = [
            {
                "loops": [kernel.loops[i].name for i in g.loops],
                "block": [g.bx, g.by],
                "level": ex.LEVELS[g.level],
                "ws_bytes": dict(zip(ex.LEVELS, g.ws_bytes, strict=False)),
                "weighted_flops": g.weighted_flops,
                "read_words": g.read_words,
                "write_words": g.write_words,
                "arrays": [a._asdict() for a in g.arrays],
            }
            for g in est.groups
        ]
        out: dict[str, Any] = {
            "kernel": kernel.name,
            "machine": machine._asdict(),
            "box": list(args.box) * (3 if len(args.box) == 1 else 1),
            "fusion": args.fusion,
            "weighted_flops": est.weighted_flops,
            "traffic_bytes": est.traffic_bytes,
            "read_bytes": est.read_bytes,
            "write_bytes": est.write_bytes,
            "t_compute_s": est.t_compute_s,
            "t_memory_s": est.t_memory_s,
            "t_s": est.t_s,
            "bytes_per_flop": est.bytes_per_flop,
            "groups": groups,
        }
        if sim is not None:
            out["simulation"] = sim._asdict()
        if args.json:
            print_json(out)
            return 0
        bound = "memory" if est.t_memory_s >= est.t_compute_s else "compute"
        print(
            f"{kernel.name}: C = {est.weighted_flops:.6g} weighted flops, "
            f"D = {est.traffic_bytes:.6g} bytes, B/F = {est.bytes_per_flop:.4g}"
        )
        print(
            f"T = max({est.t_compute_s:.4g}, {est.t_memory_s:.4g}) = {est.t_s:.4g} s "
            f"({bound} bound)"
        )
        rows = [["loops", "block", "level", "read words", "write words"]]
        for g in est.groups:
            rows.append(
                ["+".join(kernel.loops[i].name for i in g.loops), f"{g.bx}x{g.by}",
                 ex.LEVELS[g.level], f"{g.read_words:,}", f"{g.write_words:,}"]
            )  # fmt: skip
        print(_table(rows))
        if sim is not None:
            print(
                f"LRU simulation: {sim.traffic_bytes:,} bytes "
                f"({sim.traffic_bytes / est.traffic_bytes:.3f} x the model)"
            )
        return 0

    return run


def _area_band(text: str) -> tuple[float, float]:
    """Parse an area band ``"425,450"`` (mm^2, finite, 0 <= lo < hi; argparse ``type=``)."""
    try:
        lo, hi = (float(item) for item in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected two comma-separated numbers, got {text!r}"
        ) from None
    # Checked here: an empty or NaN band made every best-design lookup fail, which the
    # table of the best design per stencil took for "no design in the band".
    if not (math.isfinite(lo) and math.isfinite(hi) and 0 <= lo < hi):
        raise argparse.ArgumentTypeError(f"expected finite 0 <= lo < hi, got {text!r}")
    return lo, hi


def _add_area(parser: argparse.ArgumentParser) -> Handler:
    """GPU die area from the silicon-area model (App. C, Eqs. C.4-C.7)."""
    parser.add_argument("--gpu", default=None, help="reference GPU: gtx980 or titanx")
    parser.add_argument("--n-sm", type=_int, default=None, help="number of SMs")
    parser.add_argument("--n-v", type=_int, default=None, help="vector units per SM")
    parser.add_argument("--smem-kb", type=_float, default=None, help="shared memory per SM, kB")
    parser.add_argument("--regs-kb-per-vu", type=_float, default=None, help="default 2")
    parser.add_argument("--l1-kb-per-pair", type=_float, default=None, help="default 0")
    parser.add_argument("--l2-kb", type=_float, default=None, help="default 0")
    parser.add_argument("--no-caches", action="store_true", help="drop the L1 and L2 caches")
    parser.add_argument("--coefficients", choices=["structural", "rounded"], default="structural")
    parser.add_argument(
        "--validate", action="store_true", help="GTX 980 / Titan X: model vs published (C.2.3)"
    )
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import area as cm_area

        design = ("gpu", "n_sm", "n_v", "smem_kb", "regs_kb_per_vu", "l1_kb_per_pair", "l2_kb")
        given = ["--" + k.replace("_", "-") for k in design if getattr(args, k) is not None]
        if args.no_caches:
            given.append("--no-caches")
        # Each of these was ignored without a word (adversarial campaign, 2026-11-30).
        if args.validate and given:
            raise ValueError(f"--validate: compares the reference GPUs; drop {', '.join(given)}")
        if args.no_caches and (args.l1_kb_per_pair is not None or args.l2_kb is not None):
            raise ValueError("--no-caches: drops the L1 and L2; drop --l1-kb-per-pair/--l2-kb")
        if args.validate:
            rows = [{**vars(r), "error_percent": r.error_percent()} for r in cm_area.validation()]
            if args.json:
                print_json(rows)
                return 0
            table = [["gpu", "caches", "Eq. C.6", "Eq. C.7", "published", "seed", "error %"]]
            for r in rows:
                err = r["error_percent"]
                table.append(
                    [
                        r["gpu"],
                        "yes" if r["caches"] else "no",
                        f"{r['structural_mm2']:.1f}",
                        f"{r['rounded_mm2']:.1f}",
                        "-" if r["published_mm2"] is None else f"{r['published_mm2']:.0f}",
                        "-" if r["seed_mm2"] is None else f"{r['seed_mm2']:g}",
                        "-" if err is None else f"{err:+.2f}",
                    ]
                )
            print(_table(table))
            return 0
        config: dict[str, Any] = {
            "n_sm": None,
            "n_v": None,
            "smem_kb": None,
            "regs_kb_per_vu": 2.0,
            "l1_kb_per_pair": 0.0,
            "l2_kb": 0.0,
        }
        if args.gpu is not None:
            try:
                reference = cm_area.reference_gpu(args.gpu)
            except ValueError:
                # reference_gpu names its own parameter ("name: no reference GPU"); here
                # the user typed --gpu. A broken preset file raises again below, by name.
                known = sorted(cm_area.reference_gpus())
                raise ValueError(f"--gpu: no reference GPU {args.gpu!r}; known: {known}") from None
            config.update(reference.config()._asdict())
        for key in config:
            value = getattr(args, key)
            if value is not None:
                config[key] = value
        if args.no_caches:
            config.update(l1_kb_per_pair=0.0, l2_kb=0.0)
        missing = [k for k in ("n_sm", "n_v", "smem_kb") if config[k] is None]
        if missing:
            named = "/".join("--" + m.replace("_", "-") for m in missing)
            raise ValueError(f"{named}: required without --gpu (give --gpu or --n-sm, --n-v and "
                             "--smem-kb)")  # fmt: skip
        # A value of the --gpu preset is its own (checked when it loads); a bad one was typed.
        options = {k: "--" + k.replace("_", "-") for k in config}
        options["coefficients"] = "--coefficients"
        with _options_named(options):
            total = cm_area.die_area(
                config["n_sm"],
                config["n_v"],
                config["smem_kb"],
                regs_kb_per_vu=config["regs_kb_per_vu"],
                l1_kb_per_pair=config["l1_kb_per_pair"],
                l2_kb=config["l2_kb"],
                coefficients=args.coefficients,
            )
            parts = cm_area.breakdown(**config) if args.coefficients == "structural" else None
        out: dict[str, Any] = {**config, "coefficients": args.coefficients, "area_mm2": total}
        if parts is not None:
            out["breakdown"] = parts._asdict()
        if args.json:
            print_json(out)
            return 0
        print(
            f"A_tot = {total:.2f} mm^2 ({args.coefficients}, "
            f"{'Eq. C.6' if args.coefficients == 'structural' else 'Eq. C.7'})"
        )
        for key, value in out.get("breakdown", {}).items():
            print(f"  {key:18s} {value:9.2f}")
        return 0

    return run


#: Header of a design in the codesign tables, matching :func:`_design_cells`.
_DESIGN_COLUMNS: tuple[str, ...] = ("nSM", "nV", "M_SM kB", "area mm^2", "GFLOP/s")


def _design_cells(design: Mapping[str, Any]) -> list[str]:
    """Return one design's table cells (a row of ``SweepResult.table`` with ``gflops``)."""
    return [
        str(design["n_sm"]),
        str(design["n_v"]),
        str(design["smem_kb"]),
        f"{design['area_mm2']:.1f}",
        f"{design['gflops']:.1f}",
    ]


def _add_codesign(parser: argparse.ArgumentParser) -> Handler:
    """Codesign sweep: tile-optimal designs in an area budget (App. C, C.8-C.19)."""
    parser.add_argument("--workload", choices=["2d", "3d", "all"], default="2d")
    parser.add_argument("--area-min", type=_float, default=200.0, help="mm^2 (default 200)")
    parser.add_argument("--area-max", type=_float, default=650.0, help="mm^2 (default 650)")
    parser.add_argument("--variant", choices=["exact", "paper", "machine"], default="exact")
    parser.add_argument("--block-smem", choices=["half", "full", "capped"], default="half")
    limits = parser.add_argument_group(
        "thread limits",
        "an extension the seed does not state (docs/codesign.md): a tile is a block of tS2 "
        "(2D) or tS2 x tS3 (3D) threads; off unless one of these is given",
    )
    limits.add_argument(
        "--thread-limits",
        action="store_true",
        help="apply GTX 980-like limits (1024 threads/block, 2048 threads/SM, 65536 "
        "registers/SM, 32 registers/thread); the options below change one each",
    )
    limit_flags = (
        ("max_threads_per_block", "threads per block, at most (default 1024)"),
        ("max_threads_per_sm", "resident threads per SM (default 2048)"),
        ("registers_per_sm", "registers per SM (default 65536)"),
        ("registers_per_thread", "registers per thread (default 32)"),
    )
    for name, text in limit_flags:
        limits.add_argument(
            "--" + name.replace("_", "-"), type=_int, default=None, metavar="N", help=text
        )
    parser.add_argument(
        "--budget",
        type=_area_band,
        default=(425.0, 450.0),
        help="area band for the best design per stencil (Table C.2), default 425,450",
    )
    parser.add_argument("--save", type=_path, default=None, help="write the sweep to FILE.npz")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import codesign as cm_codesign

        given = {
            name: getattr(args, name) for name, _ in limit_flags if getattr(args, name) is not None
        }
        thread_limits = given if (given or args.thread_limits) else None
        if args.save is not None:
            check_output_file(args.save, "--save")  # before the sweep, not after it
        options = {
            "area_min_mm2": "--area-min", "area_max_mm2": "--area-max",
            "area range": "--area-min/--area-max", "workload": "--workload",
            "variant": "--variant", "block_smem": "--block-smem",
            **{f"ThreadLimits.{name}": "--" + name.replace("_", "-") for name, _ in limit_flags},
        }  # fmt: skip
        with _options_named(options):
            result = cm_codesign.sweep(
                args.workload,
                args.area_min,
                args.area_max,
                variant=args.variant,
                block_smem=args.block_smem,
                progress=not args.no_progress and not args.json and sys.stderr.isatty(),
                thread_limits=thread_limits,
            )
        if args.save is not None:
            result.save(args.save)
        perf = result.gflops()
        pareto = result.pareto()
        improvements = []
        for ref in ("gtx980", "titanx"):
            for caches in (True, False):
                try:
                    im = vars(result.improvement(ref, caches=caches))
                except ValueError:
                    continue
                # The best design within the reference's area among the swept ones only:
                # say which areas that was (Sec. C.4.1 compares every design up to it).
                im["searched_mm2"] = [args.area_min, min(args.area_max, im["reference_area_mm2"])]
                improvements.append(im)
        best = {}
        lo, hi = args.budget
        for stencil in result.workload.stencils:
            try:
                b = result.best((lo, hi), stencil=stencil)
            except ValueError:
                continue
            best[stencil] = {**result.table([b.row])[0], "gflops": b.gflops}
        out = {
            "workload": args.workload,
            "variant": args.variant,
            "block_smem": args.block_smem,
            "thread_limits": result.options["thread_limits"],
            "n_designs": len(result),
            "n_pareto": int(pareto.size),
            "elapsed_s": result.elapsed_s,
            "tiles_feasible": int(result.n_feasible.sum()),
            "tiles_evaluated": int(result.n_evaluated.sum()),
            "pareto": result.table(pareto.tolist()),
            "improvements": improvements,
            "best_per_stencil": best,
            "max_gflops": float(perf.max()),
        }
        if args.json:
            print_json(out)
            return 0
        print(
            f"{len(result)} designs in [{args.area_min:g}, {args.area_max:g}] mm^2, "
            f"{args.workload} workload, {args.variant} variant: {result.elapsed_s:.2f} s, "
            f"{out['tiles_evaluated']:,} of {out['tiles_feasible']:,} tile evaluations"
        )
        if out["thread_limits"] is not None:
            tl = out["thread_limits"]
            print(
                "thread limits (extension): "
                f"{tl['max_threads_per_block']} threads/block, "
                f"{tl['max_threads_per_sm']} threads/SM, {tl['registers_per_sm']} registers/SM, "
                f"{tl['registers_per_thread']} registers/thread"
            )
        print(f"Pareto-optimal designs: {pareto.size} ({100 * pareto.size / len(result):.1f}%)")
        print(_table([list(_DESIGN_COLUMNS)] + [_design_cells(r) for r in out["pareto"]]))
        for im in improvements:
            a, b = im["searched_mm2"]
            print(
                f"vs {im['reference']} ({'with' if im['caches'] else 'without'} caches, "
                f"{im['reference_area_mm2']:.1f} mm^2): {im['percent']:+.2f}%"
                + (f" (best of the swept designs in [{a:g}, {b:.1f}] mm^2)" if a > 0 else "")
            )
        if not best:
            print(
                f"best design per stencil in [{lo:g}, {hi:g}] mm^2: none, no swept design lies "
                f"there (the sweep covers [{args.area_min:g}, {args.area_max:g}] mm^2)"
            )
            return 0
        print(f"best design per stencil in [{lo:g}, {hi:g}] mm^2:")
        print(
            _table(
                [["stencil", *_DESIGN_COLUMNS]] + [[k, *_design_cells(v)] for k, v in best.items()]
            )
        )
        return 0

    return run


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on standard error and status 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``message`` as one line and exit with :data:`EXIT_USAGE`."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} -h)\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        """Parse ``args``; an argument none of this parser's options takes is an error here.

        argparse hands a subcommand's unrecognized arguments up to the top parser, whose
        error named no subcommand (``costmetrics: error: unrecognized arguments: --within
        0.1 (see costmetrics -h)``); refused by the innermost parser, the error names it
        (``costmetrics talg: error: ... (see costmetrics talg -h)``).
        """
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


#: Options whose values may start with a minus sign (comma-separated integer lists).
#: ``--sizes -5,3`` is rewritten to ``--sizes=-5,3`` before argparse sees it, so that both
#: spellings work (argparse would otherwise take ``-5,3`` for an option).
LIST_OPTIONS = ("--sizes", "--tiles", "--dims")
_NEGATIVE_VALUE = re.compile(r"^-\d")


def _join_negative_values(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in LIST_OPTIONS and i + 1 < len(argv) and _NEGATIVE_VALUE.match(argv[i + 1]):
            out.append(f"{token}={argv[i + 1]}")
            i += 2
            continue
        out.append(token)
        i += 1
    return out


def _add_spu(parser: argparse.ArgumentParser) -> Handler:
    """Stencil Processing Unit: off-chip accesses on GPU and SPU (thesis 003, Ch. 3)."""
    parser.add_argument("--n", required=True, type=_int, help="N, extent of i and j")
    parser.add_argument("--k", type=_int, default=None, help="K, extent of k (default N)")
    parser.add_argument("--tile", type=_int, default=32, help="b, tile edge (default 32)")
    parser.add_argument("--grid", type=_int, default=4, help="p, SPU has p x p SMs (default 4)")
    parser.add_argument("--subtile", type=_int, default=4, help="subtile edge (default 4)")
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import spu as cm_spu

        kw = {"k": args.k, "tile": args.tile, "grid": args.grid}
        # The model names a parameter with its symbol (n (N), tile (b)); Eq. 3.8's passes
        # and the overflow of 3 N^2 K are about two options.
        options = {
            "n": "--n", "k": "--k", "tile": "--tile", "grid": "--grid", "subtile": "--subtile",
            "off_chip": "--grid/--tile", "3 N^2": "--n" if args.k is None else "--n/--k",
        }  # fmt: skip
        with _options_named(options):
            out: dict[str, Any] = {
                "off_chip": cm_spu.off_chip(args.n, **kw)._asdict(),
                "configuration": cm_spu.configuration(args.n, subtile=args.subtile, **kw)._asdict(),
            }
        try:
            out["global_sync"] = cm_spu.global_sync(args.n, **kw)._asdict()
        except ValueError as exc:
            out["global_sync"] = None
            out["global_sync_error"] = str(exc)
        if args.json:
            print_json(out)
            return 0
        for section, values in out.items():
            if isinstance(values, dict):
                print(f"[{section}]")
                print(
                    _table(
                        [
                            [
                                name,
                                f"{v:,}"
                                if isinstance(v, int) and not isinstance(v, bool)
                                else f"{v:.6g}"
                                if isinstance(v, float)
                                else str(v),
                            ]
                            for name, v in values.items()
                        ]
                    )
                )
            elif values is not None:
                print(f"{section}: {values}")
        return 0

    return run


def _add_scratchpad(parser: argparse.ArgumentParser) -> Handler:
    """Scratchpad local arrays and tile-size search (Baskaran et al., PPoPP 2008)."""
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--example", choices=["figure1", "me", "jacobi1d"], help="one of the seed's examples"
    )
    src.add_argument("--file", type=_path, help="YAML/JSON program block or tile problem")
    parser.add_argument(
        "--reading",
        choices=["per_array", "per_partition"],
        default="per_array",
        help="local arrays per array (Fig. 1) or per partition (Algorithm 2)",
    )
    parser.add_argument(
        "--pow2", action="store_true", help="also the optimum over powers-of-two tiles"
    )
    parser.add_argument(
        "--max-points", type=_int, default=None, metavar="N",
        help="at most N (instance, reference) pairs for a program block, or N tile vectors "
        "for a tile problem's search (default: the API's, 2^24 and 5e7)",
    )  # fmt: skip
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import scratchpad as cm_sp

        # The API's own defaults unless --max-points is given (its range is the core's
        # check; its message names max_points, renamed --max-points by _options_named).
        limit: dict[str, Any] = {} if args.max_points is None else {"max_points": args.max_points}
        # A search or enumeration past its limit says "raise max_points" (integer_optimum:
        # ..., local_arrays: ...).
        options = {"max_points": "--max-points", "reading": "--reading"}
        if args.max_points is not None:
            options.update(integer_optimum="--max-points", local_arrays="--max-points")

        if args.example == "figure1":
            obj: Any = cm_sp.figure1_block()
        elif args.example == "me":
            obj = cm_sp.me_problem()
        elif args.example == "jacobi1d":
            obj = cm_sp.jacobi1d_problem()
        else:
            obj = cm_sp.load(check_input_file(args.file, "--file"))
        if isinstance(obj, list):
            with _options_named(options):
                found = cm_sp.local_arrays(obj, reading=args.reading, **limit)
            arrays = [la._asdict() for la in found]
            if args.json:
                print_json({"local_arrays": arrays})
                return 0
            cols = [
                "array",
                "partition",
                "lower",
                "upper",
                "extents",
                "size_words",
                "move_in_exact_words",
                "move_in_bound_words",
                "move_out_exact_words",
                "move_out_bound_words",
            ]
            print(_table([cols] + [[str(a[c]) for c in cols] for a in arrays]))
            return 0
        with _options_named(options):
            c = cm_sp.compare(obj, **limit)
            pow2 = (
                cm_sp.integer_optimum(obj, candidates=cm_sp.powers_of_two(obj), **limit)
                if args.pow2
                else None
            )
        result: dict[str, Any] = {
            "integer_optimum": c.integer._asdict(),
            "relaxed_tiles": list(c.relaxed.tiles),
            "relaxed_cost": c.relaxed.cost,
            "rounded_tiles": list(c.relaxed.rounded),
            "rounded": c.relaxed.rounded_evaluation._asdict(),
            "rounded_violates_memory": c.rounded_violates_memory,
            "rounding_cost_gap": c.cost_gap,
            "distance_linf": c.distance_linf,
        }
        if pow2 is not None:
            result["pow2_optimum"] = pow2._asdict()
        if args.json:
            print_json(result)
            return 0
        opt = c.integer
        print(
            f"integer optimum {tuple(opt.tiles)}: cost {opt.cost:.6g}, "
            f"{opt.memory_words:g} words ({opt.points_visited:,} tile vectors evaluated)"
        )
        ev = c.relaxed.rounded_evaluation
        print(
            f"SLSQP {tuple(round(t, 3) for t in c.relaxed.tiles)} -> rounded "
            f"{c.relaxed.rounded}: cost {ev.cost:.6g}, {ev.memory_words:g} words"
            + (" (breaks the memory limit)" if c.rounded_violates_memory else "")
            + f"; {100 * c.cost_gap:+.3f}% vs the integer optimum"
        )
        if args.pow2:
            p2 = result["pow2_optimum"]
            print(f"powers-of-two optimum {tuple(p2['tiles'])}: cost {p2['cost']:.6g}")
        return 0

    return run


def _build_parser() -> argparse.ArgumentParser:
    from costmetrics import __version__

    parser = _Parser(
        prog="costmetrics",
        description="Analytical cost models for accelerators and loop programs.",
    )
    parser.add_argument("--version", action="version", version=f"costmetrics {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)
    for name, add in SUBCOMMANDS:
        summary = add.__doc__.strip().splitlines()[0] if add.__doc__ else None
        sub_parser = sub.add_parser(name, help=summary, description=summary)
        sub_parser.prog = f"costmetrics {name}"
        sub_parser.set_defaults(handler=add(sub_parser))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``costmetrics`` command line.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success, 2 on bad input (a one-line message on standard
        error, no traceback), 130 when interrupted (SIGINT), 143 when terminated (SIGTERM).
    """
    raw = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _build_parser().parse_args(_join_negative_values(raw))
    except SystemExit as exc:  # usage errors (status 2, one line), --help, --version (0)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    handler: Handler = args.handler
    # energy's actions (eval, fit, ...) are subcommands of their own, as in argparse's errors.
    command = " ".join(filter(None, (args.command, getattr(args, "action", None))))
    try:
        with terminate_as_interrupt():
            return handler(args)
    except Terminated:
        print(f"costmetrics {command}: terminated", file=sys.stderr)
        return 143
    except BrokenPipeError:
        # The reader of our standard output went away (e.g. ``| head``): stop quietly, and
        # keep Python from failing again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (ValueError, TypeError, OverflowError, OSError) as exc:
        if not _is_bad_input(exc):
            raise  # an internal error: its traceback, not "bad input"
        message = " ".join(str(exc).split())  # one line, whatever the message holds
        print(f"costmetrics {command}: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"costmetrics {command}: interrupted", file=sys.stderr)
        return 130


def _subcommands() -> list[tuple[str, AddParser]]:
    """Every subcommand as ``(name, setup function)``, in the order ``--help`` lists them.

    ``reproduce`` and ``presets``, then each family's :attr:`~costmetrics.families.Family.commands`
    in :data:`~costmetrics.families.FAMILIES` order, set up by ``_add_<command>`` of this
    module (dashes as underscores).
    """
    out: list[tuple[str, AddParser]] = [("reproduce", _add_reproduce), ("presets", _add_presets)]
    for fam in FAMILIES:
        for command in fam.commands:
            setup = f"_add_{command.replace('-', '_')}"
            if setup not in globals():
                raise LookupError(
                    f"family {fam.name!r} lists the subcommand {command!r}, but "
                    f"costmetrics.cli defines no {setup}()"
                )
            add: AddParser = globals()[setup]
            out.append((command, add))
    return out


#: Every subcommand as ``(name, setup function)``, in the order ``--help`` lists them.
SUBCOMMANDS: list[tuple[str, AddParser]] = _subcommands()

if __name__ == "__main__":
    sys.exit(main())
