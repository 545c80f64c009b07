"""Presets: the shipped files against the seed's tables, lookups, user files, validation.

Reference values are those printed in seed 000_421b4c29c3aca767.txt, Appendix A:
Table A.2 (GPU configuration), Table A.3 (micro-benchmark values), Table A.4 (C_iter in
seconds), and Sec. A.5.1 ("both GPUs allow 48K shared memory per thread block").
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import costmetrics
import costmetrics as cm
from _support import (
    ANY_INT,
    GTX980,
    SPECIAL_FLOATS,
    WRONG,
    campaign,
    check_breakdown,
    contract,
    finite_nonnegative,
    sequence,
)
from costmetrics import presets
from costmetrics.presets import Gpu, Stencil

KB = 1024
REPO_DATA = Path(__file__).resolve().parent.parent / "data"

# Table A.2 and Sec. A.5.1.
TABLE_A2 = {
    "gtx980": {"n_sm": 16, "n_v": 128, "smem_per_sm_bytes": 96 * KB, "registers_per_sm": 65536,
               "shared_memory_banks": 32, "max_blocks_per_sm": 32,
               "smem_per_block_bytes": 48 * KB},
    "titanx": {"n_sm": 24, "n_v": 128, "smem_per_sm_bytes": 96 * KB, "registers_per_sm": 65536,
               "shared_memory_banks": 32, "max_blocks_per_sm": 32,
               "smem_per_block_bytes": 48 * KB},
}  # fmt: skip
# Table A.3: L [s/GB], tau_sync [s], T_sync [s].
TABLE_A3 = {
    "gtx980": {"l_s_per_gb": 7.36e-3, "tau_sync_s": 7.96e-10, "t_sync_s": 9.24e-7},
    "titanx": {"l_s_per_gb": 5.42e-3, "tau_sync_s": 6.74e-10, "t_sync_s": 9.00e-7},
}
# Table A.4: C_iter [s] on (GTX 980, Titan X); space dimensions from Sec. A.5.
TABLE_A4 = {
    "jacobi2d": (2, 3.39e-8, 3.83e-8),
    "heat2d": (2, 3.68e-8, 4.23e-8),
    "laplacian2d": (2, 3.11e-8, 3.81e-8),
    "gradient2d": (2, 6.09e-8, 7.60e-8),
    "heat3d": (3, 1.55e-7, 1.64e-7),
    "laplacian3d": (3, 1.36e-7, 1.44e-7),
}

GTX980_FIELDS: dict[str, Any] = {
    "name": "GTX 980",
    **TABLE_A2["gtx980"],
    **TABLE_A3["gtx980"],
}


@pytest.fixture(autouse=True)
def _restore_registry() -> Iterator[None]:
    """Undo whatever a test registers."""
    presets._ensure_loaded()
    saved_gpus, saved_stencils = dict(presets._gpus), dict(presets._stencils)
    yield
    presets._gpus.clear()
    presets._gpus.update(saved_gpus)
    presets._stencils.clear()
    presets._stencils.update(saved_stencils)


def _write(path: Path, data: object) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _gpu_file_data() -> dict[str, object]:
    return {"schema_version": 1, "key": "mygpu", "source": "test", **GTX980_FIELDS}


def _stencil_file_data() -> dict[str, object]:
    return {
        "schema_version": 1,
        "name": "My Stencil",
        "n_space_dims": 2,
        "c_iter_s": {"gtx980": 1e-8},
    }


# ------------------------------------------------------------------ shipped files


def test_shipped_preset_lists() -> None:
    assert costmetrics.gpus() == ["gtx980", "titanx"]
    assert costmetrics.stencils() == sorted(TABLE_A4)


SHIPPED_FILES = sorted(
    [*presets.data_dir().glob("gpus/*.yaml"), *presets.data_dir().glob("stencils/*.yaml")]
)


@pytest.mark.parametrize("path", SHIPPED_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_shipped_file_loads_and_has_source_and_version(path: Path) -> None:
    raw = yaml.safe_load(path.read_text())
    assert raw["schema_version"] == 1
    assert "Table A." in raw["source"]
    assert raw["key"] == path.stem
    loaded = presets.load_gpu(path) if path.parent.name == "gpus" else presets.load_stencil(path)
    assert loaded.key == path.stem


@pytest.mark.parametrize("key", ["gtx980", "titanx"])
def test_gpu_values_match_tables_a2_a3(key: str) -> None:
    g = costmetrics.gpu(key)
    for field, expected in {**TABLE_A2[key], **TABLE_A3[key]}.items():
        assert getattr(g, field) == expected, field
    assert g.key == key
    assert g.source


@pytest.mark.parametrize("key", sorted(TABLE_A4))
def test_stencil_values_match_table_a4(key: str) -> None:
    dims, on_gtx980, on_titanx = TABLE_A4[key]
    s = costmetrics.stencil(key)
    assert s.n_space_dims == dims
    assert dict(s.c_iter_s) == {"gtx980": on_gtx980, "titanx": on_titanx}
    assert s.c_iter_on("gtx980") == on_gtx980
    assert s.c_iter_on(costmetrics.gpu("titanx")) == on_titanx


def test_installed_data_matches_repository() -> None:
    if not REPO_DATA.is_dir() or presets.data_dir() == REPO_DATA:
        pytest.skip("running from the source tree: nothing installed to compare")
    installed = presets.data_dir()
    names = sorted(p.relative_to(REPO_DATA) for p in REPO_DATA.rglob("*") if p.is_file())
    assert sorted(p.relative_to(installed) for p in installed.rglob("*") if p.is_file()) == names
    for name in names:
        assert (installed / name).read_text() == (REPO_DATA / name).read_text()


# ------------------------------------------------------------------ derived units


def test_gpu_unit_conversions() -> None:
    g = costmetrics.gpu("gtx980")
    # 1 GB = 1e9 bytes and a word is 4 bytes: L per word = L_GB * 4e-9.
    assert g.l_s_per_word == pytest.approx(7.36e-3 * 4e-9, rel=1e-15)
    assert g.smem_per_sm_words == 96 * KB // 4 == 24576
    assert g.smem_per_block_words == 48 * KB // 4 == 12288


# ------------------------------------------------------------------ lookups


@pytest.mark.parametrize("name", ["gtx980", "GTX 980", "gtx-980", "GTX_980", " Gtx980 "])
def test_gpu_lookup_ignores_case_and_separators(name: str) -> None:
    assert costmetrics.gpu(name) is costmetrics.gpu("gtx980")


@pytest.mark.parametrize("name", ["titanx", "Titan X", "TITAN-X"])
def test_titanx_lookup(name: str) -> None:
    assert costmetrics.gpu(name).key == "titanx"


@pytest.mark.parametrize("name", ["heat2d", "Heat2D", "heat-2d", "Heat 2D", "HEAT_2D"])
def test_stencil_lookup_ignores_case_and_separators(name: str) -> None:
    assert costmetrics.stencil(name).key == "heat2d"


@given(
    st.lists(st.sampled_from([" ", "-", "_", ""]), min_size=7, max_size=7),
    st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_lookup_invariant_under_case_and_separators(seps: list[str], upper: list[bool]) -> None:
    letters = [c.upper() if u else c for c, u in zip("titanx", upper, strict=False)]
    name = seps[0] + "".join(c + s for c, s in zip(letters, seps[1:], strict=False))
    assert costmetrics.gpu(name).key == "titanx"


@pytest.mark.parametrize("name", [None, 980, b"gtx980", ["gtx980"]])
def test_normalize_name_refuses_non_strings(name: object) -> None:
    # Was: re's "expected string or bytes-like object", naming no parameter.
    with pytest.raises(TypeError, match=r"^name: expected a string, got "):
        cm.presets.normalize_name(name)  # type: ignore[arg-type]


def test_lookup_passes_objects_through() -> None:
    g = costmetrics.gpu("gtx980")
    s = costmetrics.stencil("heat2d")
    assert costmetrics.gpu(g) is g
    assert costmetrics.stencil(s) is s


def test_unknown_names_list_known_presets() -> None:
    with pytest.raises(ValueError, match=r"name: unknown GPU 'gtx1080'.*gtx980.*titanx"):
        costmetrics.gpu("gtx1080")
    with pytest.raises(ValueError, match=r"name: unknown stencil 'heat4d'.*heat2d"):
        costmetrics.stencil("heat4d")
    with pytest.raises(TypeError, match=r"name: expected a GPU name"):
        costmetrics.gpu(980)  # type: ignore[arg-type]


def test_c_iter_on_unknown_gpu_lists_available() -> None:
    expected = r"gpu: .*no C_iter for GPU 'a100'.*\['gtx980', 'titanx'\]"
    with pytest.raises(ValueError, match=expected):
        costmetrics.stencil("heat3d").c_iter_on("A100")


# ------------------------------------------------------------------ constructing directly


def test_construct_gpu_directly_and_register() -> None:
    g = Gpu(**{**GTX980_FIELDS, "name": "My GPU-1", "n_sm": 8})
    assert g.key == "mygpu1"
    assert presets.register_gpu(g) is g
    assert costmetrics.gpu("my gpu 1") is g
    assert "mygpu1" in costmetrics.gpus()


def test_construct_stencil_directly_and_register() -> None:
    s = Stencil(name="Box3D", n_space_dims=3, c_iter_s={"GTX 980": 2e-7})
    assert s.key == "box3d"
    assert dict(s.c_iter_s) == {"gtx980": 2e-7}
    presets.register_stencil(s)
    assert costmetrics.stencil("box-3d").c_iter_on("gtx980") == 2e-7


def test_presets_are_immutable_hashable_and_picklable() -> None:
    s = costmetrics.stencil("heat2d")
    g = costmetrics.gpu("gtx980")
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.n_sm = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.c_iter_s["gtx980"] = 1.0  # type: ignore[index]
    assert {g, s} == {g, s}
    assert pickle.loads(pickle.dumps(s)) == s
    assert pickle.loads(pickle.dumps(g)) == g


def test_register_refuses_to_replace_silently() -> None:
    other = dataclasses.replace(costmetrics.gpu("gtx980"), n_sm=1)
    with pytest.raises(ValueError, match=r"already registered.*overwrite=True"):
        presets.register_gpu(other)
    presets.register_gpu(other, overwrite=True)
    assert costmetrics.gpu("gtx980").n_sm == 1
    presets.register_gpu(costmetrics.gpu("titanx"))  # the same object again is fine
    with pytest.raises(TypeError, match=r"obj: expected a costmetrics.Gpu"):
        presets.register_gpu("gtx980")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"obj: expected a costmetrics.Stencil"):
        presets.register_stencil(costmetrics.gpu("gtx980"))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value", "exception", "message"),
    [
        ("n_sm", 0, ValueError, "n_sm: must be positive"),
        ("n_v", -128, ValueError, "n_v: must be positive"),
        ("n_sm", 16.0, TypeError, "n_sm: expected a positive integer"),
        ("max_blocks_per_sm", True, TypeError, "max_blocks_per_sm: expected a positive integer"),
        ("registers_per_sm", "65536", TypeError, "registers_per_sm: expected a positive integer"),
        ("l_s_per_gb", 0.0, ValueError, r"l_s_per_gb: must be in \[2.5e-282, 2.5e\+08\] s/GB"),
        ("tau_sync_s", float("inf"), ValueError, r"tau_sync_s: must be in \[1e-290, 1\] s, got"),
        ("t_sync_s", float("nan"), ValueError, r"t_sync_s: must be in \[1e-290, 1\] s, got nan"),
        ("t_sync_s", "1e-6", TypeError, "t_sync_s: expected a positive number"),
        ("name", "  ", ValueError, "name: must not be empty"),
        ("name", None, TypeError, "name: expected a string"),
        (
            "smem_per_block_bytes",
            200 * KB,
            ValueError,
            "smem_per_block_bytes: .* exceeds smem_per_sm_bytes",
        ),
        # Issue 6: 2**80 bytes was accepted and made k overflow to a negative number.
        ("smem_per_sm_bytes", 2**80, OverflowError, r"smem_per_sm_bytes: .* \[1, 2147483647\]"),
        ("smem_per_sm_bytes", 2**30, ValueError, r"smem_per_sm_bytes \(as words\): must be in"),
        (
            "tau_sync_s",
            1e308,
            ValueError,
            r"tau_sync_s: must be in \[1e-290, 1\] s, got 1e\+308",
        ),
        ("n_sm", 2**31, OverflowError, "n_sm: 2147483648 is outside"),
        # (second campaign: "threads_ref: must be positive", though 0 is valid)
        ("threads_ref", -1, ValueError, "threads_ref: must be 0 or positive, got -1"),
    ],
)
def test_gpu_constructor_rejects_bad_values(
    field: str, value: object, exception: type[Exception], message: str
) -> None:
    with pytest.raises(exception, match=message):
        Gpu(**{**GTX980_FIELDS, field: value})


def test_gpu_constructor_accepts_numpy_numbers() -> None:
    g = Gpu(**{**GTX980_FIELDS, "n_sm": np.int64(16), "tau_sync_s": np.float32(2.5e-8)})
    assert g.n_sm == 16 and type(g.n_sm) is int
    assert type(g.tau_sync_s) is float


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"n_space_dims": 0}, "n_space_dims: must be positive"),
        ({"n_space_dims": 4}, "n_space_dims: must be 1, 2 or 3"),
        ({"c_iter_s": {}}, "c_iter_s: must give C_iter for at least one GPU"),
        ({"c_iter_s": [1e-8]}, "c_iter_s: expected a mapping"),
        ({"c_iter_s": {"gtx980": -1e-8}}, r"c_iter_s\['gtx980'\]: must be positive"),
        ({"c_iter_s": {"gtx980": "fast"}}, r"c_iter_s\['gtx980'\]: expected a positive number"),
        ({"c_iter_s": {"gtx980": 1.7e308}}, r"c_iter_s\['gtx980'\]: must be in \(0, 1\] s"),
        ({"description": 3}, "description: expected a string"),
    ],
)
def test_stencil_constructor_rejects_bad_values(changes: dict[str, object], message: str) -> None:
    fields: dict[str, object] = {"name": "S", "n_space_dims": 2, "c_iter_s": {"gtx980": 1e-8}}
    type_errors = ("expected a mapping", "expected a positive number", "expected a string")
    exception = TypeError if message.endswith(type_errors) else ValueError
    with pytest.raises(exception, match=message):
        Stencil(**{**fields, **changes})  # type: ignore[arg-type]


# ------------------------------------------------------------------ user files


def test_load_user_gpu_file_and_register(tmp_path: Path) -> None:
    g = presets.load_gpu(_write(tmp_path / "mine.yaml", _gpu_file_data()))
    assert g.key == "mygpu"
    assert g.l_s_per_gb == 7.36e-3
    presets.register_gpu(g)
    assert costmetrics.gpu("MyGPU") is g


def test_load_user_stencil_file(tmp_path: Path) -> None:
    s = presets.load_stencil(_write(tmp_path / "mine.yaml", _stencil_file_data()))
    assert s.key == "mystencil"
    assert s.c_iter_on("gtx980") == 1e-8


def test_exponent_without_decimal_point_reads_as_a_number(tmp_path: Path) -> None:
    # YAML 1.1 (PyYAML's default) would read "1e-7" as a string; preset files accept it.
    path = tmp_path / "s.yaml"
    path.write_text("schema_version: 1\nname: S\nn_space_dims: 1\nc_iter_s:\n  gtx980: 1e-7\n")
    assert presets.load_stencil(path).c_iter_on("gtx980") == 1e-7


def _changed(data: dict[str, Any], change: dict[str, object]) -> dict[str, Any]:
    """``data`` with the fields of ``change`` set, or removed where the value is None."""
    for key, value in change.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"n_sm": None}, "n_sm in .*bad.yaml: required field is missing"),
        ({"l_s_per_gb": None}, "l_s_per_gb in .*bad.yaml: required field is missing"),
        ({"n_sm": -16}, "n_sm in .*bad.yaml: must be positive"),
        ({"n_v": "many"}, "n_v in .*bad.yaml: expected a positive integer"),
        ({"tau_sync_s": 0}, "tau_sync_s in .*bad.yaml: must be in \\[1e-290, 1\\] s, got 0"),
        ({"clock_hz": 1e9}, r"clock_hz in .*bad.yaml: unknown field"),
        ({"schema_version": 2}, "schema_version in .*bad.yaml: this costmetrics reads version 1"),
        ({"schema_version": None}, "schema_version in .*bad.yaml: required field is missing"),
    ],
)
def test_bad_gpu_file_names_field_and_file(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        presets.load_gpu(_write(tmp_path / "bad.yaml", _changed(_gpu_file_data(), change)))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"c_iter_s": None}, "c_iter_s in .*bad.yaml: required field is missing"),
        ({"c_iter_s": {"gtx980": 0}}, r"c_iter_s\['gtx980'\] in .*bad.yaml: must be positive"),
        ({"n_space_dims": 2.5}, "n_space_dims in .*bad.yaml: expected a positive integer"),
    ],
)
def test_bad_stencil_file_names_field_and_file(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        presets.load_stencil(_write(tmp_path / "bad.yaml", _changed(_stencil_file_data(), change)))


def test_unreadable_or_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"path: cannot read preset file .*missing.yaml"):
        presets.load_gpu(tmp_path / "missing.yaml")
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    with pytest.raises(ValueError, match=r"path: .*list.yaml must hold a YAML mapping"):
        presets.load_stencil(tmp_path / "list.yaml")
    (tmp_path / "broken.yaml").write_text("name: [unclosed\n")
    with pytest.raises(ValueError, match=r"path: .*broken.yaml is not valid YAML"):
        presets.load_gpu(tmp_path / "broken.yaml")


def test_to_dict_round_trips_through_a_file(tmp_path: Path) -> None:
    for g in (costmetrics.gpu(k) for k in costmetrics.gpus()):
        assert presets.load_gpu(_write(tmp_path / "g.yaml", g.to_dict())) == g
    for s in (costmetrics.stencil(k) for k in costmetrics.stencils()):
        assert presets.load_stencil(_write(tmp_path / "s.yaml", s.to_dict())) == s


# ------------------------------------------------------------------ boundary cases (issue 6)
# Defect examples of issue 6, each pinned: it now raises a clear error or answers right.


def test_load_gpu_messages_name_the_file(tmp_path: Path) -> None:
    # Non-UTF-8 file: the message names the file.
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"name: caf\xe9\n")
    with pytest.raises(ValueError, match=r"latin1.yaml is not UTF-8"):
        cm.load_gpu(bad)
    # Mixed-type unknown keys: a clear "unknown field", not a TypeError from sorting.
    mixed = tmp_path / "mixed.yaml"
    fields = {**GTX980.to_dict()}
    text = "\n".join(f"{k}: {json.dumps(v)}" for k, v in fields.items())
    mixed.write_text(text + "\n1: one\nzz: two\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"mixed.yaml: unknown field \(unknown: \['zz', 1\]"):
        cm.load_gpu(mixed)
    # Deeply nested YAML: a ValueError naming the file, not RecursionError.
    deep = tmp_path / "deep.yaml"
    deep.write_text("a: " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"deep.yaml"):
        cm.load_gpu(deep)
    # A field of the wrong type in a file is a bad value of that file.
    typed = tmp_path / "typed.yaml"
    typed.write_text(text.replace('"n_sm": 16', "").replace("n_sm: 16", "n_sm: many") + "\n")
    with pytest.raises(ValueError, match=r"n_sm in .*typed.yaml"):
        cm.load_gpu(typed)


# ------------------------------------------------------------------ Hypothesis campaign
# Generated arguments against the contract of _support.py (run long: HYPOTHESIS_PROFILE=long
# pytest -m campaign).


GPU_FIELDS = cm.gpu("gtx980").to_dict()


del GPU_FIELDS["schema_version"]


@campaign
@given(
    st.sampled_from(sorted(k for k in GPU_FIELDS if k not in ("name", "key", "source"))),
    st.one_of(ANY_INT, SPECIAL_FLOATS, st.floats(allow_nan=True)),
)
def test_gpu_preset_contract(field: str, value: Any) -> None:
    g = contract(lambda: cm.Gpu(**{**GPU_FIELDS, field: value}))
    if g is None:
        return
    # A GPU the constructor accepts is one the time model accepts (the tile may still be
    # infeasible on a tiny GPU: a clear ValueError naming Eq. A.32).
    assert math.isfinite(cm.time.t_ideal("heat2d", g, (512, 512, 512)))
    b = contract(
        lambda: cm.time.breakdown("heat2d", g, (512, 512, 512), (1, 32, 2), variant="paper")
    )
    if b is not None:
        finite_nonnegative(b.talg_s)


MACHINE_FIELDS = {
    **GPU_FIELDS, "n_sm": 2, "n_v": 4, "max_blocks_per_sm": 1, "smem_per_sm_bytes": 262144,
    "smem_per_block_bytes": 262144, "l_s_per_gb": 0.04, "tau_sync_s": 1e-8, "t_sync_s": 4e-8,
    "cache_l1_bytes": 32768, "cache_l2_bytes": 2**20, "cache_l3_bytes": 2**25, "l_seg_s": 3e-9,
    "l_level_s_per_word": (-2e-11, 0.0, 2e-11, 8e-11), "l_shared_s_per_word": (0, 0, 1e-11, 5e-11),
    "tau_line_s": 2e-9, "tau_line_3d_s": 5e-9, "t_barrier_per_thread_s": 2e-8,
    "t_share_line_s": 5e-8, "threads_ref": 2, "tile_schedule": "block",
}  # fmt: skip


MACHINE_VALUES = st.one_of(
    ANY_INT, SPECIAL_FLOATS, st.floats(allow_nan=True), st.floats(-1e-9, 1e-7),
    sequence(st.one_of(st.floats(-1e-10, 1e-9), SPECIAL_FLOATS, WRONG), 3, 5),
)  # fmt: skip


@campaign
@given(
    st.sampled_from(sorted(k for k in MACHINE_FIELDS if k.startswith(("cache", "l_", "t", "thr")))),
    MACHINE_VALUES,
    st.sampled_from([1, 2, 3, 8]),
)
def test_machine_preset_contract(field: str, value: Any, threads: int) -> None:
    g = contract(lambda: cm.Gpu(**{**MACHINE_FIELDS, "key": "campaigncpu", field: value}))
    if g is None:
        return
    s = cm.Stencil(name="campaign heat", n_space_dims=2, c_iter_s={"campaigncpu": 1.4e-9})
    g = g.with_threads(threads)
    b = contract(lambda: cm.time.breakdown(s, g, (512, 512, 64), (16, 128, 8), variant="machine"))
    if b is not None:
        check_breakdown(b, "machine")
        rows = cm.time.design_rows(s, g, (512, 512, 64), [(16, 128, 8)], variant="machine")
        assert math.isclose(float(rows.talg_s[0]), b.talg_s, rel_tol=1e-12)


@campaign
@given(text=st.text(max_size=200), raw=st.binary(max_size=60))
def test_load_gpu_file_contract(tmp_path_factory: Any, text: str, raw: bytes) -> None:
    folder = tmp_path_factory.mktemp("gpu")
    for index, content in enumerate((text.encode("utf-8", "surrogatepass"), raw)):
        path = folder / f"g{index}.yaml"
        path.write_bytes(content)
        contract(functools.partial(cm.load_gpu, path))
        contract(functools.partial(cm.load_stencil, path))
    contract(lambda: cm.gpu(text))


def test_core_parameters_are_shared_between_equal_presets_only() -> None:
    # presets._shared_core_params: equal presets share the core's parameters; a preset
    # that differs in one field gets its own, before and after the shared one is built.
    g = cm.gpu("gtx980")
    wider = dataclasses.replace(g, n_sm=2 * g.n_sm)
    sizes, tiles = (4096, 4096, 512), (8, 64, 4)
    first = cm.time.talg("heat2d", g, sizes, tiles)
    wide = cm.time.talg("heat2d", wider, sizes, tiles)
    assert cm.time.talg("heat2d", g, sizes, tiles) == first != wide
    assert g._core_params() is dataclasses.replace(g)._core_params()
    assert (g._core_params().n_sm, wider._core_params().n_sm) == (g.n_sm, 2 * g.n_sm)
    assert pickle.loads(pickle.dumps(g)) == g  # the preset itself holds no core object


def test_preset_files_and_registries_refuse_what_they_took_silently(tmp_path: Path) -> None:
    # Adversarial campaign (2026-11-30).
    import os

    text = (presets.data_dir() / "gpus" / "gtx980.yaml").read_text(encoding="utf-8")
    dup = tmp_path / "dup.yaml"
    dup.write_text(text + "\nn_sm: 99\n", encoding="utf-8")  # a second n_sm won
    with pytest.raises(ValueError, match="'n_sm' is given twice"):
        presets.load_gpu(dup)
    # (second campaign: a list key raised a bare "unhashable type: 'list'")
    list_key = tmp_path / "list_key.yaml"
    list_key.write_text(text + "\n? [a, b]\n: 1\n", encoding="utf-8")
    for load in (presets.load_gpu, presets.load_stencil):
        with pytest.raises(ValueError, match=r"list_key\.yaml .*a key must be a scalar, got a"):
            load(list_key)
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)  # the read blocked forever
    with pytest.raises(ValueError, match="not a regular file"):
        presets.load_gpu(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        presets.load_gpu("/dev/zero")  # read until the memory ran out
    with pytest.raises(ValueError, match="given twice"):
        Stencil(name="S", n_space_dims=2, c_iter_s={"gtx980": 1e-9, "GTX 980": 2e-9})
    g = presets.gpu("gtx980")
    with pytest.raises(TypeError, match="overwrite"):
        presets.register_gpu(dataclasses.replace(g, n_sm=3), overwrite="no")  # type: ignore[arg-type]
    assert presets.gpu("gtx980").n_sm == g.n_sm


def test_keys_versions_and_times_that_normalize_to_nothing() -> None:
    g = presets.gpu("gtx980")
    with pytest.raises(ValueError, match="no letters or digits"):
        dataclasses.replace(g, key="---")  # a key gpu("") then found
    with pytest.raises(ValueError, match="no letters or digits"):
        Stencil(name="S", n_space_dims=2, c_iter_s={"-": 1e-9})
    with pytest.raises(ValueError, match="rounds to 0 s"):
        dataclasses.replace(g, l_s_per_gb=5e-324)  # positive, but L = 0 s per word


@pytest.mark.parametrize("version", ["true", "1.0"])
def test_schema_version_must_be_the_integer(tmp_path: Path, version: str) -> None:
    text = (presets.data_dir() / "gpus" / "gtx980.yaml").read_text(encoding="utf-8")
    lines = [f"schema_version: {version}" if line.startswith("schema_version:") else line
             for line in text.splitlines()]  # fmt: skip
    path = tmp_path / "g.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="schema_version"):
        presets.load_gpu(path)


def test_machine_fields_name_an_int_past_the_double_range() -> None:
    g = presets.gpu("gtx980")
    with pytest.raises(OverflowError, match=r"l_seg_s: .* does not fit a double"):
        dataclasses.replace(g, l_seg_s=10**400)


def test_a_gpu_time_parameter_has_one_rule() -> None:
    # (adversarial tester) tau_sync_s = 0.0 said "must be positive and finite", 9.9e-291
    # "must be 0 or in [1e-290, 1] s" (the core's range, which takes 0; a Gpu does not):
    # both state the Gpu's rule now.
    g = costmetrics.gpu("gtx980")
    for name in ("tau_sync_s", "t_sync_s"):
        for value in (0.0, -1.0, 9.9e-291, 5e-324, 1.5, float("inf")):
            with pytest.raises(ValueError, match=rf"^{name}: must be in \[1e-290, 1\] s, got "):
                dataclasses.replace(g, **{name: value})  # type: ignore[arg-type]
    rule = (
        r"^l_s_per_gb: must be in \[2.5e-282, 2.5e\+08\] s/GB \(\[1e-290, 1\] s per 4-byte word\)"
    )
    for value in (0.0, -1.0, 0.9e-290 * 2.5e8, 2.6e8):
        with pytest.raises(ValueError, match=rule):
            dataclasses.replace(g, l_s_per_gb=value)
    dataclasses.replace(g, tau_sync_s=1e-290, t_sync_s=1.0, l_s_per_gb=2.5e8)  # the bounds


def test_machine_field_messages_name_the_field_and_its_range() -> None:
    # (adversarial tester) tile_schedule="junk" named the core's MachineTerms.schedule;
    # threads_ref = 2**31 said "outside the supported range [1, 2147483647]" though 0 (the
    # default) is valid.
    g = costmetrics.gpu("gtx980")
    with pytest.raises(ValueError, match=r"^tile_schedule: expected one of 'round-robin', "):
        dataclasses.replace(g, tile_schedule="junk")
    for name in ("threads_ref", "innermost_multiple", "cache_l2_bytes"):
        with pytest.raises(OverflowError, match=rf"^{name}: 2147483648 is outside the supported "
                           r"range \[0, 2147483647\]$"):  # fmt: skip
            dataclasses.replace(g, **{name: 2**31})  # type: ignore[arg-type]
        assert getattr(dataclasses.replace(g, **{name: 0}), name) == 0  # type: ignore[arg-type]
