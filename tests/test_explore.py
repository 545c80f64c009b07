"""Tests of costmetrics.explore: the widget explorers, driven through their widgets.

Each test moves a control the way a notebook user would (``control.value = ...``, which
fires the widget's observers) and checks what the explorer then displays against a direct
call of the model. Rendering a figure to PNG takes most of a second on a slow machine, so
most tests count redraws with a stand-in renderer (``fake_png``); the tests that check the
image itself use matplotlib.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmetrics as cm
from costmetrics.explore import _base
from costmetrics.explore.chain import MAX_MATRICES, MatrixChain
from costmetrics.explore.time import SPACE_SIZES, TIME_SIZES, TimeLandscape

pytest.importorskip("ipywidgets")

D7_DIMS = [936, 1008, 552, 368, 1016, 616, 544]  # 000 App. D.7
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


_renders = itertools.count()


def _fake_png(fig: Any, dpi: int = 96) -> bytes:
    # A distinct "image" per call, so a test can tell that the explorer redrew.
    return PNG_SIGNATURE + str(next(_renders)).encode()


@pytest.fixture(scope="module")
def fake_png() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_base, "figure_png", _fake_png)
        yield


@pytest.fixture(scope="module")
def landscape(fake_png: None) -> TimeLandscape:
    return cm.explore.time_landscape("heat2d", "gtx980")


@pytest.fixture
def chain_ex(fake_png: None) -> MatrixChain:
    return cm.explore.matrix_chain()


def _summary(ex: Any) -> str:
    value = ex.outputs["summary"].value
    assert isinstance(value, str)
    return value


def _shown_png(ex: Any) -> bytes:
    return bytes(ex.outputs["plot"].value)


# --------------------------------------------------------------------------------------
# T_alg landscape
# --------------------------------------------------------------------------------------


def test_time_initial_state_matches_best_tiles() -> None:
    # Fig. A.5 setting: Heat2D on the GTX 980, S1 = S2 = T = 8192, tS1 = 8.
    landscape = cm.explore.time_landscape("heat2d", "gtx980")  # real PNG rendering
    assert landscape.sizes == (8192, 8192, 8192)
    assert landscape.tS1 == 8
    expected = cm.time.best_tiles("heat2d", "gtx980", (8192, 8192, 8192))
    assert landscape.best.tiles == expected.tiles
    assert f"<code>{expected.tiles}</code>" in _summary(landscape)
    assert _shown_png(landscape).startswith(PNG_SIGNATURE)
    assert landscape.tT == expected.tiles[-1]  # the cross-section starts at the best tT


def test_time_size_sliders_update_best_tiles(landscape: TimeLandscape) -> None:
    before = _shown_png(landscape)
    landscape.controls["space_size"].value = 4096
    landscape.controls["time_size"].value = 1024
    assert landscape.error is None
    expected = cm.time.best_tiles("heat2d", "gtx980", (4096, 4096, 1024))
    assert landscape.best.tiles == expected.tiles
    assert landscape.best.talg_s == expected.talg_s
    assert f"<code>{expected.tiles}</code>" in _summary(landscape)
    assert f"T_alg = {expected.talg_s:.4g} s" in _summary(landscape)
    assert _shown_png(landscape) != before  # the figure was redrawn


def test_time_gpu_and_stencil_pickers(landscape: TimeLandscape) -> None:
    landscape.controls["gpu"].value = "titanx"
    landscape.controls["stencil"].value = "jacobi2d"  # 2D again: sizes are kept
    assert landscape.sizes == (4096, 4096, 1024)
    expected = cm.time.best_tiles("jacobi2d", "titanx", (4096, 4096, 1024))
    assert f"<code>{expected.tiles}</code>" in _summary(landscape)
    # A 3D stencil: sizes, tS1 and the slider options return to the 3D defaults.
    landscape.controls["stencil"].value = "laplacian3d"
    sizes: tuple[int, ...] = landscape.sizes  # (mypy would narrow the property to 3-tuples)
    assert sizes == (512, 512, 512, 512)
    assert landscape.tS1 == 8
    assert tuple(landscape.controls["space_size"].options) == SPACE_SIZES[3]
    assert tuple(landscape.controls["tS1"].options) == tuple(range(1, 33))  # 3D tS1 candidates
    expected = cm.time.best_tiles("laplacian3d", "titanx", (512, 512, 512, 512))
    assert landscape.best.tiles == expected.tiles
    assert f"<code>{expected.tiles}</code>" in _summary(landscape)
    # Back to the Fig. A.5 problem for the next tests.
    landscape.controls["gpu"].value = "gtx980"
    landscape.controls["stencil"].value = "heat2d"
    assert landscape.sizes == (8192, 8192, 8192)


def test_time_ts1_slider_moves_the_slice(landscape: TimeLandscape) -> None:
    landscape.controls["tS1"].value = 16
    assert landscape.tS1 == 16
    # The slice minimum, recomputed here point by point over the same candidates.
    space = cm.time.default_search_space(2)
    tiles = np.array([(16, tS2, tT) for tT in space.time for tS2 in space.space[1]])
    talg = cm.time.talg_batch("heat2d", "gtx980", (8192, 8192, 8192), tiles).talg_s
    best_t = float(np.nanmin(talg))
    best_tile = tuple(int(v) for v in tiles[int(np.nanargmin(talg))])
    assert landscape.slice_tiles == best_tile
    assert f"Slice tS1 = 16: best <code>{best_tile}</code>" in _summary(landscape)
    assert float(np.nanmin(landscape.talg_s)) == best_t
    assert _slice_dot(landscape) == (best_tile[1], best_tile[2])


def test_time_tt_slider_moves_the_cross_section(landscape: TimeLandscape) -> None:
    landscape.controls["tT"].value = 10
    assert landscape.tT == 10
    fig = landscape.figure()
    assert fig.axes[1].get_title() == "cross-section at tT = 10"
    row = list(landscape.tT_values).index(10)
    line = fig.axes[1].lines[0]
    np.testing.assert_array_equal(line.get_ydata(), landscape.talg_s[row])


def test_time_invalid_update_keeps_state(landscape: TimeLandscape) -> None:
    state = (landscape.stencil, landscape.gpu, landscape.sizes, landscape.tS1, landscape.tT)
    with pytest.raises(ValueError, match="tS1: 1000 is not a candidate"):
        landscape.update(tS1=1000)
    with pytest.raises(ValueError, match="tT: 3 is not a candidate"):
        landscape.update(tT=3)  # tT must be even
    with pytest.raises(ValueError, match="space_size: must be positive, got -4"):
        landscape.update(space_size=-4)
    with pytest.raises(TypeError, match="time_size: expected an integer, got float"):
        landscape.update(time_size=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown stencil"):
        landscape.update(stencil="nope")
    assert state == (
        landscape.stencil,
        landscape.gpu,
        landscape.sizes,
        landscape.tS1,
        landscape.tT,
    )


def test_time_3d_slice_fixes_ts3_at_best(fake_png: None) -> None:
    ex = cm.explore.time_landscape("heat3d", "gtx980", space_size=384, time_size=128, tS1=4)
    expected = cm.time.best_tiles("heat3d", "gtx980", (384, 384, 384, 128))
    assert ex.best.tiles == expected.tiles
    tiles = ex.slice_tiles
    assert tiles[0] == 4 and tiles[2] == expected.tiles[2]
    assert f"tS3 = {expected.tiles[2]}" in _summary(ex)
    # The map's red dot sits at (tS2, tT) of the slice minimum.
    assert _slice_dot(ex) == (tiles[1], tiles[3])


def _slice_dot(ex: TimeLandscape) -> tuple[float, float]:
    fig = ex.figure()
    (dot,) = [ln for ln in fig.axes[0].lines if str(ln.get_label()).startswith("slice min")]
    return (float(np.asarray(dot.get_xdata())[0]), float(np.asarray(dot.get_ydata())[0]))


@settings(max_examples=10, deadline=None)
@given(
    stencil=st.sampled_from(["heat2d", "jacobi2d", "gradient2d", "laplacian2d", "heat3d"]),
    gpu=st.sampled_from(["gtx980", "titanx"]),
    s_index=st.integers(0, 5),
    t_index=st.integers(0, 5),
)
def test_time_update_from_code_shows_best_tiles(
    landscape: TimeLandscape, stencil: str, gpu: str, s_index: int, t_index: int
) -> None:
    d = cm.stencil(stencil).n_space_dims
    s, t = SPACE_SIZES[d][s_index], TIME_SIZES[d][t_index]
    landscape.update(stencil=stencil, gpu=gpu, space_size=s, time_size=t)
    expected = cm.time.best_tiles(stencil, gpu, (s,) * d + (t,))
    assert landscape.best.tiles == expected.tiles
    assert f"<code>{expected.tiles}</code>" in _summary(landscape)
    assert landscape.controls["space_size"].value == s  # the widget follows the code
    assert landscape.controls["stencil"].value == stencil
    landscape.update(stencil="heat2d", gpu="gtx980", space_size=8192, time_size=8192)


@settings(max_examples=25, deadline=None)
@given(
    dims=st.lists(st.integers(257, 5000), min_size=3, max_size=MAX_MATRICES + 1),
    seps=st.lists(st.sampled_from([",", ", ", " ", ";", " ,  "]), min_size=MAX_MATRICES + 1),
)
def test_chain_dims_text_any_separators(fake_png: None, dims: list[int], seps: list[str]) -> None:
    # Every size above sqrt(65536) = 256, so every chain is inside the closed forms.
    text = "".join(f"{p}{sep}" for p, sep in zip(dims, seps, strict=False)).rstrip(" ,;")
    ex = _chain_for_property()
    ex.controls["dims"].value = text
    assert ex.error is None
    assert ex.dims == tuple(dims)
    assert ex.result == cm.chain.data_movement(dims, 65536)


_CHAIN: list[MatrixChain] = []


def _chain_for_property() -> MatrixChain:
    if not _CHAIN:
        _CHAIN.append(cm.explore.matrix_chain())
    return _CHAIN[0]


# --------------------------------------------------------------------------------------
# Matrix chain
# --------------------------------------------------------------------------------------


def test_chain_default_is_the_d7_example(chain_ex: MatrixChain) -> None:
    ex = chain_ex
    assert isinstance(ex, MatrixChain)
    assert list(ex.dims) == D7_DIMS
    # 000 App. D.7: hyper-nodes {A1(A2A3)} and {(A4A5)A6}; S(1,6) = 10,190,344 words and
    # F(1,6) + P0 P6 = 8,392,058 words (the seed truncates 8,392,058.66).
    assert ex.result.hypernode_parenthesization == "({A1(A2A3)}{(A4A5)A6})"
    assert ex.result.single_mm_total == 10_190_344
    assert int(ex.result.fused_total) == 8_392_058
    assert "<code>({A1(A2A3)}{(A4A5)A6})</code>" in _summary(ex)
    assert ex.controls["dims"].value == "936, 1008, 552, 368, 1016, 616, 544"


def test_chain_dims_text_updates_tree_and_front(chain_ex: MatrixChain) -> None:
    ex = chain_ex
    before = _shown_png(ex)
    ex.controls["dims"].value = "[400, 2000 300;500]"  # commas, spaces, semicolons
    assert ex.error is None
    dims = [400, 2000, 300, 500]
    expected = cm.chain.data_movement(dims, 65536)
    assert ex.result == expected
    assert ex.front == cm.chain.pareto_front(dims, 65536)
    assert f"<code>{expected.hypernode_parenthesization}</code>" in _summary(ex)
    for p in ex.front:
        assert f"<code>{p.plan}</code>" in _summary(ex)
    assert ex.controls["dims"].value == "400, 2000, 300, 500"  # shown normalized
    assert _shown_png(ex) != before


def test_chain_capacity_and_beta_pickers(chain_ex: MatrixChain) -> None:
    ex = chain_ex
    ex.controls["M"].value = 98304
    ex.controls["beta"].value = "derived"
    expected = cm.chain.data_movement(D7_DIMS, 98304, beta="derived")
    assert ex.result == expected
    assert ex.front == cm.chain.pareto_front(D7_DIMS, 98304, beta="derived")
    assert "M = 98,304 words" in _summary(ex)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("936, abc", "dims: 'abc' is not an integer"),
        ("936, 1008", "dims: need at least 3 sizes"),
        (", ".join(["400"] * (MAX_MATRICES + 2)), "dims: at most 20 matrices"),
        ("936, 100, 1008", "sqrt"),  # 100 <= sqrt(65536): outside the closed forms
        ("936, -5, 1008", "dims"),
        ("936, 99999999999999999999, 1008", "dims"),
    ],
)
def test_chain_bad_dims_text_is_shown_not_raised(
    chain_ex: MatrixChain, text: str, message: str
) -> None:
    ex = chain_ex
    good = ex.result
    ex.controls["dims"].value = text  # must not raise inside the widget callback
    assert ex.error is not None and message in ex.error
    assert "Not applied" in _summary(ex)
    assert ex.result == good  # the last valid chain stays displayed
    ex.controls["dims"].value = "936, 1008, 552"
    assert ex.error is None
    assert "Not applied" not in _summary(ex)


def test_chain_bad_arguments_raise() -> None:
    with pytest.raises(TypeError, match="dims: expected a sequence"):
        cm.explore.matrix_chain(12)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"dims\[1\]: expected an integer"):
        cm.explore.matrix_chain([936, 1008.5])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="M"):
        cm.explore.matrix_chain(D7_DIMS, M=0)


# --------------------------------------------------------------------------------------
# Display and registry
# --------------------------------------------------------------------------------------


def test_mimebundle_has_widget_view_and_static_png() -> None:
    ex = cm.explore.matrix_chain([936, 1008, 552])
    bundle = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(PNG_SIGNATURE)
    assert bundle["text/plain"] == f"<MatrixChain: {MatrixChain.title}>"
    # The static HTML view: the summary and the same image.
    assert ex.summary_html() in bundle["text/html"]
    assert f"base64,{bundle['image/png']}" in bundle["text/html"]


def test_without_ipywidgets_explorers_are_static(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_base, "widgets_module", lambda: None)
    ex = cm.explore.time_landscape("heat2d", "gtx980", space_size=4096, time_size=1024)
    assert ex.widget is None and ex.controls == {} and ex.outputs == {}
    bundle = ex._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", "image/png"}
    assert base64.b64decode(bundle["image/png"]).startswith(PNG_SIGNATURE)
    ex.update(space_size=8192)  # the state still changes from code
    expected = cm.time.best_tiles("heat2d", "gtx980", (8192, 8192, 1024))
    assert ex.best.tiles == expected.tiles


def test_registry() -> None:
    names = cm.explore.explorers()
    assert {"time", "chain"} <= set(names)
    ex = cm.explore.create("time", stencil="jacobi2d", space_size=2048, time_size=512)
    assert isinstance(ex, TimeLandscape)
    assert ex.sizes == (2048, 2048, 512)
    assert isinstance(cm.explore.create("chain", dims=[936, 1008, 552]), MatrixChain)
    with pytest.raises(ValueError, match="unknown explorer 'nope'"):
        cm.explore.create("nope")
    for wrong in (None, 1, ["time"]):
        with pytest.raises(TypeError, match="name: expected an explorer name"):
            cm.explore.create(wrong)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="fig"):
        cm.explore.figure_png(None)  # type: ignore[arg-type]
    from matplotlib.figure import Figure

    for dpi in (float("nan"), 0, -5):
        with pytest.raises(ValueError, match="dpi"):
            cm.explore.figure_png(Figure(), dpi=dpi)  # type: ignore[arg-type]
    assert cm.explore.figure_png(Figure(), dpi=20).startswith(PNG_SIGNATURE)
    with pytest.raises(ValueError, match="already registered"):
        cm.explore.register("time", "another")(lambda: cm.explore.matrix_chain())


def test_register_and_matrix_chain_refuse_what_they_took_silently() -> None:
    # Adversarial campaign (2026-11-30): a None name broke every later explorers() call;
    # bytes were read as sizes; NumPy integers were refused.
    from costmetrics import explore

    for name, summary in ((None, "x"), (1, "x"), ("", "x"), ("ok", None)):
        with pytest.raises((TypeError, ValueError), match=r"name|summary"):
            explore.register(name, summary)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="factory"):
        explore.register("not_callable", "x")(3)  # type: ignore[type-var]
    assert "time" in explore.explorers()
    for dims in (b"\x03\xa8\x02", bytearray(b"abc")):
        with pytest.raises(TypeError, match="dims"):
            explore.matrix_chain(dims)
    a = explore.matrix_chain([np.int64(936), 1008, 552])  # type: ignore[list-item]
    b = explore.matrix_chain(np.array([936, 1008, 552]))  # type: ignore[arg-type]
    assert a.dims == b.dims == (936, 1008, 552)
