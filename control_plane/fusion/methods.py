"""The fusion methods, by the names every path uses for them: ``rrf`` (reciprocal rank fusion) and
``weighted`` (min-max normalisation, weighted mean). The request's ``fusion_method``, the clinical
routing's per-fusion topicality and the route model's ``fusion`` all name them so."""

from __future__ import annotations

from typing import Literal

FusionMethod = Literal["rrf", "weighted"]
