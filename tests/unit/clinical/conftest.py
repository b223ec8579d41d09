"""The packaged intents configuration, loaded once for the clinical tests."""

from __future__ import annotations

import pytest

from control_plane.clinical.intents import DEFAULT_INTENTS_FILE, IntentConfig, load_intent_config


@pytest.fixture(scope="session")
def config() -> IntentConfig:
    return load_intent_config(DEFAULT_INTENTS_FILE)
