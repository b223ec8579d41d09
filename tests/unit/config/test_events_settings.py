"""The events block: off by default; an http sink needs a URL and a jsonl sink a path, named in the error."""

from __future__ import annotations

import pytest

from control_plane.config.settings import ConfigError, load_settings


def test_events_are_off_and_the_ledger_is_jobs_by_default() -> None:
    settings = load_settings(environ={})
    assert settings.events.enabled is False
    assert (settings.events.sink, settings.events.search_sample_rate, settings.events.queue_size) == (
        "http",
        0.1,
        1000,
    )
    assert settings.events.include_query is False
    assert settings.ledger.index == "jobs"


def test_an_http_sink_without_a_url_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"events: .*events\.url is ''"):
        load_settings(environ={"BIOHYBRID__EVENTS__ENABLED": "true"})


def test_a_jsonl_sink_and_a_sample_rate_from_variables() -> None:
    settings = load_settings(
        environ={
            "BIOHYBRID__EVENTS__ENABLED": "true",
            "BIOHYBRID__EVENTS__SINK": "jsonl",
            "BIOHYBRID__EVENTS__SEARCH_SAMPLE_RATE": "1.0",
        }
    )
    assert (settings.events.sink, settings.events.path, settings.events.search_sample_rate) == (
        "jsonl",
        ".local/events.jsonl",
        1.0,
    )


def test_a_sample_rate_above_one_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"events\.search_sample_rate"):
        load_settings(environ={"BIOHYBRID__EVENTS__SEARCH_SAMPLE_RATE": "1.5"})
