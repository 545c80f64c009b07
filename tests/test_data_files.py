"""Every seed-value and problem file in data/ (other than presets) against its schema.

The presets (data/gpus, data/stencils) are checked by tests/test_presets.py through their
loaders. The files here hold the seeds' printed values and the experiments' problem lists;
a malformed edit must fail here, not deep inside `costmetrics reproduce`.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

DATA = Path(__file__).resolve().parent.parent / "data"

Check = Callable[[Any], bool]


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _pos_int(v: Any) -> bool:
    return _int(v) and v > 0


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _str(v: Any) -> bool:
    return isinstance(v, str) and bool(v.strip())


def _list_of(check: Check, length: int | None = None) -> Check:
    def inner(v: Any) -> bool:
        return (
            isinstance(v, list)
            and bool(v)
            and (length is None or len(v) == length)
            and all(check(x) for x in v)
        )

    return inner


def _or_none(check: Check) -> Check:
    return lambda v: v is None or check(v)


def _mapping(schema: dict[str, Check]) -> Check:
    return lambda v: isinstance(v, dict) and _problems(v, schema, "") == []


def _problems(data: Any, schema: dict[str, Check], where: str) -> list[str]:
    if not isinstance(data, dict):
        return [f"{where}: expected a mapping, got {type(data).__name__}"]
    out = [f"{where}{k}: missing" for k in schema if k not in data]
    out += [f"{where}{k}: unknown key" for k in data if k not in schema]
    out += [
        f"{where}{k}: bad value {data[k]!r}" for k in schema if k in data and not schema[k](data[k])
    ]
    return out


_SEED_VALUE = _mapping({"value": lambda v: _number(v) or _str(v), "where": _str, "quantity": _str})
_D7_NODE = _mapping(
    {
        "label": _str,
        "i": _pos_int,
        "j": _pos_int,
        **{k: _or_none(_number) for k in ("hp", "hl", "hr", "Fp", "Fl", "Fr", "F")},
        "choice": lambda v: v in ("none", "left", "right"),
        "tile": _list_of(_pos_int, 2),
    }
)

SCHEMAS: dict[str, dict[str, Check]] = {
    "time/problems.yaml": {
        "schema_version": lambda v: v == 1,
        "source": _str,
        "stencils_2d": _list_of(_str),
        "stencils_3d": _list_of(_str),
        "space_2d": _list_of(_pos_int),
        "time_steps_2d": _list_of(_pos_int),
        "space_3d": _list_of(_pos_int),
        "time_steps_3d": _list_of(_pos_int),
        "fig_a5": _mapping(
            {"stencil": _str, "gpu": _str, "sizes": _list_of(_pos_int, 3), "tS1": _pos_int}
        ),
    },
    "time/seed_values.yaml": {
        "schema_version": lambda v: v == 1,
        "source": _str,
        "values": lambda v: isinstance(v, dict) and bool(v) and all(map(_SEED_VALUE, v.values())),
    },
    "chain/seed_d7.yaml": {
        "schema_version": lambda v: v == 1,
        "source": _str,
        "dims": _list_of(_pos_int),
        "onchip_capacity_words": _pos_int,
        "parenthesization": _str,
        "min_op_count": _pos_int,
        "single_mm_total_words": _pos_int,
        "fused_internal_words": _pos_int,
        "output_words": _pos_int,
        "fused_total_words": _pos_int,
        "reduction_percent": _number,
        "table_scale_printed": _number,
        "nodes": _list_of(_D7_NODE),
    },
}


#: Folders whose files this module checks. Presets (gpus/, stencils/) are checked by their
#: loaders in tests/test_presets.py; other families check theirs the same way in their tests.
SCHEMA_DIRS = ("time", "chain")


def _files(pattern: str) -> list[str]:
    return sorted(str(p.relative_to(DATA)) for d in SCHEMA_DIRS for p in (DATA / d).rglob(pattern))


def test_every_data_file_has_a_schema() -> None:
    assert _files("*.yaml") == sorted(SCHEMAS)
    assert _files("*.csv") == ["chain/seed_table_d1.csv"]


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_yaml_file_matches_its_schema(name: str) -> None:
    data = yaml.safe_load((DATA / name).read_text(encoding="utf-8"))
    assert _problems(data, SCHEMAS[name], f"{name}: ") == []


def test_time_problem_lists_are_consistent() -> None:
    import costmetrics as cm

    data = yaml.safe_load((DATA / "time/problems.yaml").read_text(encoding="utf-8"))
    for key, dims in (("stencils_2d", 2), ("stencils_3d", 3)):
        for name in data[key]:
            assert cm.stencil(name).n_space_dims == dims
    assert cm.gpu(data["fig_a5"]["gpu"]) is not None
    # Sec. A.5: 4 stencils x 10 sizes x 2 GPUs = 80 2D problems; 2 x 12 x 2 = 48 3D ones.
    n_2d = len(data["stencils_2d"]) * len(data["space_2d"]) * len(data["time_steps_2d"])
    sizes_3d = [(s, t) for s in data["space_3d"] for t in data["time_steps_3d"] if t <= s]
    assert n_2d * len(cm.gpus()) == 80
    assert len(data["stencils_3d"]) * len(sizes_3d) * len(cm.gpus()) == 48


def test_d7_seed_file_is_consistent() -> None:
    data = yaml.safe_load((DATA / "chain/seed_d7.yaml").read_text(encoding="utf-8"))
    # The seed's totals add up as printed: F(1,6) + P0*P6 (000 App. D.7).
    assert data["fused_internal_words"] + data["output_words"] == data["fused_total_words"]
    assert data["dims"][0] * data["dims"][-1] == data["output_words"]


def test_table_d1_csv_matches_its_schema() -> None:
    lines = [
        line
        for line in (DATA / "chain/seed_table_d1.csv").read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    ]
    rows = list(csv.DictReader(lines))
    columns = ["n"] + [f"{s}_{c}" for c in (65536, 98304) for s in ("avg", "min", "max")]
    assert list(rows[0]) == columns
    assert [r["n"] for r in rows] == [str(n) for n in range(2, 21)] + [""]  # lengths, overall
    for r in rows:
        for cap in (65536, 98304):
            lo, avg, hi = (float(r[f"{s}_{cap}"]) for s in ("min", "avg", "max"))
            assert 0.0 <= lo <= avg <= hi <= 100.0
