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


def _int_list(text: str) -> list[int]:
    """Parse ``"8192,8192,8192"`` into integers (argparse ``type=``)."""
    try:
        return [int(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from None


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
    parser.add_argument("--variant", choices=["paper", "exact"], default="paper")
    add_json_flag(parser)


def _add_talg(parser: argparse.ArgumentParser) -> Handler:
    """Predicted execution time T_alg of a tiled stencil and its breakdown (App. A)."""
    _add_time_arguments(parser, with_tiles=True)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import time as cm_time

        b = cm_time.breakdown(args.stencil, args.gpu, args.sizes, args.tiles, args.variant)
        if args.json:
            print_json(b.to_dict())
        else:
            print(_table([[name, f"{value:.6g}"] for name, value in b.to_dict().items()]))
        return 0

    return run


def _add_best_tiles(parser: argparse.ArgumentParser) -> Handler:
    """Exhaustive search for the tile sizes minimizing T_alg (Eq. A.32)."""
    _add_time_arguments(parser, with_tiles=False)
    parser.add_argument(
        "--within", type=float, default=0.10, help="near-optimal fraction (default 0.10)"
    )

    def run(args: argparse.Namespace) -> int:
        from costmetrics import time as cm_time

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
                    "near_optimal": best.table(),
                }
            )
            return 0
        print(
            f"best tiles {best.tiles}: T_alg = {best.talg_s:.6g} s "
            f"(T_ideal = {best.breakdown.t_ideal_s:.6g} s); "
            f"{best.n_feasible} feasible of {best.n_points} points"
        )
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
        "--M", type=int, default=None, help="on-chip capacity in words (omit: op count only)"
    )
    parser.add_argument("--beta", choices=["printed", "derived"], default="printed")
    parser.add_argument(
        "--pareto", action="store_true", help="also the joint (ops, words) Pareto front"
    )
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import chain as cm_chain

        order = cm_chain.optimal_order(args.dims)
        out: dict[str, Any] = {"op_count": order.cost, "parenthesization": order.parenthesization}
        dm = None if args.M is None else cm_chain.data_movement(args.dims, args.M, beta=args.beta)
        if dm is not None:
            out.update({k: v for k, v in dm.to_dict().items() if k != "parenthesization"})
        if args.pareto:
            if args.M is None:
                raise ValueError("--pareto needs --M")
            front = cm_chain.pareto_front(args.dims, args.M, beta=args.beta)
            out["pareto_front"] = [vars(p) for p in front]
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


def _add_spu(parser: argparse.ArgumentParser) -> Handler:
    """Stencil Processing Unit: off-chip accesses on GPU and SPU (thesis 003, Ch. 3)."""
    parser.add_argument("--n", required=True, type=int, help="N, extent of i and j")
    parser.add_argument("--k", type=int, default=None, help="K, extent of k (default N)")
    parser.add_argument("--tile", type=int, default=32, help="b, tile edge (default 32)")
    parser.add_argument("--grid", type=int, default=4, help="p, SPU has p x p SMs (default 4)")
    parser.add_argument("--subtile", type=int, default=4, help="subtile edge (default 4)")
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import spu as cm_spu

        kw = {"k": args.k, "tile": args.tile, "grid": args.grid}
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
    src.add_argument("--file", type=Path, help="YAML/JSON program block or tile problem")
    parser.add_argument(
        "--reading",
        choices=["per_array", "per_partition"],
        default="per_array",
        help="local arrays per array (Fig. 1) or per partition (Algorithm 2)",
    )
    parser.add_argument(
        "--pow2", action="store_true", help="also the optimum over powers-of-two tiles"
    )
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import scratchpad as cm_sp

        if args.example == "figure1":
            obj: Any = cm_sp.figure1_block()
        elif args.example == "me":
            obj = cm_sp.me_problem()
        elif args.example == "jacobi1d":
            obj = cm_sp.jacobi1d_problem()
        else:
            obj = cm_sp.load(args.file)
        if isinstance(obj, list):
            arrays = [la._asdict() for la in cm_sp.local_arrays(obj, reading=args.reading)]
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
        c = cm_sp.compare(obj)
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
        if args.pow2:
            result["pow2_optimum"] = cm_sp.integer_optimum(
                obj, candidates=cm_sp.powers_of_two(obj)
            )._asdict()
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
    except (ValueError, OverflowError, OSError) as exc:
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
    ("talg", _add_talg),
    ("best-tiles", _add_best_tiles),
    ("chain", _add_chain),
    ("spu", _add_spu),
    ("scratchpad", _add_scratchpad),
]


if __name__ == "__main__":
    sys.exit(main())
