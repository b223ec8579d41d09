"""The packaged evaluation settings load, and bad values stop with the key named."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from control_plane.config.settings import ConfigError
from control_plane.evaluation.settings import EVALUATION_FILE, load_evaluation_settings


def _write(tmp_path: Path, **changes: object) -> Path:
    data = yaml.safe_load(EVALUATION_FILE.read_text(encoding="utf-8"))
    for dotted, value in changes.items():
        node = data
        *parents, leaf = dotted.split("__")
        for key in parents:
            node = node[key]
        node[leaf] = value
    path = tmp_path / "evaluation.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_packaged_settings_resolve_the_suite_and_the_schedule() -> None:
    settings = load_evaluation_settings(environ={})
    suite = settings.resolve(settings.suite)
    assert [c.name for c in suite][:5] == ["bm25", "splade", "dense", "hybrid-rrf", "hybrid-minmax"]
    assert all(not c.rerank and not c.boosts for c in suite[:5])
    assert settings.resolve(["hybrid-rrf+rerank"])[0].rerank
    assert settings.index_for("nfcorpus") == "chunks-nfcorpus"
    assert settings.candidate_depth >= 3 * settings.depth  # enough chunks for Recall@100 at document level
    assert not settings.schedule.enabled
    assert "nfcorpus/stratified" in settings.stratified_sets


def test_environment_variable_names_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, depth=50)
    assert load_evaluation_settings(environ={"BIOHYBRID_EVAL_CONFIG": str(path)}).depth == 50


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"metrics": ["ndcg@10", "ndgc@10"]}, "metrics"),
        ({"suite": ["bm25", "bm25+turbo"]}, "unknown variant 'turbo'"),
        ({"baseline_configuration": "tfidf"}, "baseline_configuration"),
        ({"schedule__cron": "61 * * * *"}, "schedule.cron"),
        ({"schedule__interval_s": 60}, "exactly one of schedule.cron and schedule.interval_s"),
        ({"stratified_sets__nfcorpus/stratified__sources": ["nfcorpus/test"]}, "dev/train splits only"),
        ({"depth": 500}, "depth"),
        ({"alert__metric": "recall"}, "alert.metric"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, changes: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError, match="invalid evaluation settings") as error:
        load_evaluation_settings(_write(tmp_path, **changes), environ={})
    assert key in str(error.value)


def test_unknown_dataset_says_where_to_configure_it() -> None:
    with pytest.raises(ValueError, match="add it under `indices`"):
        load_evaluation_settings(environ={}).index_for("trec-covid")
