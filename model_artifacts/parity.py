"""Parity measures between a reference and a variant's outputs (plain numpy, no model code)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]
TOLERANCE = 1e-4  # max abs diff allowed between the fp32 ONNX graph and PyTorch


def max_abs_diff(a: Matrix, b: Matrix) -> float:
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


def row_cosines(a: Matrix, b: Matrix) -> npt.NDArray[np.float64]:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    norms = np.maximum(np.linalg.norm(a64, axis=1) * np.linalg.norm(b64, axis=1), 1e-12)
    cos: npt.NDArray[np.float64] = np.sum(a64 * b64, axis=1) / norms
    return cos


def top_k(queries: Matrix, documents: Matrix, k: int) -> npt.NDArray[np.int64]:
    """Indices of each query's k best documents by inner product (ties broken by index)."""
    scores = queries.astype(np.float64) @ documents.astype(np.float64).T
    order: npt.NDArray[np.int64] = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return order


def top_k_overlap(reference: npt.NDArray[np.int64], variant: npt.NDArray[np.int64]) -> float:
    """Mean fraction of each query's reference top-k that the variant also ranks in its top-k."""
    k = reference.shape[1]
    return float(np.mean([len(set(r) & set(v)) / k for r, v in zip(reference, variant, strict=True)]))


@dataclass(frozen=True)
class VariantParity:
    """How far a variant moves outputs on the query sample, relative to fp32 ONNX."""

    cosine_mean: float
    cosine_min: float
    top10_overlap: float


def variant_parity(ref_q: Matrix, ref_d: Matrix, var_q: Matrix, var_d: Matrix) -> VariantParity:
    cos = np.concatenate([row_cosines(ref_q, var_q), row_cosines(ref_d, var_d)])
    overlap = top_k_overlap(top_k(ref_q, ref_d, 10), top_k(var_q, var_d, 10))
    return VariantParity(cosine_mean=float(cos.mean()), cosine_min=float(cos.min()), top10_overlap=overlap)
