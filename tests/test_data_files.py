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


_SEED_VALUE = _mapping(
    {"value": lambda v: _number(v) or _str(v) or _list_of(_number)(v), "where": _str,
     "quantity": _str}
)  # fmt: skip
_SEED_VALUES_FILE: dict[str, Check] = {
    "schema_version": lambda v: v == 1,
    "source": _str,
    "values": lambda v: isinstance(v, dict) and bool(v) and all(map(_SEED_VALUE, v.values())),
}
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
    "time/seed_values.yaml": _SEED_VALUES_FILE,
    "area/seed_values.yaml": _SEED_VALUES_FILE,
    "codesign/seed_values.yaml": _SEED_VALUES_FILE,
    "exasat/seed_values.yaml": _SEED_VALUES_FILE,
    "scratchpad/seed_values.yaml": _SEED_VALUES_FILE,
    "codesign/problems.yaml": {
        "schema_version": lambda v: v == 1,
        "source": _str,
        **{k: _list_of(_str) for k in ("stencils_2d", "stencils_3d")},
        **{
            k: _list_of(_pos_int)
            for k in ("space_2d", "time_steps_2d", "space_3d", "time_steps_3d")
        },
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


#: Folders whose files this module checks. Presets (gpus/, stencils/, exasat's kernels/ and
#: machines/, area's maxwell.yaml) are checked by their loaders in the family's tests.
SCHEMA_DIRS = ("time", "chain", "codesign", "scratchpad")


def _files(pattern: str) -> list[str]:
    found = [p for d in SCHEMA_DIRS for p in (DATA / d).rglob(pattern)]
    found += list(DATA.glob(f"*/seed_values{pattern[1:]}"))
    return sorted({str(p.relative_to(DATA)) for p in found})


def test_every_data_file_has_a_schema() -> None:
    assert _files("*.yaml") == sorted(SCHEMAS)
    assert _files("*.csv") == ["chain/seed_table_d1.csv", "codesign/table_c2.csv"]


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


# ------------------------------------------------------------------ seed values as loaded
# Each expected value below is typed from the seed document itself (the place is cited),
# independently of the data file, so that a mistyped or edited data file fails here.


def test_codesign_table_c2_is_the_seeds() -> None:
    from costmetrics import codesign
    from costmetrics.experiments import area as area_model

    # 000_421b4c29c3aca767.txt, Table C.2 ("Workload sensitivity"):
    # Code nSM nV MSM Area GFLOPs/S
    printed = {
        "jacobi2d": (32, 128, 24, 438, 2059),
        "heat2d": (22, 256, 12, 447, 3017),
        "gradient2d": (28, 160, 24, 431, 4963),
        "laplacian2d": (28, 160, 12, 426, 2549),
        "heat3d": (18, 288, 192, 447, 3600),
        "laplacian3d": (8, 896, 96, 446, 1427),
    }
    assert codesign.TABLE_C2 == printed
    # The area experiment reads the same table (one copy), not a second one.
    assert area_model.TABLE_C2_AREAS == {r[:3]: r[3] for r in printed.values()}


def test_codesign_workloads_are_the_seeds() -> None:
    from costmetrics import codesign
    from costmetrics.experiments import codesign as experiment

    # 000 Sec. C.3.1: SZS = {4096, 8192, 12228 (read 12288), 16384}, SZT = {1024, ..., 16384},
    # T <= S, |SZ| = 16. Sec. A.5: 3D sizes 384, 512, 640 with T in {128, ..., 640}, T <= S: 12.
    assert len(codesign.SIZES_2D) == 16 and len(codesign.SIZES_3D) == 12
    assert {s[0] for s in codesign.SIZES_2D} == {4096, 8192, 12288, 16384}
    assert {s[-1] for s in codesign.SIZES_2D} == {1024, 2048, 4096, 8192, 16384}
    assert {s[0] for s in codesign.SIZES_3D} == {384, 512, 640}
    assert all(s[-1] <= s[0] for s in (*codesign.SIZES_2D, *codesign.SIZES_3D))
    # 000 Sec. C.4.1: "improve performance by 104% (resp., 69%)" (2D), "(123% and 126%)" (3D);
    # cache-less: 9.34% (28.44%) for 2D and 9.22% (33.15%) for 3D.
    assert experiment.SEED_IMPROVEMENTS == {
        ("2d", "gtx980", True): 104.0, ("2d", "titanx", True): 69.0,
        ("3d", "gtx980", True): 123.0, ("3d", "titanx", True): 126.0,
        ("2d", "gtx980", False): 9.34, ("2d", "titanx", False): 28.44,
        ("3d", "gtx980", False): 9.22, ("3d", "titanx", False): 33.15,
    }  # fmt: skip
    # 000 Sec. C.4.1: "≈ 3000 for 2D stencils and ≈ 2000 for 3D".
    assert experiment.SEED_DESIGN_COUNTS == {"2d": 3000, "3d": 2000}


def test_reference_gpus_are_described_once() -> None:
    import costmetrics as cm

    # 000 Sec. C.2.1-C.2.3: 512 32-bit registers per vector unit (2 kB), 96 kB of shared
    # memory per SM, 48 kB of L1 per SM pair, L2 of 2 MB (GTX 980) and 3 MB (Titan X), dies
    # of 398 and 601 mm^2, the model's Titan X 589.2 mm^2; Sec. C.4.1: cache-less 237 and
    # 356 mm^2. Table A.2: 16 and 24 SMs of 128 vector units.
    printed = {
        "gtx980": (16, 128, 96.0, 2.0, 48.0, 2048.0, 398.0, None, 237.0),
        "titanx": (24, 128, 96.0, 2.0, 48.0, 3072.0, 601.0, 589.2, 356.0),
    }
    refs = cm.area.reference_gpus()
    assert sorted(refs) == sorted(printed)
    for key, values in printed.items():
        r = refs[key]
        assert (
            r.n_sm, r.n_v, r.smem_kb, r.regs_kb_per_vu, r.l1_kb_per_pair, r.l2_kb,
            r.published_die_mm2, r.seed_model_mm2, r.seed_cacheless_mm2,
        ) == values  # fmt: skip
        # The kB view is derived from the one description in bytes (data/gpus/<key>.yaml).
        g = cm.gpu(key)
        assert (r.n_sm, r.n_v, r.smem_kb * 1024) == (g.n_sm, g.n_v, g.smem_per_sm_bytes)
    assert not (DATA / "area" / "reference_gpus.yaml").exists()


def test_silicon_section_is_checked(tmp_path: Path) -> None:
    import costmetrics as cm

    text = (DATA / "gpus" / "gtx980.yaml").read_text(encoding="utf-8")
    for bad, match in (
        ("  l2_bytes: -1\n", r"silicon.l2_bytes in .*: must be positive"),
        ("  l3_bytes: 1\n", r"l2_bytes \(silicon\) in .*: required field is missing"),
        ("  l2_bytes: 1\n  l3_bytes: 1\n", r"l3_bytes \(silicon\) in .*: unknown field"),
    ):
        path = tmp_path / "g.yaml"
        path.write_text(text.replace("  l2_bytes: 2097152", bad.rstrip("\n")), encoding="utf-8")
        with pytest.raises(ValueError, match=match):
            cm.load_gpu(path)


def test_exasat_seed_values_are_the_seeds() -> None:
    from costmetrics.presets import seed_values

    v = seed_values("exasat")
    # 002_b134280eab98d396.txt, Table 2: Peak B/F Ratio 0.38, Peak Mem. BW 72 GiB/s,
    # DDR3-1333, Mem. Channels 8. Sec. 3.2: "traffic from 5N to 2N". Table 1: bytes/flop of
    # chemistry 0.03 (9 species) and 0.01 (53 species). Fig. 12: 1.71, 0.96 (-44%), 0.36 (-79%).
    assert (v["hopper_peak_bytes_per_flop"], v["hopper_peak_bw_gib_per_s"]) == (0.38, 72)
    assert (v["hopper_ddr3_mt_per_s"], v["hopper_memory_channels"]) == (1333.33e6, 8)
    assert (v["fig4_bypass_unfused_n"], v["fig4_bypass_fused_n"]) == (5, 2)
    assert (v["smc_chemistry_9_bytes_per_flop"], v["smc_chemistry_53_bytes_per_flop"]) == (
        0.03, 0.01)  # fmt: skip
    assert (
        v["cns_unfused_bytes_per_flop"], v["cns_simple_bytes_per_flop"],
        v["cns_aggressive_bytes_per_flop"], v["cns_simple_change_pct"],
        v["cns_aggressive_change_pct"],
    ) == (1.71, 0.96, 0.36, -44, -79)  # fmt: skip


def test_scratchpad_seed_values_are_the_seeds() -> None:
    import inspect

    import costmetrics as cm
    from costmetrics.experiments import scratchpad as experiment

    # 004_1687ddc89dabbad4.txt, Sec. 6: ME "tile sizes of 32, 16, 16 and 16 for i, j, k and
    # l", 256 threads, k and l over 16; Jacobi-1D "time iterations ... 4096", "2^9 words",
    # "threads used was fixed at 64", "space tile size of 256 and time tile size of 32".
    assert experiment.PAPER_ME_TILES == (32, 16, 16, 16)
    assert experiment.PAPER_JACOBI_TILES == (32, 256)
    me = inspect.signature(cm.scratchpad.me_problem).parameters
    assert (me["window"].default, me["processes"].default) == (16, 256)
    jac = inspect.signature(cm.scratchpad.jacobi1d_problem).parameters
    assert (jac["time_steps"].default, jac["processes"].default) == (4096, 64)
    assert jac["memory_limit_words"].default == 512


def test_seed_loaders_refuse_bad_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from costmetrics import presets

    (tmp_path / "gpus").mkdir()
    (tmp_path / "stencils").mkdir()
    (tmp_path / "fam").mkdir()
    monkeypatch.setattr(presets, "data_dir", lambda: tmp_path)
    (tmp_path / "fam" / "nosource.yaml").write_text("schema_version: 1\nvalues: {}\n")
    with pytest.raises(ValueError, match=r"^source in .*nosource.yaml"):
        presets.seed_file("fam", "nosource")
    (tmp_path / "fam" / "seed_values.yaml").write_text(
        "schema_version: 1\nsource: x\nvalues:\n  a: {value: 1}\n"
    )
    with pytest.raises(ValueError, match=r"^values.a in .*: expected value, where and quantity"):
        presets.seed_values("fam")
    (tmp_path / "fam" / "t.csv").write_text("# source\na,b\n1,2,3\n")
    with pytest.raises(ValueError, match=r"row 1 has 3 cells, the header 2"):
        presets.seed_table("fam", "t")
    (tmp_path / "fam" / "u.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match=r"first line must be a comment"):
        presets.seed_table("fam", "u")
    with pytest.raises(ValueError, match=r"cannot read seed table"):
        presets.seed_table("fam", "missing")
