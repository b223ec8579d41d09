"""An index records the models its chunks were encoded with, and refuses an ingest that encodes with
other ones before writing anything (real node, real models: MiniLM stands for "another dense model")."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.chunks import refreshed_count
from integration.names import session_index
from opensearchpy import OpenSearch

from control_plane.cli.common import EXIT_CONFIG
from control_plane.cli.main import main
from control_plane.config.settings import ENV_CONFIG_FILE, LOCAL_FILE, Settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.index_models import (
    META_KEY,
    IndexModelsError,
    encoding_models,
    recorded_models,
)
from control_plane.ingestion.run import IngestOptions, ingest
from control_plane.ingestion.setup import python_encoder

pytestmark = pytest.mark.integration
RECORD = {
    "_id": "index-models-1",
    "title": "Aspirin and bleeding",
    "text": "Low-dose aspirin lowers the risk of myocardial infarction and raises gastrointestinal bleeding.",
}


@pytest.fixture
def index(client: OpenSearch, applied: Settings) -> Iterator[str]:
    name = session_index("index-models")
    yield name
    client.indices.delete(index=name, ignore_unavailable=True)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps(RECORD) + "\n", encoding="utf-8")
    return path


def test_an_ingest_with_other_models_is_refused_before_it_writes(
    client: OpenSearch, settings: Settings, index: str, source: Path, tmp_path: Path
) -> None:
    dead = DeadLetterFile(tmp_path / "dead.jsonl")
    encoder, counter = python_encoder(settings)
    options = IngestOptions(index=index, progress=False, models=encoding_models(settings.models))
    ingest(client, [source], options, encoder, dead, counter)
    assert recorded_models(client, index) == {
        "dense": settings.models.dense,
        "sparse": settings.models.sparse,
    }
    chunks = refreshed_count(client, index)
    assert chunks > 0

    other = settings.model_copy(update={"models": settings.models.model_copy(update={"dense": "minilm"})})
    other_encoder, other_counter = python_encoder(other)
    refused = IngestOptions(index=index, progress=False, models=encoding_models(other.models))
    with pytest.raises(IndexModelsError) as caught:
        ingest(client, [source], refused, other_encoder, dead, other_counter)
    message = str(caught.value)
    assert f"dense: the index has {settings.models.dense}, this ingest minilm" in message
    assert "ingest into a new index" in message
    assert refreshed_count(client, index) == chunks
    assert recorded_models(client, index) == encoding_models(settings.models)  # unchanged


def test_an_index_without_a_record_is_recorded_with_a_warning(
    client: OpenSearch,
    settings: Settings,
    index: str,
    source: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    dead = DeadLetterFile(tmp_path / "dead.jsonl")
    encoder, counter = python_encoder(settings)
    ingest(client, [source], IngestOptions(index=index, progress=False), encoder, dead, counter)
    assert recorded_models(client, index) is None  # unchecked ingest: nothing recorded
    options = IngestOptions(index=index, progress=False, models=encoding_models(settings.models))
    with caplog.at_level(logging.WARNING, logger="control_plane.ingestion.index_models"):
        ingest(client, [source], options, encoder, dead, counter)
    assert "index has no recorded models" in caplog.text
    mapping = client.indices.get_mapping(index=index)[index]["mappings"]
    assert mapping["_meta"][META_KEY] == encoding_models(settings.models)


def test_the_cli_says_why_and_exits_with_the_configuration_code(
    client: OpenSearch,
    settings: Settings,
    index: str,
    source: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(ENV_CONFIG_FILE, str(LOCAL_FILE))
    arguments = ["--log-level", "ERROR", "ingest", str(source), "--index", index, "--no-progress"]
    assert main(arguments) == 0
    chunks = refreshed_count(client, index)
    capsys.readouterr()
    assert main(["status"]) == 0
    dense, sparse = settings.models.dense, settings.models.sparse
    assert f"index       {index}: dense {dense}, sparse {sparse}\n" in capsys.readouterr().out
    monkeypatch.setenv("BIOHYBRID__MODELS__DENSE", "minilm")
    assert main(arguments) == EXIT_CONFIG
    error = capsys.readouterr().err
    assert f"error: index {index} holds chunks encoded by other models" in error
    assert f"dense: the index has {dense}, this ingest minilm" in error
    assert refreshed_count(client, index) == chunks
    # status says the same to an operator whose settings moved on from the index
    assert main(["status"]) == 0
    assert f"{index}: DIFFERS: dense: the index has {dense}, configured minilm" in capsys.readouterr().out
