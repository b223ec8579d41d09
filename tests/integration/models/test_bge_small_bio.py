"""bge-small-bio, the fine-tuned bge-small joined from its committed pieces: its int8 vectors stay close to
the fp32 graph it was quantised from (reference vectors committed by the export), it pools and prefixes
as bge-small does, and it is a different model from bge-small."""

from __future__ import annotations

import numpy as np
import pytest
from integration.int8_kernels import saturating_u8s8

from control_plane.locations import REPOSITORY_ROOT
from control_plane.models import DenseEncoder

REFERENCE = REPOSITORY_ROOT / "model_artifacts" / "reference" / "bge-small-bio.npz"


# A known defect on CPUs without VNNI, not hidden: strict, so it must still fail there, and the mark
# must go once the graph is re-quantised for them (reduce_range or u8u8 weights: needs the export extra).
@pytest.mark.xfail(
    saturating_u8s8(),  # on this project's 2-core VM without VNNI, 2026-11-27: minimum cosine 0.984
    reason="int8 u8s8 kernels saturate on x86 AVX2 without VNNI: vectors drift from fp32",
    strict=True,
)
def test_int8_vectors_match_the_fp32_graphs_reference(bge_small_bio: DenseEncoder) -> None:
    reference = np.load(REFERENCE)
    texts = [str(t) for t in reference["texts"]]
    vectors = bge_small_bio.encode(texts)
    assert vectors.shape == reference["fp32"].shape == (len(texts), 384)
    cosines = np.sum(vectors * reference["fp32"], axis=1)
    assert float(cosines.min()) > 0.995, cosines  # the export measured 0.9968 (int8 against fp32)


def test_it_is_tuned_not_the_published_model(bge_small_bio: DenseEncoder, bge_small: DenseEncoder) -> None:
    texts = [str(t) for t in np.load(REFERENCE)["texts"]]
    cosines = np.sum(bge_small_bio.encode(texts) * bge_small.encode(texts), axis=1)
    assert 0.9 < float(cosines.mean()) < 0.999  # the same family, moved by fine-tuning (0.991 measured)


def test_queries_get_bge_smalls_instruction(bge_small_bio: DenseEncoder) -> None:
    query = "statins and muscle pain"
    [as_query] = bge_small_bio.encode_queries([query])
    [by_hand] = bge_small_bio.encode([bge_small_bio.query_prefix + query])
    np.testing.assert_array_equal(as_query, by_hand)
    assert bge_small_bio.query_prefix.startswith("Represent this sentence")
