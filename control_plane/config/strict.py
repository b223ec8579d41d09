"""The base of every settings model and every configuration file's model (settings, evaluation.yaml,
intents.yaml): unknown keys are refused (a misspelt key is an error, not a silent default) and a loaded
value cannot be changed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class StrictSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
