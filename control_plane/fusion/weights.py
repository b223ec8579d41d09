"""Fusion weights restricted to the components a search uses: the one rescaling rule of min-max and
weighted RRF (OpenSearch demands weights that sum to 1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def weights_in_use(chosen: Mapping[str, float], components: Sequence[str]) -> dict[str, float]:
    """``chosen``'s weights of ``components`` (0 for one it does not name), rescaled to sum to 1; equal
    weights when none of them is above 0. A dropped component's weight is shared out in proportion."""
    kept = {name: float(chosen.get(name, 0.0)) for name in components}
    total = sum(kept.values())
    if total <= 0:
        return {name: 1.0 / len(components) for name in components}
    return {name: value / total for name, value in kept.items()}
