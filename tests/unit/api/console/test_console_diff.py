"""The console's diff of two ranked lists, on lists whose marks are worked out by hand."""

from __future__ import annotations

from control_plane.api.console.diff import DiffSummary, Mark, Ranked, compare, first_ranks

A = [Ranked("c1", "d1"), Ranked("c2", "d2"), Ranked("c3", "d3"), Ranked("c4", "d4")]
B = [Ranked("c2", "d2"), Ranked("c1", "d1"), Ranked("c3", "d3"), Ranked("c6", "d4"), Ranked("c7", "d9")]


def test_each_hit_is_marked_against_the_other_list() -> None:
    marks_a, marks_b, _ = compare(A, B)
    assert marks_a == [
        Mark("up", "up 1 (B #2)", moved=1, other_rank=2),
        Mark("down", "down 1 (B #1)", moved=1, other_rank=1),
        Mark("same", "same rank", other_rank=3),
        Mark("only", "only here (record at B #4)", record_rank=4),
    ]
    assert marks_b == [
        Mark("up", "up 1 (A #2)", moved=1, other_rank=2),
        Mark("down", "down 1 (A #1)", moved=1, other_rank=1),
        Mark("same", "same rank", other_rank=3),
        Mark("only", "only here (record at A #4)", record_rank=4),
        Mark("only", "only here"),
    ]


def test_the_summary_counts_shared_moved_and_unshared_hits() -> None:
    assert compare(A, B)[2] == DiffSummary(shared=3, same_rank=1, moved=2, only_a=1, only_b=2)


def test_a_far_move_counts_every_place() -> None:
    far = [Ranked("x", "dx"), *A]  # c1..c4 now at ranks 2..5
    marks_a, marks_b, _ = compare(far, list(reversed(A)))
    # far: x #1, c1 #2, c2 #3, c3 #4, c4 #5; reversed A: c4 #1, c3 #2, c2 #3, c1 #4
    assert [m.label for m in marks_a] == [
        "only here",
        "up 2 (B #4)",
        "same rank",
        "down 2 (B #2)",
        "down 4 (B #1)",
    ]
    assert [m.label for m in marks_b] == ["up 4 (A #5)", "up 2 (A #4)", "same rank", "down 2 (A #2)"]


def test_identical_lists_are_all_same_rank_and_empty_lists_have_nothing() -> None:
    marks_a, marks_b, summary = compare(A, A)
    assert {m.kind for m in marks_a + marks_b} == {"same"}
    assert summary == DiffSummary(shared=4, same_rank=4, moved=0, only_a=0, only_b=0)
    assert compare([], A)[2] == DiffSummary(shared=0, same_rank=0, moved=0, only_a=0, only_b=4)


def test_a_value_listed_twice_keeps_its_better_place() -> None:
    assert first_ranks(["x", "y", "x"]) == {"x": 1, "y": 2}
