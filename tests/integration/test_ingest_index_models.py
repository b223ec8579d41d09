"""An index records the models its chunks were encoded with and refuses an ingest into it when its chunks
came from other (or unrecorded) models, before writing anything; `biohybrid reencode` re-encodes them in
place, resumably, after which every vector is the configured model's (real node, real models: MiniLM
stands for "another dense model", bge-small-bio is the configured one)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from integration.chunks import refreshed_count, uncommitted_operations
from integration.names import session_index
from opensearchpy import OpenSearch

from control_plane.cli.common import EXIT_CONFIG
from control_plane.cli.main import main
from control_plane.config.settings import ENV_CONFIG_FILE, LOCAL_FILE, Settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.encode import ModelChunkEncoder
from control_plane.ingestion.index_models import (
    META_KEY,
    REENCODING_KEY,
    IndexModelsError,
    encoding_models,
    read_meta,
    recorded_models,
)
from control_plane.ingestion.reencode import reencode
from control_plane.ingestion.run import IngestOptions, ingest
from control_plane.ingestion.setup import python_encoder

pytestmark = pytest.mark.integration
RECORD = {
    "_id": "index-models-1",
    "title": "Aspirin and bleeding",
    "text": "Low-dose aspirin lowers the risk of myocardial infarction and raises gastrointestinal bleeding.",
}


# Several records, so a re-encode in batches of two has batches to be interrupted between.
CORPUS = [
    RECORD,
    {
        "_id": "index-models-2",
        "title": "Metformin",
        "text": "Metformin lowers fasting glucose in type 2 diabetes.",
    },
    {
        "_id": "index-models-3",
        "title": "Statins",
        "text": "Statins reduce LDL cholesterol and cardiovascular events.",
    },
    {
        "_id": "index-models-4",
        "title": "Warfarin",
        "text": "Warfarin dosing is adjusted to the INR measured weekly.",
    },
    {
        "_id": "index-models-5",
        "title": "Asthma",
        "text": "Inhaled corticosteroids reduce asthma exacerbations.",
    },
]


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


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus-5.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in CORPUS), encoding="utf-8")
    return path


def minilm(settings: Settings) -> Settings:
    return settings.model_copy(update={"models": settings.models.model_copy(update={"dense": "minilm"})})


def stored_chunks(client: OpenSearch, index: str) -> list[dict[str, Any]]:
    client.indices.refresh(index=index)
    body = {"size": 100, "sort": [{"chunk_id": "asc"}], "query": {"match_all": {}}}
    return [hit["_source"] for hit in client.search(index=index, body=body)["hits"]["hits"]]


def assert_every_vector_is_the_models(chunks: list[dict[str, Any]], encoder: ModelChunkEncoder) -> None:
    """Each stored chunk's vectors are what ``encoder`` computes from its stored text, now."""
    expected = encoder.vectors([c["text"] for c in chunks])
    for stored, wanted in zip(chunks, expected, strict=True):
        np.testing.assert_allclose(stored["embedding"], wanted["embedding"], rtol=0, atol=1e-6)
        assert stored["sparse_terms"].keys() == wanted["sparse_terms"].keys(), stored["chunk_id"]
        np.testing.assert_allclose(
            [stored["sparse_terms"][t] for t in wanted["sparse_terms"]],
            list(wanted["sparse_terms"].values()),
            rtol=1e-6,
        )


class StopRequestedError(Exception):
    """A stand-in for Ctrl-C (KeyboardInterrupt would stop pytest itself)."""


class InterruptedAfter:
    """The real encoder, interrupted on its ``calls``-th call (a run stopped between two batches)."""

    def __init__(self, encoder: ModelChunkEncoder, calls: int) -> None:
        self.encoder, self.calls, self.texts = encoder, calls, 0

    def vectors(self, texts: Sequence[str]) -> list[dict[str, Any]]:
        self.calls -= 1
        if self.calls == 0:
            raise StopRequestedError
        self.texts += len(texts)
        return self.encoder.vectors(texts)


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
    assert f"index {index} holds {chunks} chunks encoded by other or unrecorded models" in message
    assert f"dense: the index has {settings.models.dense}, this ingest minilm" in message
    assert f"run `biohybrid reencode --index {index}` to re-encode them with dense minilm" in message
    assert refreshed_count(client, index) == chunks
    assert recorded_models(client, index) == encoding_models(settings.models)  # unchanged


def test_an_index_without_a_record_is_refused_until_reencoded(
    client: OpenSearch, settings: Settings, index: str, source: Path, tmp_path: Path
) -> None:
    """Chunks nobody recorded the models of (an index made before records were kept) may be another
    model's: the ingest that would skip them as unchanged is refused, and `reencode` makes them the
    configured model's and records it."""
    dead = DeadLetterFile(tmp_path / "dead.jsonl")
    other_encoder, other_counter = python_encoder(minilm(settings))
    ingest(client, [source], IngestOptions(index=index, progress=False), other_encoder, dead, other_counter)
    assert recorded_models(client, index) is None  # unchecked ingest: nothing recorded
    encoder, counter = python_encoder(settings)
    options = IngestOptions(index=index, progress=False, models=encoding_models(settings.models))
    with pytest.raises(IndexModelsError, match="dense: not recorded; sparse: not recorded"):
        ingest(client, [source], options, encoder, dead, counter)
    assert recorded_models(client, index) is None

    summary = reencode(client, index, encoding_models(settings.models), encoder, progress=False)
    assert (summary.chunks, summary.reencoded, summary.resumed_after) == (1, 1, "")
    assert recorded_models(client, index) == encoding_models(settings.models)
    assert uncommitted_operations(client, index) == 0  # the re-encoded vectors are committed
    assert_every_vector_is_the_models(stored_chunks(client, index), encoder)
    again = ingest(client, [source], options, encoder, dead, counter)
    assert (again.written, again.unchanged) == (0, 1)
    # idempotent: an index already encoded by the configured models is left as it is
    assert reencode(client, index, encoding_models(settings.models), encoder, progress=False).nothing_to_do


def test_a_minilm_index_reencoded_under_bge_small_bio_resumes_and_ends_with_every_vector_new(
    client: OpenSearch,
    settings: Settings,
    index: str,
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    dead = DeadLetterFile(tmp_path / "dead.jsonl")
    old_settings = minilm(settings)
    old_encoder, old_counter = python_encoder(old_settings)
    old_models = encoding_models(old_settings.models)
    ingest(
        client,
        [corpus],
        IngestOptions(index=index, progress=False, models=old_models),
        old_encoder,
        dead,
        old_counter,
    )
    before = stored_chunks(client, index)
    assert len(before) == len(CORPUS)
    assert_every_vector_is_the_models(before, old_encoder)

    new_models = encoding_models(settings.models)
    encoder, counter = python_encoder(settings)
    interrupted = InterruptedAfter(encoder, calls=2)  # the first batch of two lands, the second is stopped
    with pytest.raises(StopRequestedError):
        reencode(client, index, new_models, interrupted, batch_chunks=2, progress=False)  # type: ignore[arg-type]
    assert interrupted.texts == 2
    pending = read_meta(client, index)[REENCODING_KEY]
    assert pending == {"to": new_models, "after": before[1]["chunk_id"]}
    assert recorded_models(client, index) == old_models  # not the new ones before every chunk is theirs
    options = IngestOptions(index=index, progress=False, models=new_models)
    with pytest.raises(IndexModelsError, match=r"is being re-encoded .* to finish it"):
        ingest(client, [corpus], options, encoder, dead, counter)

    # the operator's command, run again: it resumes after the two chunks done and encodes the rest once
    monkeypatch.setenv(ENV_CONFIG_FILE, str(LOCAL_FILE))
    capsys.readouterr()
    assert main(["--log-level", "ERROR", "status"]) == 0
    assert f"{index}: RE-ENCODING to dense {settings.models.dense}" in capsys.readouterr().out
    command = ["--log-level", "ERROR", "reencode", "--index", index, "--batch-size", "2", "--no-progress"]
    assert main(command) == 0
    out = capsys.readouterr().out
    assert f"{index}: 3 of 5 chunks re-encoded with dense {settings.models.dense}" in out
    assert f"resumed after chunk {before[1]['chunk_id']}" in out

    after = stored_chunks(client, index)
    assert [c["chunk_id"] for c in after] == [c["chunk_id"] for c in before]
    assert_every_vector_is_the_models(after, encoder)
    assert all(a["content_hash"] == b["content_hash"] for a, b in zip(after, before, strict=True))
    meta = read_meta(client, index)
    assert REENCODING_KEY not in meta and meta[META_KEY] == new_models
    # the ingest the index refused now runs, and finds every chunk unchanged
    again = ingest(client, [corpus], options, encoder, dead, counter)
    assert (again.written, again.unchanged) == (0, len(CORPUS))
    assert main(command) == 0
    assert "nothing to do" in capsys.readouterr().out


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
    assert f"error: index {index} holds {chunks} chunks encoded by other or unrecorded models" in error
    assert f"`biohybrid reencode --index {index}`" in error
    assert f"dense: the index has {dense}, this ingest minilm" in error
    assert refreshed_count(client, index) == chunks
    # status says the same to an operator whose settings moved on from the index
    assert main(["status"]) == 0
    status = capsys.readouterr().out
    assert f"{index}: DIFFERS: dense: the index has {dense}, configured minilm" in status
    assert f"(`biohybrid reencode --index {index}`, or query it with those models)" in status
