"""The natural clinical set's grading rule and split rule (pure)."""

from __future__ import annotations

import pytest

from control_plane.evaluation.natural_set.build import group_split, query_split
from control_plane.evaluation.natural_set.judge import grade


@pytest.mark.parametrize(
    ("intents", "answers", "on_topic", "partial", "has_topic", "expected"),
    [
        (["dosage"], "D", True, False, True, 2),
        (["dosage"], "D", False, False, True, 0),  # another topic's record
        (["dosage"], "D", True, True, True, 1),  # a record only partly on the topic
        (["dosage"], "d", True, False, True, 1),
        (["dosage"], "E", True, False, True, 0),
        (["dosage"], "NI", True, False, True, 1),  # an overview of the right record
        (["dosage", "adverse_events"], "AT", True, False, True, 2),
        ([], "N", True, False, True, 2),
        ([], "E", True, False, True, 1),
        (["results"], "RT", False, False, False, 2),  # no topic: every record is judged
        (["results"], "N", False, False, False, 0),
        (["results"], "", True, False, True, 0),
    ],
)
def test_grade(
    intents: list[str], answers: str, on_topic: bool, partial: bool, has_topic: bool, expected: int
) -> None:
    assert grade(intents, answers, on_topic, partial, has_topic) == expected


def test_split_follows_the_group_hash_only() -> None:
    queries = [{"_id": f"q{n}", "metadata": {"group": group}} for n, group in enumerate("aabbc")]
    splits = query_split(queries)
    assert splits["q0"] == splits["q1"] == group_split("a")
    assert splits["q2"] == splits["q3"] == group_split("b")
    assert query_split(queries[:3])["q2"] == splits["q2"]  # dropping a question moves no other group
