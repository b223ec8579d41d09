"""Command-line argument types the benchmarks share."""

from __future__ import annotations

import argparse

from control_plane.testsets.catalog import is_test_split


def non_test_split(text: str) -> tuple[str, str]:
    """``TEST_SET=INDEX`` on a train or dev split (settings are never chosen on a test split)."""
    test_set, _, index = text.partition("=")
    if not index or is_test_split(test_set):
        raise argparse.ArgumentTypeError(f"expected TEST_SET=INDEX on a non-test split, got {text!r}")
    return test_set, index


def split_limit(text: str) -> tuple[str, int]:
    """``TEST_SET=N``: the first N (≥ 1) judged queries of that split."""
    test_set, _, count = text.partition("=")
    if not count.isdigit() or int(count) < 1:
        raise argparse.ArgumentTypeError(f"expected TEST_SET=N with N >= 1, got {text!r}")
    return test_set, int(count)
