"""Benchmark: does the energy-parameter regression identify its parameters? (issue 16)

Statistics, not timing: every number below comes from SYNTHETIC tables generated from
Model A (Table B.2's micro-benchmark values) with multiplicative log-normal noise; no
measured energies exist in the project. Targets, each printed with its measured value
and PASS/FAIL:

1. No negative parameter from any method (every fit and every bootstrap refit).
2. Honest intervals: each 95% bootstrap interval contains its generating value in >= 18
   of 20 seeds at 3% noise (``synthetic_runs(seed=s)``, all 688 runs), for the L1 and the
   least-squares fit. Judged over ``--coverage-seeds`` seeds (default 100) at the same
   fraction (>= 90%): with exactly calibrated 95% intervals a 20-seed count falls below
   18 for one quantity in 7.5% of trials, and for at least one of the 12 quantity-method
   pairs in about 60% (``docs/energy.md``), so 20 seeds cannot judge the target.
   The count over seeds 0-19 (the issue's literal check) is printed beside it.
3. An interval wider than +-50% is reported as not determined: its value is None in
   ``FitResult.parameters`` and absent from the CLI table.
4. Designed experiment vs random choice at equal budget (100 runs from the candidate set
   of every tile of each kernel's synthetic space at the synthetic sizes, 1782 runs):
   median 95% interval widths (bootstrap, L1 fits of simulated measurements, 20 seeds)
   of e_sr and e_iadd + e_imax >= 2x narrower with the designed runs; P_stat and e_gs
   within 5% of their generating values in >= 18 of 20 designed fits. The designed runs
   are ``design(..., replicates=True)``'s (a run may be measured more than once, each
   time with its own noise; the random choices are 100 distinct runs); the design of
   100 distinct runs is printed beside it, and the coverage of the designed intervals.
   Printed for information: the same with bounded least squares, and the ratios expected
   before measuring (what ``design`` reports).
5. Held-out prediction error (Table B.2's metric): relative RMSE of predicted energy on
   the 90% of runs not used in the fit, within 1.2x the noise level, for the L1 and
   least-squares fits (Model A, the generating model, shown for reference), at several
   noise levels.

Run: ``python benchmarks/bench_energy_fit.py`` (full: 100 coverage seeds, 20 design
seeds, 400 resamples; about 14 minutes on the loaded 2-core machine) or ``--quick`` (CI: 3 seeds,
50 resamples; only reports). ``--only coverage|design|heldout`` runs one part (the
no-negative target is checked over whatever ran). ``--json`` prints the measured values
as JSON. Exit status 1 if a target fails in a full run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import sys
from typing import Any

import numpy as np

from costmetrics import energy as en

SUM = "e_iadd_j + e_imax_j"
QUANTITIES = ("p_stat_w", "e_gs_j", "e_sr_j", "e_fadd_j", "e_fmul_j", SUM)


def generating() -> dict[str, float]:
    a = en.parameters("model_a")
    out = {n: float(getattr(a, n)) for n in QUANTITIES[:5]}
    out[SUM] = float(a.e_iadd_j + a.e_imax_j)
    return out


def check(results: list[dict[str, Any]], name: str, measured: str, ok: bool) -> None:
    results.append({"target": name, "measured": measured, "pass": bool(ok)})
    print(f"[{'PASS' if ok else 'FAIL'}] {name}: {measured}", flush=True)


def cli_table_text(table: en.Runs) -> str:
    """What ``costmetrics energy fit`` prints for a table (through the CLI's own code)."""
    import tempfile
    from pathlib import Path

    from costmetrics.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        path = en.write_runs(table, Path(tmp) / "runs.csv", table.comments)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["energy", "fit", "--table", str(path), "--train-fraction", "1", "--n-boot", "50"])
    return out.getvalue()


class Bench:
    def __init__(self, n_seeds: int, n_coverage: int, n_boot: int, quick: bool) -> None:
        self.n_seeds, self.n_coverage, self.n_boot, self.quick = n_seeds, n_coverage, n_boot, quick
        self.truth = generating()
        self.results: list[dict[str, Any]] = []
        self.min_param = math.inf

    def _seen(self, *arrays: np.ndarray) -> None:
        for a in arrays:
            if a.size:
                self.min_param = min(self.min_param, float(a.min()))

    def coverage(self) -> None:
        """Targets 2 and 3: coverage and the 'not determined' rule, all 688 runs, 3%."""
        n = self.n_coverage
        need = math.ceil(0.9 * n)
        flagged_ok = True
        n_flagged = 0
        for method in ("l1", "lsq"):
            covered = {q: np.zeros(n, dtype=bool) for q in QUANTITIES}
            determined = dict.fromkeys(QUANTITIES, 0)
            for seed in range(n):
                runs = en.synthetic_runs(seed=seed, noise_sigma=0.03)
                r = en.fit(runs, method=method, train_fraction=1.0, n_boot=self.n_boot, seed=seed)
                self._seen(r.solution, r.boot_solutions)
                for q in QUANTITIES:
                    e = r.estimates[q]
                    covered[q][seed] = e.low <= self.truth[q] <= e.high
                    determined[q] += int(e.determined)
                    wide = e.rel_halfwidth > 0.5
                    n_flagged += int(wide)
                    if wide and (e.determined or e.value is not None):
                        flagged_ok = False
                    if q in r.parameters and wide and r.parameters[q] is not None:
                        flagged_ok = False
            counts = {q: int(v.sum()) for q, v in covered.items()}
            text = ", ".join(f"{q} {counts[q]}/{n}" for q in QUANTITIES)
            name = (f"95% interval coverage, {method}, 3% noise, all runs (>= 90%: "
                    f">= {need}/{n} each)")  # fmt: skip
            check(self.results, name, text, min(counts.values()) >= need)
            m = min(n, 20)
            print(f"       seeds 0-{m - 1} (the issue's literal 20-seed count, >= 18/20): "
                  + ", ".join(f"{q} {int(covered[q][:m].sum())}/{m}" for q in QUANTITIES),
                  flush=True)  # fmt: skip
            text = ", ".join(f"{q} {determined[q]}/{n}" for q in QUANTITIES)
            print(f"       determined (+-50%) in: {text}", flush=True)
        # The CLI never prints an undetermined value: it prints 'not determined' instead.
        runs = en.synthetic_runs(seed=0, noise_sigma=0.03)
        r = en.fit(runs, method="l1", train_fraction=1.0, n_boot=50)
        text = cli_table_text(runs)
        for e in r.estimates.values():
            line = next((ln for ln in text.splitlines() if ln.startswith(e.name + " ")), "")
            if e.rel_halfwidth > 0.5 and "not determined" not in line:
                flagged_ok = False
        check(self.results, "interval wider than +-50% reported as not determined (fits and CLI)",
              f"{n_flagged} wide intervals, all flagged: {flagged_ok}", flagged_ok)  # fmt: skip

    def design(self) -> None:
        """Target 4: designed vs random at budget 100."""
        n_seeds, n_boot, truth = self.n_seeds, self.n_boot, self.truth
        need = math.ceil(0.9 * n_seeds)
        cands = en.synthetic_candidates()
        d = en.design(cands, 100, noise_sigma=0.03, seed=0, replicates=True)
        distinct = en.design(cands, 100, noise_sigma=0.03, seed=0)
        keys = ("designed", "random", "distinct", "designed_lsq", "random_lsq", "distinct_lsq")
        widths: dict[str, dict[str, list[float]]] = {k: {} for k in keys}
        close = 0
        covered = {q: 0 for q in ("e_sr_j", SUM)}
        for seed in range(n_seeds):
            rng = np.random.default_rng([seed, 99])
            choices = {
                "designed": d.rows,
                "random": rng.choice(len(cands), size=100, replace=False),
                "distinct": distinct.rows,
            }
            for label, rows in choices.items():
                runs = cands.select(rows).simulate(0.03, seed=1000 + seed)
                # L1 (the seed's objective) is the target; bounded least squares for information.
                lsq = en.fit(runs, method="lsq", train_fraction=1.0, n_boot=n_boot, seed=seed)
                r = en.fit(runs, method="l1", train_fraction=1.0, n_boot=n_boot, seed=seed)
                for fitted, key in ((r, label), (lsq, label + "_lsq")):
                    self._seen(fitted.solution, fitted.boot_solutions)
                    for q in ("e_sr_j", SUM, "p_stat_w", "e_gs_j"):
                        est = fitted.estimates.get(q)
                        width = math.inf if est is None else (est.high - est.low) / truth[q]
                        widths[key].setdefault(q, []).append(width)
                if label == "designed":
                    p, g = r.solution[0], r.solution[1]
                    close += int(abs(p / truth["p_stat_w"] - 1) <= 0.05
                                 and abs(g / truth["e_gs_j"] - 1) <= 0.05)  # fmt: skip
                    for q in covered:
                        est = r.estimates.get(q)
                        covered[q] += int(est is not None and est.low <= truth[q] <= est.high)
        ratios = {
            q: float(np.median(widths["random"][q]) / np.median(widths["designed"][q]))
            for q in ("e_sr_j", SUM, "p_stat_w", "e_gs_j")
        }
        kinds = {k: d.runs.kernel.count(k) for k in sorted(set(d.runs.kernel))}
        print(f"       designed runs per kernel: {kinds}, {len(set(d.rows.tolist()))} distinct "
              "(replicates allowed)", flush=True)  # fmt: skip
        print(
            "       (information) 100 distinct designed runs vs random: "
            + ", ".join(
                f"{q} {np.median(widths['random'][q]) / np.median(widths['distinct'][q]):.2f}x"
                for q in ("e_sr_j", SUM)
            )
            + "; the replicated design's intervals containing the generating value: "
            + ", ".join(f"{q} {n}/{n_seeds}" for q, n in covered.items()),
            flush=True,
        )
        print(
            "       median 95% interval width / generating value, designed vs random: "
            + ", ".join(
                f"{q} {np.median(widths['designed'][q]):.3f} vs "
                f"{np.median(widths['random'][q]):.3f}"
                for q in ratios
            ),
            flush=True,
        )
        lsq_ratios = {
            q: float(np.median(widths["random_lsq"][q]) / np.median(widths["designed_lsq"][q]))
            for q in ("e_sr_j", SUM)
        }
        expected_ratios = {
            q: d.expected[q].random_rel_halfwidth / d.expected[q].rel_halfwidth
            for q in ("e_sr_j", SUM)
        }
        print(
            "       (information) same comparison with bounded least squares: "
            + ", ".join(f"{q} {v:.2f}x" for q, v in lsq_ratios.items())
            + "; expected before measuring (unbounded, median of 20 random choices): "
            + ", ".join(f"{q} {v:.2f}x" for q, v in expected_ratios.items()),
            flush=True,
        )
        check(self.results, "designed vs random (100 runs): e_sr interval >= 2x narrower",
              f"{ratios['e_sr_j']:.2f}x", ratios["e_sr_j"] >= 2.0)  # fmt: skip
        name = "designed vs random (100 runs): e_iadd + e_imax interval >= 2x narrower"
        check(self.results, name, f"{ratios[SUM]:.2f}x", ratios[SUM] >= 2.0)
        check(self.results, f"designed: P_stat and e_gs within 5% (>= {need}/{n_seeds})",
              f"{close}/{n_seeds}", close >= need)  # fmt: skip
        expected = {q: d.expected[q] for q in ("e_sr_j", SUM)}
        print(
            "       expected before measuring (+-%, designed vs random): "
            + ", ".join(
                f"{q} {100 * e.rel_halfwidth:.1f} vs {100 * e.random_rel_halfwidth:.1f}"
                for q, e in expected.items()
            ),
            flush=True,
        )

    def heldout(self) -> None:
        """Target 5: held-out RMSE at several noise levels (10% training split, as the seed)."""
        held_seeds = range(2 if self.quick else 5)
        x_a = np.asarray([getattr(en.parameters("model_a"), n) for n in en.PARAM_NAMES])
        for sigma in (0.01, 0.03, 0.05, 0.10):
            rmse: dict[str, list[float]] = {"model_a": [], "l1": [], "lsq": []}
            for seed in held_seeds:
                runs = en.synthetic_runs(seed=seed, noise_sigma=sigma)
                for method in ("l1", "lsq"):
                    r = en.fit(runs, method=method, train_fraction=0.1, seed=seed, n_boot=0)  # type: ignore[arg-type]
                    self._seen(r.solution)
                    assert r.test_rmse_pct is not None
                    rmse[method].append(r.test_rmse_pct)
                    if method == "l1":
                        test = np.setdiff1d(np.arange(len(runs)), r.train_rows)
                        pred = en.design_matrix(runs.select(test)) @ x_a
                        meas = runs.energy_j[test]
                        rmse["model_a"].append(
                            float(100 * np.sqrt(np.mean(((pred - meas) / meas) ** 2)))
                        )
            mean = {k: float(np.mean(v)) for k, v in rmse.items()}
            ratio = max(mean["l1"], mean["lsq"]) / (100 * sigma)
            check(self.results,
                  f"held-out RMSE at {100 * sigma:g}% noise within 1.2x the noise (L1, LSQ)",
                  f"Model A {mean['model_a']:.2f}%, L1 {mean['l1']:.2f}%, LSQ {mean['lsq']:.2f}% "
                  f"(worst {ratio:.2f}x)", ratio <= 1.2)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 seeds, 50 resamples (CI)")
    parser.add_argument("--json", action="store_true", help="also print the results as JSON")
    parser.add_argument("--only", action="append", choices=("coverage", "design", "heldout"),
                        help="run only this part (repeatable)")  # fmt: skip
    parser.add_argument("--coverage-seeds", type=int, default=None,
                        help="seeds of the coverage target (default 100; --quick 3)")  # fmt: skip
    args = parser.parse_args(argv)
    n_seeds = 3 if args.quick else 20
    n_coverage = args.coverage_seeds if args.coverage_seeds else (3 if args.quick else 100)
    if n_coverage < 1:
        parser.error(f"--coverage-seeds must be >= 1, got {n_coverage}")
    n_boot = 50 if args.quick else 400
    parts = args.only or ["coverage", "design", "heldout"]
    bench = Bench(n_seeds, n_coverage, n_boot, args.quick)
    print(
        f"SYNTHETIC tables (Model A + log-normal noise), {n_coverage} coverage seeds, "
        f"{n_seeds} design seeds, {n_boot} bootstrap resamples per fit; not measurements",
        flush=True,
    )
    for part in ("coverage", "design", "heldout"):
        if part in parts:
            getattr(bench, part)()
    check(bench.results, "no negative parameter from any method (fits and bootstrap refits)",
          f"smallest value {bench.min_param:.3g}", bench.min_param >= 0.0)  # fmt: skip
    if args.json:
        json.dump(bench.results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 0 if args.quick or all(r["pass"] for r in bench.results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
