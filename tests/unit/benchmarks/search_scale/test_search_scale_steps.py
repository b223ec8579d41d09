from __future__ import annotations

import pytest

from benchmarks.search_scale.cli import parse_env
from benchmarks.search_scale.steps import parse_sizes, step_index_name, step_sizes


def test_sizes_parse_counts_and_all() -> None:
    assert parse_sizes("10000, 18000,all") == [10000, 18000, None]
    for bad in ("", "10k", "0", "-5"):
        with pytest.raises(ValueError, match="--sizes"):
            parse_sizes(bad)


def test_steps_are_distinct_ascending_and_capped_by_the_whole_index() -> None:
    # 90000 is more than the index holds: it is the whole index, as 'all' is, so it appears once.
    assert step_sizes(85581, [40000, None, 10000, 90000, 10000]) == [10000, 40000, 85581]


def test_only_a_smaller_step_is_a_copy_with_its_own_name() -> None:
    assert step_index_name("chunks-medline-full", 85581, 85581) == "chunks-medline-full"
    assert step_index_name("chunks-medline-full", 18000, 85581) == "chunks-medline-full-first18000"


def test_api_overrides_are_settings_keys() -> None:
    assert parse_env(["BIOHYBRID__SEARCH__CACHE__ENCODING__ENABLED=false", "BIOHYBRID__A=x=y"]) == {
        "BIOHYBRID__SEARCH__CACHE__ENCODING__ENABLED": "false",
        "BIOHYBRID__A": "x=y",
    }
    for bad in ("PATH=/tmp", "BIOHYBRID__A"):
        with pytest.raises(ValueError, match="--api-env"):
            parse_env([bad])
