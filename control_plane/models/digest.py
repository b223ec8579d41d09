"""What identifies a loaded model's outputs, so caches of encodings never serve one model's vectors for
another: a digest of its verified files and options, and its tokenizer's normalizer and pre-tokenizer
(what the model does to a text before it sees it, e.g. lowercasing, so a cache can merge texts the model
cannot tell apart).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from control_plane.models.loading import LoadedModel


def model_digest(model: LoadedModel, **options: object) -> str:
    """A digest of what determines a model's outputs: its verified files (sha256 from the manifest), its
    maximum length and the encoder's ``options`` (query prefix, sparse cut). The ingest encoding cache
    keys rows by it; the inference service reports it per served model (GET /v1/models)."""
    artifact = model.spec.artifacts[model.files.variant]
    described = {
        "name": model.spec.name,
        "variant": model.files.variant,
        "files": {name: digest.sha256 for name, digest in sorted(artifact.files.items())},
        "max_length": model.spec.max_length,
        "options": options,
    }
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()[:32]


def text_processing(model: LoadedModel) -> dict[str, Any]:
    """The ``normalizer`` and ``pre_tokenizer`` sections of the model's tokenizer.json (None where absent):
    what the model does to a text before its vocabulary lookup."""
    document = json.loads(model.files.tokenizer.read_text(encoding="utf-8"))
    return {section: document.get(section) for section in ("normalizer", "pre_tokenizer")}
