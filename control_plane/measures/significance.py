"""Paired significance of one configuration against another over the same queries.

The paired randomization (sign-flip permutation) test is the one Smucker, Allan and Carterette
(CIKM 2007) recommend for IR: under the null hypothesis each query's two scores are exchangeable, so
the sign of each per-query difference is a coin flip. The p-value is two-sided on the mean
difference. With few queries every sign pattern is enumerated (exact); otherwise ``permutations``
random patterns from a seeded generator, counting the observed one (p = (1 + hits) / (1 + R)), so a
p-value is never 0 and a run is reproducible.

Holm's step-down adjustment is given for comparing many configurations against one baseline.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

_TOLERANCE = 1e-12  # a permuted mean equal to the observed one up to rounding counts as "as extreme"
_BATCH = 2000


@dataclass(frozen=True)
class PairedTest:
    """Treatment minus baseline over ``n`` paired queries; ``exact`` when all 2**n patterns were used."""

    mean_difference: float
    p_value: float
    n: int
    exact: bool


def _differences(baseline: Sequence[float], treatment: Sequence[float]) -> np.ndarray:
    if len(baseline) != len(treatment):
        raise ValueError(f"paired samples differ in length: {len(baseline)} vs {len(treatment)}")
    if not baseline:
        raise ValueError("no paired values to test")
    return np.asarray(treatment, dtype=np.float64) - np.asarray(baseline, dtype=np.float64)


def _exact_p_value(differences: np.ndarray, observed: float) -> float:
    """Share of all 2**n sign patterns whose |mean| is at least the observed |mean|."""
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(differences))))
    means = np.abs(signs @ differences) / len(differences)
    return float(np.count_nonzero(means >= observed - _TOLERANCE)) / len(signs)


def _sampled_p_value(differences: np.ndarray, observed: float, permutations: int, seed: int) -> float:
    generator = np.random.default_rng(seed)
    hits = 0
    remaining = permutations
    while remaining:
        batch = min(_BATCH, remaining)
        signs = generator.choice((-1.0, 1.0), size=(batch, len(differences)))
        means = np.abs(signs @ differences) / len(differences)
        hits += int(np.count_nonzero(means >= observed - _TOLERANCE))
        remaining -= batch
    return (1 + hits) / (1 + permutations)


def paired_randomization_test(
    baseline: Sequence[float], treatment: Sequence[float], permutations: int = 10000, seed: int = 0
) -> PairedTest:
    """Two-sided paired randomization test; exact when 2**n <= permutations."""
    differences = _differences(baseline, treatment)
    n = len(differences)
    mean = math.fsum(differences.tolist()) / n
    if not np.any(differences):
        return PairedTest(mean_difference=0.0, p_value=1.0, n=n, exact=True)
    observed = abs(mean)
    exact = n < 64 and 2**n <= permutations
    p_value = (
        _exact_p_value(differences, observed)
        if exact
        else _sampled_p_value(differences, observed, permutations, seed)
    )
    return PairedTest(mean_difference=mean, p_value=min(1.0, p_value), n=n, exact=exact)


def paired_test_by_query(
    baseline: Mapping[str, float],
    treatment: Mapping[str, float],
    permutations: int = 10000,
    seed: int = 0,
) -> PairedTest:
    """The test over query id -> value maps; both must cover the same queries."""
    if baseline.keys() != treatment.keys():
        missing = sorted(baseline.keys() ^ treatment.keys())[:5]
        raise ValueError(f"paired runs cover different queries (e.g. {missing}); evaluate both on one set")
    query_ids = sorted(baseline)
    return paired_randomization_test(
        [baseline[q] for q in query_ids], [treatment[q] for q in query_ids], permutations, seed
    )


def holm_adjust(p_values: Mapping[str, float]) -> dict[str, float]:
    """Holm-Bonferroni adjusted p-values: sorted ascending, the i-th (0-based) of m is multiplied by
    m - i, then made non-decreasing and capped at 1."""
    ordered = sorted(p_values.items(), key=lambda item: item[1])
    m = len(ordered)
    adjusted: dict[str, float] = {}
    running = 0.0
    for index, (name, p_value) in enumerate(ordered):
        running = max(running, min(1.0, (m - index) * p_value))
        adjusted[name] = running
    return adjusted
