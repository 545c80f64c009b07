"""The ``costmetrics`` command-line tool.

Usage: ``costmetrics [--version] SUBCOMMAND [options]``; ``costmetrics SUBCOMMAND -h``
describes each subcommand.

Adding a subcommand
-------------------
Each model family adds its subcommands with one self-contained function per subcommand
and one line in :data:`SUBCOMMANDS` at the bottom of this file::

    def _add_chain(parser: argparse.ArgumentParser) -> Handler:
        '''Optimal parenthesization of a matrix chain.'''  # first line: the help text
        parser.add_argument("dims", type=int, nargs="+", help="matrix dimensions")
        add_json_flag(parser)

        def run(args: argparse.Namespace) -> int:
            result = ...                       # call the public Python API
            if args.json:
                print_json(result_as_dict)
            else:
                print(...)
            return 0

        return run

    SUBCOMMANDS = [..., ("chain", _add_chain)]

The function receives its own (already created) sub-parser, adds its arguments, and
returns the handler that runs it. Conventions: import heavy modules inside ``run``;
``--json`` (via :func:`add_json_flag`) prints machine-readable output, and nothing else,
on standard output; progress bars go to standard error; raise ``ValueError`` for bad
input: :func:`main` prints it as one line on standard error and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

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


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON on standard output.

    Paths and other non-JSON objects are written as strings; NumPy scalars and arrays
    should be converted by the caller (``.item()`` / ``.tolist()``).

    Parameters
    ----------
    obj : Any
        A JSON-serializable object (dicts, lists, numbers, strings, None).
    """
    json.dump(obj, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")


def _table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows
    )


# --------------------------------------------------------------------------------------
# Subcommands
# --------------------------------------------------------------------------------------


def _add_reproduce(parser: argparse.ArgumentParser) -> Handler:
    """Regenerate figures and tables; report them beside the seeds' values."""
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=Path,
        default=Path("results"),
        help="output folder for figures, tables and report.md/report.json (default: results)",
    )
    parser.add_argument(
        "--only",
        metavar="NAME",
        nargs="+",
        help="run only these experiments (default: all)",
    )
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics.reproduce import reproduce

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


def _build_parser() -> argparse.ArgumentParser:
    from costmetrics import __version__

    parser = argparse.ArgumentParser(
        prog="costmetrics",
        description="Analytical cost models for accelerators and loop programs.",
    )
    parser.add_argument("--version", action="version", version=f"costmetrics {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)
    for name, add in SUBCOMMANDS:
        summary = add.__doc__.strip().splitlines()[0] if add.__doc__ else None
        sub_parser = sub.add_parser(name, help=summary, description=summary)
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
        error, no traceback), 130 when interrupted.
    """
    args = _build_parser().parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except BrokenPipeError:
        # The reader of our standard output went away (e.g. ``| head``): stop quietly, and
        # keep Python from failing again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (ValueError, OSError) as exc:
        print(f"costmetrics {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"costmetrics {args.command}: interrupted", file=sys.stderr)
        return 130


#: Every subcommand as ``(name, setup function)``, in the order ``--help`` lists them.
#: Model families append theirs here (see the module docstring).
SUBCOMMANDS: list[tuple[str, AddParser]] = [
    ("reproduce", _add_reproduce),
    ("presets", _add_presets),
]


if __name__ == "__main__":
    sys.exit(main())
