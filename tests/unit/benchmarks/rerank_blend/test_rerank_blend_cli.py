"""The rerank benchmarks' command lines: the model they call is the one named, else the configured one."""

from __future__ import annotations

import argparse

import pytest

from benchmarks.rerank_blend.cli import build_parser as blend_parser
from benchmarks.rerank_blend.cli import grid_of
from benchmarks.rerank_latency.cli import build_parser as latency_parser


@pytest.mark.parametrize("parser", [blend_parser(), latency_parser()])
def test_model_is_the_named_one_or_left_to_the_settings(parser: argparse.ArgumentParser) -> None:
    required = ["--test-set", "nfcorpus/dev", "--index", "chunks-nfcorpus", "--out", "x.md"]
    assert parser.parse_args([*required, "--model", "ce-minilm"]).model == "ce-minilm"
    assert parser.parse_args(required).model is None


def test_fixed_point_is_the_fused_baseline_and_that_point() -> None:
    args = blend_parser().parse_args(["--out", "x.md", "--fixed", "20:0.3"])
    assert grid_of(args) == [(20, 0.0), (20, 0.3)]
