"""`biohybrid encode-seed`: no node needed; a source that is not there is refused before any model loads;
a run writes the seed and says how many texts, how long and how big."""

from __future__ import annotations

from pathlib import Path

import pytest

from control_plane.cli.main import main
from control_plane.config.settings import LOCAL_FILE
from control_plane.ingestion.encoding_seed import read_seed


def test_a_source_that_is_not_there_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "--config",
            str(LOCAL_FILE),
            "encode-seed",
            str(tmp_path / "nowhere"),
            "--out",
            str(tmp_path / "s.npz"),
        ]
    )
    assert code == 2
    assert "no such dataset, file or folder" in capsys.readouterr().err
    assert not (tmp_path / "s.npz").exists()


def test_a_run_writes_the_seed_without_a_node(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    article = tmp_path / "PMC1.nxml"
    article.write_text(
        '<article><front><article-meta><article-id pub-id-type="pmc">1</article-id><title-group>'
        "<article-title>Statins and myopathy</article-title></title-group></article-meta></front><body><sec>"
        "<title>Results</title><p>Myalgia was reported in 12 of 150 patients.</p></sec></body>"
        "</article>",
        encoding="utf-8",
    )
    out = tmp_path / "seed.npz"
    settings = ["--config", str(LOCAL_FILE)]
    assert (
        main(
            [
                *settings,
                "--log-format",
                "text",
                "encode-seed",
                str(article),
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    line = capsys.readouterr().out
    assert f"{out}: " in line and "chunk texts (" in line and "1 documents" in line and " MB" in line
    seed = read_seed(out)
    assert len(seed) >= 1 and seed.made["sources"] == [str(article)]
