"""rnnlab.course.plots.smoke_figure_style: smoke-profile figures carry a watermark and a hatched
grey
background, every other profile's figures are untouched."""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from rnnlab.course import plots


def _figure(suptitle: str | None = None) -> Figure:
    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.plot([1, 2, 3], [1, 4, 9])
    ax.set_title("test accuracy by depth")
    if suptitle:
        fig.suptitle(suptitle)
    return fig


def _pixels(fig: Figure) -> np.ndarray:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=50)
    import matplotlib.image

    buffer.seek(0)
    return matplotlib.image.imread(buffer)


def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.texts]


def test_smoke_figure_gets_watermark_hatching_and_title_prefix() -> None:
    fig = plots.smoke_figure_style(_figure(), "smoke")
    assert plots.SMOKE_WATERMARK in _texts(fig)
    assert "NOT EVIDENCE" in plots.SMOKE_WATERMARK and "CODE-PATH CHECK" in plots.SMOKE_WATERMARK
    backgrounds = [
        p for p in fig.axes[0].patches if isinstance(p, Rectangle) and p.get_hatch() == "//"
    ]
    assert len(backgrounds) == 1
    assert fig.axes[0].get_title().startswith("[smoke] ")
    assert fig.get_facecolor()[:3] != (1.0, 1.0, 1.0)


def test_smoke_figure_looks_different_from_evidence() -> None:
    plain = _pixels(_figure())
    smoke = _pixels(plots.smoke_figure_style(_figure(), "smoke"))
    assert plain.shape == smoke.shape
    # most of a plain figure is white; the smoke figure's background is grey
    white = lambda img: float(np.mean(np.all(img[..., :3] > 0.98, axis=-1)))  # noqa: E731
    assert white(plain) > 0.6
    assert white(smoke) < 0.2


def test_suptitle_is_prefixed_when_present() -> None:
    fig = plots.smoke_figure_style(_figure("Lab A"), "smoke")
    assert fig._suptitle.get_text() == "[smoke] Lab A"
    assert fig.axes[0].get_title() == "test accuracy by depth"


@pytest.mark.parametrize("profile", ["cpu", "gpu", "", "SMOKEY"])
def test_other_profiles_are_untouched(profile: str) -> None:
    fig = plots.smoke_figure_style(_figure(), profile)
    assert plots.SMOKE_WATERMARK not in _texts(fig)
    assert not fig.axes[0].patches
    assert fig.axes[0].get_title() == "test accuracy by depth"


def test_profile_from_environment_and_idempotent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RNNLAB_PROFILE", "smoke")
    fig = plots.smoke_figure_style(plots.smoke_figure_style(_figure()))
    assert _texts(fig).count(plots.SMOKE_WATERMARK) == 1
    assert fig.axes[0].get_title() == "[smoke] test accuracy by depth"
    monkeypatch.setenv("RNNLAB_PROFILE", "cpu")
    assert plots.SMOKE_WATERMARK not in _texts(plots.smoke_figure_style(_figure()))
