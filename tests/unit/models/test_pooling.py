"""Pooling of token states, checked against values worked out by hand."""

import numpy as np
import pytest

from control_plane.models.pooling import cls_pool, l2_normalize, mean_pool, pool

# two texts, three positions, two dimensions; the second text has one padding position
HIDDEN = np.array(
    [
        [[3.0, 4.0], [1.0, 1.0], [5.0, 5.0]],
        [[0.0, 2.0], [2.0, 0.0], [100.0, 100.0]],
    ],
    dtype=np.float32,
)
MASK = np.array([[1, 1, 1], [1, 1, 0]], dtype=np.int64)


def test_cls_takes_the_first_position() -> None:
    assert cls_pool(HIDDEN).tolist() == [[3.0, 4.0], [0.0, 2.0]]


def test_mean_leaves_padding_out() -> None:
    assert mean_pool(HIDDEN, MASK).tolist() == [[3.0, pytest.approx(10.0 / 3.0)], [1.0, 1.0]]


def test_l2_normalize_gives_unit_rows_and_keeps_a_zero_row() -> None:
    out = l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32))
    assert out.tolist() == [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]


def test_pool_normalises_when_asked_and_refuses_an_unknown_method() -> None:
    assert pool(HIDDEN, MASK, "cls", normalize=True)[0].tolist() == pytest.approx([0.6, 0.8])
    assert pool(HIDDEN, MASK, "cls", normalize=False)[0].tolist() == [3.0, 4.0]
    with pytest.raises(ValueError, match="unknown pooling 'max'"):
        pool(HIDDEN, MASK, "max", normalize=True)
