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


def _add_area(parser: argparse.ArgumentParser) -> Handler:
    """GPU die area from the silicon-area model (App. C, Eqs. C.4-C.7)."""
    parser.add_argument("--gpu", default=None, help="reference GPU: gtx980 or titanx")
    parser.add_argument("--n-sm", type=int, default=None, help="number of SMs")
    parser.add_argument("--n-v", type=int, default=None, help="vector units per SM")
    parser.add_argument("--smem-kb", type=float, default=None, help="shared memory per SM, kB")
    parser.add_argument("--regs-kb-per-vu", type=float, default=None, help="default 2")
    parser.add_argument("--l1-kb-per-pair", type=float, default=None, help="default 0")
    parser.add_argument("--l2-kb", type=float, default=None, help="default 0")
    parser.add_argument("--no-caches", action="store_true", help="drop the L1 and L2 caches")
    parser.add_argument("--coefficients", choices=["structural", "rounded"], default="structural")
    parser.add_argument(
        "--validate", action="store_true", help="GTX 980 / Titan X: model vs published (C.2.3)"
    )
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import area as cm_area

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
            ref = cm_area.reference_gpu(args.gpu)
            config.update(
                n_sm=ref.n_sm,
                n_v=ref.n_v,
                smem_kb=ref.smem_kb,
                regs_kb_per_vu=ref.regs_kb_per_vu,
                l1_kb_per_pair=ref.l1_kb_per_pair,
                l2_kb=ref.l2_kb,
            )
        for key in config:
            value = getattr(args, key)
            if value is not None:
                config[key] = value
        if args.no_caches:
            config.update(l1_kb_per_pair=0.0, l2_kb=0.0)
        missing = [k for k in ("n_sm", "n_v", "smem_kb") if config[k] is None]
        if missing:
            raise ValueError(
                "give --gpu or --n-sm, --n-v and --smem-kb (missing: "
                + ", ".join("--" + m.replace("_", "-") for m in missing)
                + ")"
            )
        total = cm_area.die_area(
            config["n_sm"],
            config["n_v"],
            config["smem_kb"],
            regs_kb_per_vu=config["regs_kb_per_vu"],
            l1_kb_per_pair=config["l1_kb_per_pair"],
            l2_kb=config["l2_kb"],
            coefficients=args.coefficients,
        )
        out: dict[str, Any] = {**config, "coefficients": args.coefficients, "area_mm2": total}
        if args.coefficients == "structural":
            out["breakdown"] = cm_area.breakdown(**config)._asdict()
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


def _add_codesign(parser: argparse.ArgumentParser) -> Handler:
    """Codesign sweep: tile-optimal designs in an area budget (App. C, C.8-C.19)."""
    parser.add_argument("--workload", choices=["2d", "3d", "all"], default="2d")
    parser.add_argument("--area-min", type=float, default=200.0, help="mm^2 (default 200)")
    parser.add_argument("--area-max", type=float, default=650.0, help="mm^2 (default 650)")
    parser.add_argument("--variant", choices=["paper", "exact"], default="paper")
    parser.add_argument("--block-smem", choices=["half", "full", "capped"], default="half")
    parser.add_argument(
        "--budget",
        type=_float_pair,
        default=(425.0, 450.0),
        help="area band for the best design per stencil (Table C.2), default 425,450",
    )
    parser.add_argument("--save", type=Path, default=None, help="write the sweep to FILE.npz")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_json_flag(parser)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import codesign as cm_codesign

        result = cm_codesign.sweep(
            args.workload,
            args.area_min,
            args.area_max,
            variant=args.variant,
            block_smem=args.block_smem,
            progress=not args.no_progress and not args.json and sys.stderr.isatty(),
        )
        if args.save is not None:
            result.save(args.save)
        perf = result.gflops()
        pareto = result.pareto()
        improvements = []
        for ref in ("gtx980", "titanx"):
            for caches in (True, False):
                try:
                    improvements.append(vars(result.improvement(ref, caches=caches)))
                except ValueError:
                    pass
        best = {}
        lo, hi = args.budget
        for stencil in result.workload.stencils:
            try:
                row = result.best((lo, hi), stencil=stencil)
            except ValueError:
                continue
            best[stencil] = {
                **result.table([row])[0],
                "gflops": float(result.gflops({stencil: 1.0})[row]),
            }
        out = {
            "workload": args.workload,
            "variant": args.variant,
            "block_smem": args.block_smem,
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
        print(f"Pareto-optimal designs: {pareto.size} ({100 * pareto.size / len(result):.1f}%)")
        print(
            _table(
                [["nSM", "nV", "M_SM kB", "area mm^2", "GFLOP/s"]]
                + [
                    [
                        str(r["n_sm"]),
                        str(r["n_v"]),
                        str(r["smem_kb"]),
                        f"{r['area_mm2']:.1f}",
                        f"{r['gflops']:.1f}",
                    ]
                    for r in out["pareto"]
                ]
            )
        )
        for im in improvements:
            print(
                f"vs {im['reference']} ({'with' if im['caches'] else 'without'} caches, "
                f"{im['reference_area_mm2']:.1f} mm^2): {im['percent']:+.2f}%"
            )
        print(f"best design per stencil in [{lo:g}, {hi:g}] mm^2:")
        print(
            _table(
                [["stencil", "nSM", "nV", "M_SM kB", "area mm^2", "GFLOP/s"]]
                + [
                    [
                        k,
                        str(v["n_sm"]),
                        str(v["n_v"]),
                        str(v["smem_kb"]),
                        f"{v['area_mm2']:.1f}",
                        f"{v['gflops']:.1f}",
                    ]
                    for k, v in best.items()
                ]
            )
        )
        return 0

    return run


def _float_pair(text: str) -> tuple[float, float]:
    """Parse ``"425,450"`` into two floats (argparse ``type=``)."""
    try:
        lo, hi = (float(item) for item in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected two comma-separated numbers, got {text!r}"
        ) from None
    return lo, hi


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
    ("area", _add_area),
    ("codesign", _add_codesign),
]


if __name__ == "__main__":
    sys.exit(main())
