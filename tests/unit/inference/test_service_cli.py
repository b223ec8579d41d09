"""Service options: command-line flags map onto ServiceConfig, and impossible settings are refused."""

from __future__ import annotations

import argparse

import pytest

from control_plane.inference.cli import add_service_arguments, build_parser, config_from_args
from control_plane.inference.config import ServiceConfig


def test_defaults_serve_the_dense_models_and_splade_on_loopback_8501() -> None:
    config = config_from_args(build_parser().parse_args([]))
    assert config == ServiceConfig()
    assert (config.host, config.port) == ("127.0.0.1", 8501)
    assert config.dense_models == ("bge-small-bio", "bge-small", "minilm")
    assert config.sparse_models == ("splade-tiny", "splade-tiny-bio")
    assert config.rerank_models == ("ce-minilm", "ce-bge-small", "ce-bge-small-distil")


def test_flags_map_onto_the_config() -> None:
    flags = "--port 9000 --dense minilm --dense mpnet --max-batch 8 --queue-size 4 --max-items 10"
    flags += " --max-chars 500 --timeout 2.5 --top-k 64 --min-weight 0.1"
    args = build_parser().parse_args(flags.split())
    config = config_from_args(args)
    assert config.dense_models == ("minilm", "mpnet") and config.port == 9000
    assert (config.max_batch, config.queue_size, config.max_items, config.max_chars) == (8, 4, 10, 500)
    assert (config.request_timeout_s, config.sparse_top_k, config.sparse_min_weight) == (2.5, 64, 0.1)


def test_the_options_can_be_added_to_another_cli() -> None:
    parser = argparse.ArgumentParser(prog="biohybrid")
    add_service_arguments(parser.add_subparsers(dest="command").add_parser("serve-models"))
    assert config_from_args(parser.parse_args(["serve-models", "--port", "1234"])).port == 1234


@pytest.mark.parametrize(
    ("changes", "names"),
    [
        ({"max_batch": 0}, "max_batch"),
        ({"queue_size": 0}, "queue_size"),
        ({"request_timeout_s": 0}, "request_timeout_s"),
        ({"dense_models": (), "sparse_models": (), "rerank_models": ()}, "at least one"),
    ],
)
def test_impossible_settings_are_refused(changes: dict[str, object], names: str) -> None:
    with pytest.raises(ValueError, match=names):
        ServiceConfig(**changes)  # type: ignore[arg-type]
