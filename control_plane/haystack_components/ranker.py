"""BiohybridRanker: the project's cross-encoder (in process, ONNX) as a Haystack ranker. By default it
blends the model's order with the incoming one by weighted reciprocal ranks, as the rerank connector does
(control_plane/fusion/rerank_blend.py: ``model_weight`` 0 keeps the incoming order, 1 is the model's),
because a plain rerank by this model lowered nDCG@10 on the dev split
(docs/clients/pipelines-and-models.md, "Reranking")."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from control_plane.config.models_settings import ModelsSettings
from control_plane.fusion.rerank_blend import blended_order, blended_scores
from control_plane.models.cross_encoder import CrossEncoderScorer

_MODELS = ModelsSettings.model_fields
DEFAULT_MODEL: str = _MODELS["rerank"].default
"""The product's defaults (models.rerank, rerank_top_n, rerank_model_weight), so the in-process ranker and
the -rerank pipelines blend alike."""
DEFAULT_DEPTH: int = _MODELS["rerank_top_n"].default
DEFAULT_MODEL_WEIGHT: float = _MODELS["rerank_model_weight"].default


@component
class BiohybridRanker:
    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        depth: int = DEFAULT_DEPTH,
        model_weight: float = DEFAULT_MODEL_WEIGHT,
        top_k: int | None = None,
    ) -> None:
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        if not 0.0 <= model_weight <= 1.0:
            raise ValueError(f"model_weight must be within [0, 1], got {model_weight}")
        self.model, self.depth, self.model_weight, self.top_k = model, depth, model_weight, top_k
        self._scorer: CrossEncoderScorer | None = None

    def warm_up(self) -> None:
        if self._scorer is None:
            self._scorer = CrossEncoderScorer.load(self.model)

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self, model=self.model, depth=self.depth, model_weight=self.model_weight, top_k=self.top_k
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BiohybridRanker:
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(
        self, query: str, documents: list[Document], top_k: int | None = None
    ) -> dict[str, list[Document]]:
        """``documents`` best-first (a retriever's order). Each returned Document's score is its blended
        score; ``meta["reranker_score"]`` is the model's logit (for the first ``depth`` only)."""
        self.warm_up()
        assert self._scorer is not None
        head = documents[: self.depth]
        logits = self._scorer.score(query, [d.content or "" for d in head])
        scores = blended_scores(logits, len(documents), self.model_weight)
        ranked = []
        for i in blended_order(scores):
            meta = dict(documents[i].meta)
            if i < len(logits):
                meta["reranker_score"] = logits[i]
            ranked.append(replace(documents[i], score=scores[i], meta=meta))
        limit = top_k or self.top_k
        return {"documents": ranked[:limit] if limit else ranked}
