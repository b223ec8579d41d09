"""The report's figures, pure over measured per-question nDCG and detected intents: group means (overall,
per intent, per form), detection precision and recall, and the issue's targets."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from control_plane.clinical.intent_quality import Counts
from control_plane.testsets.catalog import Query

ALL: Final = "all"
NO_INTENT: Final = "none"
TWO_INTENTS: Final = "two or more intents"
MIN_GAIN: Final = 0.05
MIN_OVERALL: Final = 0.85
# clinical-fresh is harder by design (implicit intents, named and many records): issue 48's target there.
MIN_OVERALL_FRESH: Final = 0.80
FRESH_PREFIX: Final = "clinical-fresh/"
MIN_NAMED_TOP3: Final = 0.95
NAMED_FORM: Final = "form:named_record"
MIN_RECALL: Final = 0.85
MIN_PRECISION: Final = 0.9


def labelled_intents(query: Query) -> tuple[str, ...]:
    listed = query.metadata.get("intents") or []
    return tuple(str(name) for name in listed) if isinstance(listed, list) else ()


def question_groups(queries: Iterable[Query]) -> dict[str, list[str]]:
    """Query ids per group: ``all``, ``intent:<name>`` (a two-intent question in each of its intents and
    in ``intent:two or more intents``; no intent: ``intent:none``) and ``form:<form>``."""
    groups: dict[str, list[str]] = defaultdict(list)
    for query in queries:
        groups[ALL].append(query.query_id)
        intents = labelled_intents(query)
        for name in intents or (NO_INTENT,):
            groups[f"intent:{name}"].append(query.query_id)
        if len(intents) > 1:
            groups[f"intent:{TWO_INTENTS}"].append(query.query_id)
        groups[f"form:{query.metadata.get('form', '?')}"].append(query.query_id)
    return dict(groups)


def group_mean(scores: Mapping[str, float], ids: Sequence[str]) -> float:
    return statistics.mean(scores[i] for i in ids) if ids else float("nan")


def detection_counts(
    labelled: Sequence[Iterable[str]], detected: Sequence[Iterable[str]], intents: Iterable[str]
) -> dict[str, Counts]:
    """Micro counts of (question, intent) pairs, overall (``all``) and per intent."""
    counts: dict[str, Counts] = {name: Counts() for name in intents}
    total = Counts()
    for gold_names, found_names in zip(labelled, detected, strict=True):
        gold, found = set(gold_names), set(found_names)
        for name in gold | found:
            pair = Counts(
                int(name in gold and name in found), int(name in found - gold), int(name in gold - found)
            )
            counts[name] = counts.get(name, Counts()) + pair
            total = total + pair
    return {ALL: total, **counts}


@dataclass(frozen=True)
class Verdict:
    target: str
    measured: str
    met: bool


def gain_verdict(path: str, fusion: str, off: float, on: float) -> Verdict:
    return Verdict(
        f"{path}, {fusion}: boosts on >= off + {MIN_GAIN}",
        f"{on:.4f} vs {off:.4f} ({on - off:+.4f})",
        on >= off + MIN_GAIN,
    )


def no_group_below_verdict(path: str, fusion: str, below: Mapping[str, float]) -> Verdict:
    """``below``: intent group -> on minus off, for the groups where boosts on scored lower."""
    listed = ", ".join(f"{group} {delta:+.4f}" for group, delta in below.items()) or "none"
    return Verdict(f"{path}, {fusion}: no intent group below boosts off", f"below: {listed}", not below)


def overall_minimum(split: str) -> float:
    return MIN_OVERALL_FRESH if split.startswith(FRESH_PREFIX) else MIN_OVERALL


def overall_verdict(path: str, fusion: str, on: float, minimum: float = MIN_OVERALL) -> Verdict:
    return Verdict(f"{path}, {fusion}: overall nDCG@10 >= {minimum}", f"{on:.4f}", on >= minimum)


def share(flags: Mapping[str, bool], ids: Sequence[str]) -> float:
    """The share of ``ids`` whose flag is set (nan for none)."""
    return sum(flags[i] for i in ids) / len(ids) if ids else float("nan")


def named_record_verdict(path: str, fusion: str, answered: float, questions: int) -> Verdict:
    """Named-record questions whose record's asked section (a grade-2 chunk) is in the top 3."""
    return Verdict(
        f"{path}, {fusion}: named record's asked section in the top 3 for >= {MIN_NAMED_TOP3:.0%}",
        f"{answered:.1%} of {questions}",
        answered >= MIN_NAMED_TOP3,
    )


def detection_verdict(counts: Counts) -> Verdict:
    precision, recall = counts.precision or 0.0, counts.recall or 0.0
    return Verdict(
        f"intent recall >= {MIN_RECALL} at precision >= {MIN_PRECISION}",
        f"recall {recall:.3f}, precision {precision:.3f}",
        recall >= MIN_RECALL and precision >= MIN_PRECISION,
    )


def intent_groups_below(
    off: Mapping[str, float], on: Mapping[str, float], groups: Mapping[str, Sequence[str]]
) -> dict[str, float]:
    """Intent groups where the mean nDCG@10 with boosts on is below boosts off: group -> on - off."""
    below = {}
    for name, ids in groups.items():
        if name.startswith("intent:"):
            delta = group_mean(on, ids) - group_mean(off, ids)
            if delta < 0:
                below[name.removeprefix("intent:")] = delta
    return below
