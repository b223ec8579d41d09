"""A re-encode refuses a vector field whose dimension the dense model cannot fill (pure part)."""

from __future__ import annotations

import pytest

from control_plane.ingestion.reencode import ReencodeError, check_dimension

KNN_384 = {"properties": {"embedding": {"type": "knn_vector", "dimension": 384}}}


def test_the_same_dimension_or_none_to_check_passes() -> None:
    check_dimension("chunks-x", KNN_384, 384)
    check_dimension("chunks-x", KNN_384, None)
    check_dimension("chunks-x", {"properties": {"embedding": {"type": "object", "enabled": False}}}, 768)


def test_another_dimension_is_refused_naming_both() -> None:
    with pytest.raises(
        ReencodeError, match="chunks-x holds 384-dimensional vectors and the dense model gives 768"
    ):
        check_dimension("chunks-x", KNN_384, 768)
