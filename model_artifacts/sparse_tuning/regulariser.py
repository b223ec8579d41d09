"""The FLOPS regulariser of SPLADE (Paria et al. 2020; Formal et al. 2021), for numpy arrays and torch
tensors alike.

``flops(W) = Σ_j (mean_i |W_ij|)²`` over a batch's [texts, vocabulary] weights: the squared mean weight of
each vocabulary entry, summed. It approximates the number of multiplications a query costs against an
index (an entry used by many texts is a long posting list), and, unlike an L1 penalty, pushes hardest on
the entries every text uses.
"""

from __future__ import annotations

from typing import Any


def flops(weights: Any) -> Any:
    """``Σ_j (mean_i |w_ij|)²`` of a [texts, vocabulary] array or tensor (SPLADE weights are ≥ 0)."""
    return (abs(weights).mean(0) ** 2).sum()


def ramped(weight: float, step: int, ramp_steps: int) -> float:
    """SPLADE's quadratic warm-up of a regulariser's weight: ``weight · min(1, (step+1)/ramp)²``, so the
    ranking loss shapes the vectors before sparsity is pressed on them."""
    if ramp_steps <= 0:
        return weight
    return weight * min(1.0, (step + 1) / ramp_steps) ** 2
