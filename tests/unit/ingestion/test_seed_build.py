"""`biohybrid encode-seed`: the corpus chunked as ingest chunks it, every distinct text encoded once by the
given models, the file read back equal to what they gave; and the committed demo seed is the demo corpus
of `make run` encoded by the configured models (else: `make demo-seed`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from control_plane.config.settings import LOCAL_FILE, load_settings
from control_plane.ingestion.encoding_cache import text_key
from control_plane.ingestion.encoding_seed import ModelIdentity, read_seed
from control_plane.ingestion.run import IngestOptions
from control_plane.ingestion.seed_build import build_seed, corpus_chunks, distinct_texts
from control_plane.ingestion.setup import LocalModels, local_models
from control_plane.locations import REPOSITORY_ROOT

DEMO_SEED = REPOSITORY_ROOT / "datasets" / "encodings" / "demo.npz"
IDENTITIES = {"dense": ModelIdentity("d", "a" * 64, "kd"), "sparse": ModelIdentity("s", "b" * 64, "ks")}


class CountingDense:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.seen.extend(texts)
        return np.array([[len(t), len(t) / 7, 1.0] for t in texts], dtype=np.float32).reshape(len(texts), 3)


class CountingSparse:
    def encode(self, texts: Sequence[str]) -> list[dict[str, float]]:
        return [{"len": float(len(t)), "first": float(ord(t[0]))} for t in texts]


def _jats(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.nxml"
    path.write_text(
        '<article><front><article-meta><article-id pub-id-type="pmc">'
        f"{name}</article-id><title-group><article-title>Title {name}</article-title></title-group>"
        f"</article-meta></front><body><sec><title>Results</title><p>{body}</p></sec></body></article>",
        encoding="utf-8",
    )
    return path


def test_distinct_texts_keeps_each_text_once_in_first_seen_order() -> None:
    class C:
        def __init__(self, text: str) -> None:
            self.text = text

    assert distinct_texts([C("b"), C("a"), C("b")]) == ["b", "a"]  # type: ignore[list-item]


def test_a_seed_is_built_from_the_chunks_and_read_back_as_the_models_gave_it(tmp_path: Path) -> None:
    sources = [_jats(tmp_path, "PMC1", "Nausea was reported in 12 patients."), _jats(tmp_path, "PMC2", "x")]
    dense = CountingDense()
    models = LocalModels(dense, CountingSparse(), IDENTITIES, counter=None)  # type: ignore[arg-type]
    built = build_seed(
        load_settings(LOCAL_FILE, environ={}),
        sources,
        tmp_path / "out" / "seed.npz",
        progress=False,
        models=models,
    )
    chunks = [
        c
        for _, cs in corpus_chunks(
            sources, strategy="sentence", token_budget=254, overlap_pct=20.0, counter=None
        )
        for c in cs
    ]
    texts = distinct_texts(chunks)
    assert (built.documents, built.chunks, built.texts, built.parse_errors) == (2, len(chunks), len(texts), 0)
    assert sorted(dense.seen) == sorted(texts)  # every distinct text once
    seed = read_seed(built.path)
    assert seed.models == IDENTITIES and seed.made["sources"] == [str(s) for s in sources]
    for text in texts:
        row = seed.dense_row(text_key(text))
        assert row is not None and row.tolist() == pytest.approx([len(text), len(text) / 7, 1.0])
        assert seed.sparse_map(text_key(text)) == {"len": float(len(text)), "first": float(ord(text[0]))}
    assert built.bytes == built.path.stat().st_size


def test_a_parse_error_is_counted_and_left_out(tmp_path: Path) -> None:
    good = _jats(tmp_path, "PMC1", "Nausea was reported.")
    bad = tmp_path / "broken.nxml"
    bad.write_text("<article><unclosed>", encoding="utf-8")
    errors: list[str] = []
    found = list(
        corpus_chunks(
            [good, bad], strategy="sentence", token_budget=254, overlap_pct=20.0, counter=None, errors=errors
        )
    )
    assert len(found) == 1 and len(errors) == 1 and "broken.nxml" in errors[0]


def test_the_committed_demo_seed_is_make_runs_demo_corpus_by_the_configured_models() -> None:
    """Fails when the default models, the chunking or the demo corpus changed: run `make demo-seed`."""
    seed = read_seed(DEMO_SEED)
    settings = load_settings(LOCAL_FILE, environ={})
    assert settings.models.encoding_seed == "datasets/encodings/demo.npz"
    models = local_models(settings)
    assert seed.models == models.identities, "the seed was made by other models: run `make demo-seed`"
    makefile = (REPOSITORY_ROOT / "Makefile").read_text(encoding="utf-8")
    demo_sources = re.search(r"^DEMO_SOURCES := (.+)$", makefile, re.MULTILINE)
    assert demo_sources is not None and seed.made["sources"] == demo_sources[1].split()
    defaults = IngestOptions(index="chunks-demo")
    assert (seed.made["strategy"], seed.made["token_budget"], seed.made["overlap_pct"]) == (
        defaults.strategy,
        defaults.token_budget,
        defaults.overlap_pct,
    )
    chunks = [
        c
        for _, cs in corpus_chunks(
            seed.made["sources"],
            strategy=defaults.strategy,
            token_budget=defaults.token_budget,
            overlap_pct=defaults.overlap_pct,
            counter=models.counter,
        )
        for c in cs
    ]
    missing = [c.chunk_id for c in chunks if text_key(c.text) not in seed.rows]
    assert missing == [], f"{len(missing)} demo chunks are not in the seed: run `make demo-seed`"
    assert DEMO_SEED.stat().st_size < 6_000_000  # a few MB in the repository


def test_make_demo_seed_chunks_the_demo_as_make_runs_ingest() -> None:
    makefile = (REPOSITORY_ROOT / "Makefile").read_text(encoding="utf-8")
    (line,) = [line for line in makefile.splitlines() if "encode-seed $(DEMO_SOURCES)" in line]
    assert "--out $(DEMO_SEED)" in line and "--strategy" not in line and "--token-budget" not in line
    assert "DEMO_SEED := datasets/encodings/demo.npz" in makefile
