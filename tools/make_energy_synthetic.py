"""Regenerate data/energy/synthetic_model_a_runs.csv (SYNTHETIC, not measured).

Usage: python tools/make_energy_synthetic.py [OUTPUT]

The table comes from costmetrics.energy.synthetic_runs with its default seed and noise
(docs/energy.md); tests/test_energy.py checks that the shipped file matches.
"""

from __future__ import annotations

import sys
from pathlib import Path

from costmetrics import energy


def main(argv: list[str]) -> int:
    """Write the synthetic table to ``argv[1]`` (default: the repository's data/energy/)."""
    root = Path(__file__).resolve().parent.parent
    out = Path(argv[1]) if len(argv) > 1 else root / "data" / "energy" / energy.SYNTHETIC_FILE
    runs = energy.synthetic_runs()
    energy.write_runs(runs, out, runs.comments)
    print(f"wrote {len(runs)} synthetic runs to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
