"""What section routing did to a hit, in words: the one wording of every route note, for the pipelines'
hits (``metadata.clinical_route``) and the console's /v1/search hits. A note opens with the question's
intents (``intents=<names>``, or ``none``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def intents_label(names: Iterable[str]) -> str:
    """The intents part of a route note (``intents=<label>``): the names joined, or ``none``."""
    return ",".join(names) or "none"


def not_lifted_note(intents: str) -> str:
    """The note on a hit routing did not lift (``intents``: :func:`intents_label`)."""
    return f"intents={intents}; not lifted"


def lifted_note(intents: str, factor: float) -> str:
    """A pipeline hit's note: the factor routing lifted it by, or not lifted (a factor of 1)."""
    return f"intents={intents}; lifted x{factor:.2f}" if factor > 1.0 else not_lifted_note(intents)


def absent_note(intents: str, absent: Sequence[str]) -> str:
    """The note on every hit of a question whose named records no hit carries (nothing routed)."""
    return f"intents={intents}; not routed: no record here carries {', '.join(absent)}"


def boost_note(intents: str, factor: float, fetched: bool) -> str:
    """A /v1/search hit's note, where the answer reports the boosts once: the factor its section's boost
    lifts it by (scaled by its record's topicality), and whether routing's section fetch added it (no
    component retrieved it)."""
    if fetched:
        return f"intents={intents}; section boost x{factor:.2f}; fetched by routing (no component found it)"
    return (
        f"intents={intents}; section boost x{factor:.2f}"
        if factor > 1.0
        else f"intents={intents}; no section boost"
    )


def unboosted_note(intents: str, boosts_on: bool) -> str:
    """A /v1/search hit's note when routing had nothing to do: boosts off, or no boost for its intents."""
    return f"intents={intents}; boosts off" if not boosts_on else f"intents={intents}; no boost"
