"""The models `biohybrid service start` asks the background service to serve, as its own options."""

from __future__ import annotations

from control_plane.inference.process import model_options


def test_each_model_becomes_its_roles_option_in_order() -> None:
    assert model_options(["minilm"], [], ["ce-minilm", "ce-bge-small-distil"]) == (
        "--dense",
        "minilm",
        "--rerank",
        "ce-minilm",
        "--rerank",
        "ce-bge-small-distil",
    )


def test_no_model_asked_leaves_every_default_to_the_service() -> None:
    assert model_options([], [], []) == ()
