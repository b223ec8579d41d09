"""Training data made from the shared datasets: the held-out guard and MEDLINE title → abstract pairs."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import pytest

from control_plane.datasets.locate import dataset_folder
from control_plane.ingestion.documents import Document
from control_plane.ingestion.parsers.medline import iter_medline
from control_plane.testsets.catalog import load_test_set
from model_artifacts.reranker.config import CONFIGS, SOURCES, DataSettings, config_by_name
from model_artifacts.reranker.data import held_out_guard, medline_pairs
from model_artifacts.reranker.pairs import LeakageGuard, normalise_query


def test_guard_holds_every_nfcorpus_dev_and_test_query_and_drops_train_repeats() -> None:
    guard = held_out_guard(DataSettings(medline_limit=1))
    held_out = [q for split in ("dev", "test") for q in load_test_set(f"nfcorpus/{split}").queries()]
    assert len(guard.held_out_ids) == len(held_out) == 647
    assert not any(guard.allows("nfcorpus", q.query_id, q.text) for q in held_out)
    train = list(load_test_set("nfcorpus/train").queries())
    allowed = [q for q in train if guard.allows("nfcorpus", q.query_id, q.text)]
    assert len(train) - len(allowed) == 8  # train queries repeating a dev/test query word for word


def test_guard_holds_out_the_first_judged_scifact_claims_the_check_evaluates() -> None:
    guard = held_out_guard(DataSettings(medline_limit=1, scifact_held_out=300))
    assert len(guard.held_out_ids) == 647 + 300
    qrels = load_test_set("scifact/train").qrels()
    claims = list(load_test_set("scifact/train").queries())
    judged = [c for c in claims if any(g > 0 for g in qrels[c.query_id].values())]
    assert not any(guard.allows("scifact", c.query_id, c.text) for c in judged[:300])
    assert all(guard.allows("scifact", c.query_id, c.text) for c in judged[300:])
    assert guard.allows("nfcorpus", judged[0].query_id, "a query nobody held out")


def test_settings_added_later_keep_an_older_cache_name_at_their_defaults() -> None:
    older_fields = {
        "medline_limit": 4000,
        "medline_min_words": 40,
        "nfcorpus_index": "chunks-nfcorpus",
        "miner": "bm25",
        "mine_depth": 100,
        "negatives_per_query": 30,
        "dev_depth": 100,
        "nfcorpus_positives": "retrieved",
    }
    older_key = hashlib.sha256(json.dumps(older_fields, sort_keys=True).encode()).hexdigest()[:10]
    assert DataSettings(medline_limit=4000).key() == older_key
    assert DataSettings(medline_limit=4000, scifact_held_out=300).key() != older_key


def _citations(count: int) -> list[Document]:
    path = sorted(dataset_folder("medline").glob("*.xml.gz"))[0]
    documents = (d for d in iter_medline(path) if isinstance(d, Document))
    return list(itertools.islice(documents, count))


def test_medline_pairs_are_english_titles_with_long_enough_abstracts() -> None:
    nobody = LeakageGuard(frozenset(), frozenset())
    passages, titles, dropped = medline_pairs(_citations(400), 25, 40, nobody)
    assert len(passages) == len(titles) == 25 and dropped == 0
    assert len({normalise_query(t) for t in titles}) == 25
    for passage, title in zip(passages, titles, strict=True):
        assert len(passage.text.split()) >= 40 and len(normalise_query(title).split()) >= 4
        assert title not in passage.text  # the abstract alone, without its title


def test_medline_pairs_skip_a_title_that_is_a_held_out_query() -> None:
    citations = _citations(400)
    nobody = LeakageGuard(frozenset(), frozenset())
    _, titles, _ = medline_pairs(citations, 5, 40, nobody)
    guard = LeakageGuard(frozenset(), frozenset({normalise_query(titles[2])}))
    _, guarded, dropped = medline_pairs(citations, 5, 40, guard)
    assert dropped == 1 and titles[2] not in guarded and guarded[:2] == titles[:2]


def test_every_config_is_consistent() -> None:
    for config in CONFIGS.values():
        assert set(config.mix_weights) <= set(SOURCES)
        assert config.group_size >= 2 and config.val_depth <= config.data.dev_depth
        assert config.data.negatives_per_query <= config.data.mine_depth
        assert config.warmup_steps < config.steps and config.checkpoint_every <= config.steps


def test_data_key_names_the_settings() -> None:
    assert DataSettings(medline_limit=10).key() == DataSettings(medline_limit=10).key()
    assert DataSettings(medline_limit=10).key() != DataSettings(medline_limit=11).key()
    assert DataSettings(medline_limit=10).key() != DataSettings(medline_limit=10, miner="hybrid").key()


def test_unknown_config_names_the_known_ones() -> None:
    known = "smoke, cpu, cpu-hybrid, cpu-bge, cpu-bge-distil, gpu"
    with pytest.raises(ValueError, match=f"choose one of: {known}"):
        config_by_name("tpu")


def test_a_run_records_paths_inside_the_repository_relative_to_it() -> None:
    from model_artifacts.reranker.data import REPO_ROOT
    from model_artifacts.reranker.train import repo_relative

    assert repo_relative(REPO_ROOT / ".cache" / "models" / "bge-small") == Path(".cache/models/bge-small")
    assert repo_relative(Path("/elsewhere/run")) == Path("/elsewhere/run")
