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


def _add_energy(parser: argparse.ArgumentParser) -> Handler:
    """Energy of tiled loop codes, parameter fits, energy-optimal tiles (App. B)."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    def model_arguments(p: argparse.ArgumentParser, with_tiles: bool) -> None:
        p.add_argument("--kernel", required=True, help="smith_waterman, jacobi1d or jacobi2d")
        p.add_argument("--sizes", required=True, type=_int_list, help="S[,S2],T e.g. 4096,1024")
        if with_tiles:
            p.add_argument("--tiles", required=True, type=_int_list, help="tS[,tS2],tT")
        p.add_argument("--subtile", type=int, default=None, help="sS of SW and J1D (default tS)")
        p.add_argument("--params", default="model_a", help="model_a (default) or model_b")
        p.add_argument("--talg-s", type=float, default=None, help="measured T_alg in seconds")
        p.add_argument("--gpu", default=None, help="GPU preset: T_alg from the time model")
        p.add_argument("--stencil", default=None, help="time-model stencil (default: kernel's)")
        p.add_argument("--variant", choices=["paper", "exact"], default="paper")
        add_json_flag(p)

    model_arguments(actions.add_parser("eval", help="E_alg and its terms for one run"), True)
    best = actions.add_parser("best-tiles", help="tiles minimizing E_alg (Eq. B.7)")
    model_arguments(best, False)
    best.add_argument("--within", type=float, default=0.10, help="near-optimal fraction")
    fit = actions.add_parser("fit", help="fit the parameters to a measurement CSV (B.7.1)")
    fit.add_argument("--table", required=True, type=Path, help="CSV (docs/energy-model.md)")
    fit.add_argument("--method", choices=["l1", "lsq"], default="l1")
    fit.add_argument("--train-fraction", type=float, default=0.1)
    fit.add_argument("--seed", type=int, default=0)
    fit.add_argument("--weighting", choices=["absolute", "relative"], default="absolute")
    add_json_flag(fit)
    b3 = actions.add_parser("table-b3", help="optimization error over measured tile grids")
    b3.add_argument("--table", required=True, type=Path, help="CSV (docs/energy-model.md)")
    b3.add_argument("--params", default="model_a", help="model_a (default) or model_b")
    add_json_flag(b3)

    def run(args: argparse.Namespace) -> int:
        from costmetrics import energy as cm_energy

        if args.action in ("eval", "best-tiles"):
            common = {"subtile": args.subtile, "stencil": args.stencil, "variant": args.variant}
            if args.action == "eval":
                b = cm_energy.breakdown(
                    args.kernel, args.sizes, args.tiles, args.params, args.talg_s, args.gpu,
                    **common,
                )  # fmt: skip
                out: dict[str, Any] = b._asdict()
            else:
                r = cm_energy.best_tiles(
                    args.kernel, args.sizes, args.params, gpu=args.gpu, talg_s=args.talg_s,
                    within=args.within, **common,
                )  # fmt: skip
                out = {
                    "tiles": list(r.tiles),
                    "e_alg_j": r.e_alg_j,
                    "talg_s": r.breakdown.talg_s,
                    "n_points": r.n_points,
                    "n_feasible": r.n_feasible,
                    "within": r.within,
                    "near_optimal": [
                        {"tiles": [int(v) for v in t], "e_alg_j": float(e)}
                        for t, e in zip(r.near_optimal, r.near_optimal_e_j)
                    ],
                }
        elif args.action == "fit":
            f = cm_energy.fit(
                args.table, method=args.method, train_fraction=args.train_fraction,
                seed=args.seed, weighting=args.weighting,
            )  # fmt: skip
            out = {
                "method": f.method,
                "rank": f.rank,
                "parameters": f.parameters,
                "combinations": [{"text": c.text, "value": c.value} for c in f.combinations],
                "n_train": f.n_train,
                "n_test": f.n_test,
                "train_rmse_pct": f.train_rmse_pct,
                "test_rmse_pct": f.test_rmse_pct,
                "kernel_rmse_pct": f.kernel_rmse_pct,
            }
        else:
            errors = cm_energy.optimization_error(args.table, args.params)
            out = {k: vars(v) for k, v in errors.items()}
        if args.json:
            print_json(out)
            return 0
        if args.action == "fit":
            print(f"{out['method']} fit, rank {out['rank']}, {out['n_train']} training runs")
            rows = [[c["text"], f"{c['value']:.6g}"] for c in out["combinations"]]
            rows += [[f"error {k} [RMSE %]", f"{v:.4g}"] for k, v in f.kernel_rmse_pct.items()]
            print(_table(rows))
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
    parser.add_argument("--cache-bytes", type=int, help="override the machine's cache size")
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
            raise ValueError("--kernel is required (or --list)")

        def is_file(text: str) -> bool:
            return text.endswith((".yaml", ".yml", ".json")) or os.sep in text

        kernel = ex.load_kernel(args.kernel) if is_file(args.kernel) else ex.kernel(args.kernel)
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
        machine = ex.Machine(**fields)
        if len(args.box) not in (1, 3):
            raise ValueError(f"--box: give one edge or nx,ny,nz, got {args.box}")
        box = args.box[0] if len(args.box) == 1 else tuple(args.box)
        block = None
        if args.block is not None:
            if len(args.block) not in (1, 2):
                raise ValueError(f"--block: give b or bx,by, got {args.block}")
            block = args.block[0] if len(args.block) == 1 else tuple(args.block)
        if args.best_block:
            est = ex.best_blocking(kernel, machine, box, fusion=args.fusion)
        else:
            est = ex.estimate(kernel, machine, box, fusion=args.fusion, block=block)
        sim = (
            ex.simulate(
                kernel, machine, box, fusion=args.fusion, block=[[g.bx, g.by] for g in est.groups]
            )
            if args.simulate
            else None
        )
        groups = [
            {
                "loops": [kernel.loops[i].name for i in g.loops],
                "block": [g.bx, g.by],
                "level": ex.LEVELS[g.level],
                "ws_bytes": dict(zip(ex.LEVELS, g.ws_bytes)),
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
    ("energy", _add_energy),
    ("exasat", _add_exasat),
]


if __name__ == "__main__":
    sys.exit(main())
