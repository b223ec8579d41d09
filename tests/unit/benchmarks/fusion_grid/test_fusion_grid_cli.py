"""The fusion grid's command line: a split may be limited to its first N judged queries."""

from __future__ import annotations

import pytest

from benchmarks.fusion_grid.cli import build_parser


def test_a_limit_names_a_split_and_a_positive_count() -> None:
    args = build_parser().parse_args(
        [
            "--split",
            "nfcorpus/dev=a",
            "--split",
            "scifact/train=b",
            "--limit",
            "scifact/train=300",
            "--out",
            "r.md",
        ]
    )
    assert args.split == [("nfcorpus/dev", "a"), ("scifact/train", "b")]
    assert dict(args.limit) == {"scifact/train": 300}


@pytest.mark.parametrize("limit", ["scifact/train", "scifact/train=0", "scifact/train=x"])
def test_a_malformed_limit_is_refused(limit: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--split", "scifact/train=b", "--limit", limit, "--out", "r.md"])
    assert "expected TEST_SET=N with N >= 1" in capsys.readouterr().err
