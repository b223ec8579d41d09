"""Clinical section routing that keeps topicality first.

A detected intent does not multiply every chunk of its section kind in every record (that lets an
off-topic trial's eligibility section push the asked-about trial out). Instead the fused, topical
ranking decides *which records* the query is about, and the intent decides *which part* of those
records comes first:

    topicality(d)  = best fused score of d's chunks / best fused score overall        (0..1]
    routed(c)      = score(c) / best  +  weight x (factor(c) - 1) x topicality(doc(c))

for chunks of the ``max_documents`` most topical documents whose topicality is at least
``min_topicality`` (judged on the first ``depth`` fused chunks; with ``topicality_outside_asked``, on
each document's chunks that no boost matches: for a question about many records, planning.py, where
the records whose title and declared topics name the question's topic are fully topical:
record_subject.py); every other chunk keeps
``score(c) / best``. ``factor(c)`` is the largest boost factor whose filter the chunk matches (1.0:
none, and always for a near-empty stub), the same factors intents.yaml defines (boost x confidence,
table routing). So a route lifts a section within a record by as much as that record is what the query
is about, and never lifts a record the fused ranking did not already find. A section chunk of a
topical record that is missing from the fused list (``fetched``) enters with score 0 and only if its
route lifts it. A near-empty chunk then sinks below every chunk with content (``sink_near_empty``).
The result is one list ordered by these scores (ties: fused order, fetched last).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from control_plane.clinical.intents import INTENT_FIELD, TABLE_FIELD, Boost
from control_plane.clinical.record_subject import Declarations
from control_plane.config.search_settings import SectionRoutingSettings

_TOLERANCE: Final = 1e-12


@dataclass(frozen=True)
class Candidate:
    """What routing needs of one chunk."""

    chunk_id: str
    doc_id: str
    score: float
    intent_hint: str | None
    is_table: bool
    near_empty: bool = False


def matches(candidate: Candidate, boost: Boost) -> bool:
    if boost.tables_only and not candidate.is_table:
        return False
    if boost.field == INTENT_FIELD:
        return candidate.intent_hint in boost.values
    if boost.field == TABLE_FIELD:
        return candidate.is_table in boost.values
    raise ValueError(f"routing cannot match on field {boost.field!r}")


def route_factor(candidate: Candidate, boosts: Sequence[Boost]) -> float:
    """The largest factor among the boosts the chunk matches; 1.0 when it matches none or is a stub
    (a section holding only its time frame answers nothing, whatever its kind)."""
    if candidate.near_empty:
        return 1.0
    return max((b.factor for b in boosts if matches(candidate, b)), default=1.0)


def topicality(
    candidates: Sequence[Candidate], judged: Sequence[Candidate] | None = None
) -> dict[str, float]:
    """Each document's best score among ``judged`` (default: all) relative to the best score of all
    candidates (empty when nothing scores > 0)."""
    best = max((c.score for c in candidates), default=0.0)
    if best <= _TOLERANCE:
        return {}
    result: dict[str, float] = {}
    for c in candidates if judged is None else judged:
        result[c.doc_id] = max(result.get(c.doc_id, 0.0), c.score / best)
    return result


def topical_documents(
    candidates: Sequence[Candidate],
    params: SectionRoutingSettings,
    boosts: Sequence[Boost] = (),
    declarations: Declarations | None = None,
) -> dict[str, float]:
    """The documents routing may lift sections in, with their topicality, most topical first. With
    ``params.topicality_outside_asked``, a document is judged by its chunks the ``boosts`` do not lift:
    by what it is about, not by the asked section naming the topic. With ``declarations`` (a question
    about many records), the records declaring the question's topic (record_subject.py) come first at
    topicality 1, however the fused ranking placed them; the others are judged as above."""
    judged = (
        [c for c in candidates if route_factor(c, boosts) <= 1.0] if params.topicality_outside_asked else None
    )
    ranked = sorted(topicality(candidates, judged).items(), key=lambda item: -item[1])
    kept = [(doc, t) for doc, t in ranked if t >= params.min_topicality - _TOLERANCE]
    declaring = declarations.declaring() if declarations is not None else frozenset()
    if not declaring:
        return dict(kept[: params.max_documents])
    found = topicality(candidates)  # the record's best chunk, whatever its section: their order
    on_topic = [(doc, 1.0) for doc in sorted(declaring & found.keys(), key=lambda doc: (-found[doc], doc))]
    others = [(doc, t) for doc, t in kept if doc not in declaring]
    return dict([*on_topic, *others][: params.max_documents])


def routed_scores(
    candidates: Sequence[Candidate],
    boosts: Sequence[Boost],
    params: SectionRoutingSettings,
    fetched: Sequence[Candidate] = (),
    topical: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """chunk id -> routed score (see the module docstring) for the fused candidates (best first; the
    first ``params.depth`` decide topicality) and the fetched section chunks the route lifts. With no
    boost or no positive score: the candidates' own scores, unchanged. ``topical``: the
    :func:`topical_documents` of these candidates when the caller already has them (it chose the
    sections to fetch, or notes what was lifted), so the records are judged once."""
    considered = candidates[: params.depth]
    best = max((c.score for c in considered), default=0.0)
    if not boosts or best <= _TOLERANCE:
        return {c.chunk_id: c.score for c in candidates}
    if topical is None:
        topical = topical_documents(considered, params, boosts)

    def lift(c: Candidate) -> float:
        if c.doc_id not in topical:
            return 0.0
        return params.weight * (route_factor(c, boosts) - 1.0) * topical[c.doc_id]

    scores = {c.chunk_id: c.score / best + lift(c) for c in candidates}
    for c in fetched:
        if c.chunk_id not in scores and lift(c) > _TOLERANCE:
            scores[c.chunk_id] = lift(c)
    return sink_near_empty(scores, [*candidates, *fetched])


def sink_near_empty(scores: Mapping[str, float], candidates: Sequence[Candidate]) -> dict[str, float]:
    """The scores with every near-empty chunk below every chunk with content: a stub's score becomes
    at most half the lowest content score (stubs keep their own order), so a routed question never
    answers "Sex: All. Minimum age: N/A." above a criterion. When the lowest content score is 0 (a
    min-max fused list's last chunk), stubs score 0 too: never negative, never above content."""
    stubs = {c.chunk_id for c in candidates if c.near_empty and c.chunk_id in scores}
    content = [score for chunk_id, score in scores.items() if chunk_id not in stubs]
    if not stubs or not content:
        return dict(scores)
    floor = max(min(content), 0.0)
    top = max(scores[chunk_id] for chunk_id in stubs)
    scale = floor / (2 * top) if top > _TOLERANCE else 0.0
    return {chunk_id: score * scale if chunk_id in stubs else score for chunk_id, score in scores.items()}


def routed_order(scores: Mapping[str, float], original: Sequence[str]) -> list[str]:
    """Chunk ids by routed score, best first; ties keep the fused order (fetched chunks after)."""
    position = {chunk_id: index for index, chunk_id in enumerate(original)}
    return sorted(scores, key=lambda chunk_id: (-scores[chunk_id], position.get(chunk_id, len(position))))
