"""The SPLADE field's mapping and what it implies for the index, per ``index.sparse.method`` (rendered into
chunk-mappings.json through the ``index.sparse.*`` parameters).

A SEISMIC ``sparse_vector`` needs ``index.sparse: true``, and OpenSearch 3.6 lets one plugin supply an
index's codec (OpenSearch issue 18466): such an index cannot be a k-NN index (``index.knn``), and a
``knn_vector`` with an HNSW method needs one. So under SEISMIC the dense ``embedding`` is kept in _source
only (not searchable) and the dense component has nothing to search there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from control_plane.config.index_settings import SparseIndexSettings
from control_plane.locations import RESOURCES_DIR
from control_plane.resources.render import render

SEISMIC_INDEX_PARAMETERS = ("n_postings", "cluster_ratio", "summary_prune_ratio", "approximate_threshold")
EMBEDDING_KNN_FILE = Path("index_templates/fields/embedding-knn.json")
STORED_ONLY: dict[str, Any] = {"type": "object", "enabled": False}


def sparse_field(sparse: SparseIndexSettings) -> dict[str, Any]:
    """``rank_features``, or a ``sparse_vector`` with the SEISMIC method and its index-time parameters
    (a parameter left None takes OpenSearch's default)."""
    if sparse.method == "rank_features":
        return {"type": "rank_features"}
    parameters = {
        name: value for name in SEISMIC_INDEX_PARAMETERS if (value := getattr(sparse, name)) is not None
    }
    return {"type": "sparse_vector", "method": {"name": "seismic", "parameters": parameters}}


def sparse_index_settings(sparse: SparseIndexSettings) -> dict[str, Any]:
    """The index codec switch: k-NN (``index.knn``) with rank_features, ``index.sparse`` with SEISMIC."""
    return {"sparse": True} if sparse.method == "seismic" else {"knn": True}


def embedding_field(
    sparse: SparseIndexSettings, params: Mapping[str, Any], root: Path = RESOURCES_DIR
) -> dict[str, Any]:
    """The dense field: the k-NN ``knn_vector`` (fields/embedding-knn.json rendered with ``params``), or,
    in a SEISMIC index, the vectors stored in _source only."""
    if sparse.method == "seismic":
        return dict(STORED_ONLY)
    path = root / EMBEDDING_KNN_FILE
    rendered: dict[str, Any] = render(
        json.loads(path.read_text(encoding="utf-8")), params, str(EMBEDDING_KNN_FILE)
    )
    return rendered
