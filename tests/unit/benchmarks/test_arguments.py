from __future__ import annotations

import argparse

import pytest

from benchmarks.arguments import non_test_split
from control_plane.testsets.catalog import is_test_split


@pytest.mark.parametrize("test_set", ["nfcorpus/test", "clinical/test", "testsets/clinical:test"])
def test_test_splits_are_named_as_such(test_set: str) -> None:
    assert is_test_split(test_set)
    with pytest.raises(argparse.ArgumentTypeError, match="non-test split"):
        non_test_split(f"{test_set}=chunks-x")


def test_train_and_dev_splits_pass_with_their_index() -> None:
    assert not is_test_split("scifact/train") and not is_test_split("nfcorpus/dev")
    assert non_test_split("nfcorpus/dev=chunks-nfcorpus") == ("nfcorpus/dev", "chunks-nfcorpus")
    with pytest.raises(argparse.ArgumentTypeError, match="TEST_SET=INDEX"):
        non_test_split("nfcorpus/dev")


def test_settings_are_never_chosen_on_a_test_split() -> None:
    assert non_test_split("nfcorpus/dev=chunks-nfcorpus") == ("nfcorpus/dev", "chunks-nfcorpus")
    for bad in ("nfcorpus/test=chunks-nfcorpus", "nfcorpus/dev"):
        with pytest.raises(argparse.ArgumentTypeError):
            non_test_split(bad)
