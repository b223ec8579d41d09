from __future__ import annotations

from pathlib import Path

from control_plane.reports.figures import new_figure, save_figure


def test_a_figure_is_written_as_png(tmp_path: Path) -> None:
    figure = new_figure(2, 2)
    figure.add_subplot(1, 1, 1).plot([0, 1], [1, 0])
    save_figure(figure, tmp_path / "sub" / "plot.png")
    assert (tmp_path / "sub" / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
