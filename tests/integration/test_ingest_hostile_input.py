"""`biohybrid ingest` on hostile input, against the real node (issue 50 item 4): a target index no chunk
template covers is refused before anything is written (exit 2, one line naming the pattern, no index, no
job), and a JSONL file with a broken line indexes every valid record while the broken one goes to the
dead-letter file with its line and reason. Real files in tmp_path, the real models (Python encoding
path, behind the session's encoding cache)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.chunks import refreshed_count
from integration.names import session_index
from opensearchpy import OpenSearch

from control_plane.cli.common import EXIT_CONFIG, EXIT_DRIFT
from control_plane.cli.main import main
from control_plane.config.settings import ENV_CONFIG_FILE, LOCAL_FILE, Settings

pytestmark = pytest.mark.integration
GOOD = [
    {"_id": "hostile-1", "title": "Aspirin", "text": "Low-dose aspirin lowers the risk of a second stroke."},
    {"_id": "hostile-3", "title": "Statins", "text": "Statin therapy can cause myopathy in older patients."},
    {"_id": "hostile-4", "title": "Metformin", "text": "Metformin lowers blood glucose in type 2 diabetes."},
]
# Latin-1 where UTF-8 belongs: one invalid byte (0xe9) in line 2.
BAD_LINE = b'{"_id": "hostile-2", "title": "Caf\xe9", "text": "A record with one byte that is not UTF-8."}\n'


@pytest.fixture
def names(client: OpenSearch, applied: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """This test's chunk index, a bare (no template) index name, job ledger index and an index of the
    eval-runs pattern; the CLI reads the local settings with the ledger pointed at the test's own index."""
    made = {
        "chunks": session_index("hostile"),
        "bare": f"probe-bare-{session_index('hostile', prefix='x')[2:]}",
        "jobs": session_index("hostile", prefix="jobs"),
        "eval-runs": session_index("hostile", prefix="eval-runs"),
    }
    monkeypatch.setenv(ENV_CONFIG_FILE, str(LOCAL_FILE))
    monkeypatch.setenv("BIOHYBRID__LEDGER__INDEX", made["jobs"])
    yield made
    client.indices.delete(index=",".join(made.values()), ignore_unavailable=True)


def _corpus(path: Path, bad: bytes = BAD_LINE) -> Path:
    lines = [json.dumps(record).encode("utf-8") + b"\n" for record in GOOD]
    path.write_bytes(lines[0] + bad + lines[1] + lines[2])
    return path


def test_an_index_no_template_covers_is_refused_before_anything_is_written(
    client: OpenSearch, names: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path / "corpus.jsonl")
    dead = tmp_path / "dead.jsonl"
    code = main(
        ["ingest", str(corpus), "--index", names["bare"], "--no-progress", "--dead-letter", str(dead)]
    )
    assert code == EXIT_CONFIG
    assert capsys.readouterr().err.splitlines() == [
        f"error: index {names['bare']!r} matches no template of this project (chunks-*), so it would get no "
        "chunk mappings (the embedding a plain float, not a knn_vector: every hybrid query on it fails): "
        "name it chunks-<something>"
    ]
    assert not client.indices.exists(index=names["bare"])
    assert not client.indices.exists(index=names["jobs"])  # no job was recorded either
    assert not dead.exists()


@pytest.mark.parametrize("reserved", ["jobs", "eval-runs"])
def test_a_reserved_index_is_refused(
    client: OpenSearch,
    names: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    reserved: str,
) -> None:
    # The test's own ledger index (jobs-t<pid>-...), or an index of the eval-runs template's pattern:
    # never the node's real ones.
    index = names[reserved]
    code = main(["ingest", str(_corpus(tmp_path / "corpus.jsonl")), "--index", index, "--no-progress"])
    assert code == EXIT_CONFIG
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error: index {index!r} is reserved for the project's own records (")
    assert line.endswith("), not chunks: name it chunks-<something>")
    assert not client.indices.exists(index=index)


def test_a_bad_byte_costs_its_line_only_and_the_line_is_dead_lettered(
    client: OpenSearch, names: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = _corpus(tmp_path / "corpus.jsonl")
    dead = tmp_path / "dead.jsonl"
    code = main(
        ["ingest", str(corpus), "--index", names["chunks"], "--no-progress", "--dead-letter", str(dead)]
    )
    out = capsys.readouterr().out
    assert code == EXIT_DRIFT  # a record was rejected: said in the exit code, the rest landed
    assert out.startswith("3 documents, ") and ", 1 parse errors, 0 index failures," in out
    assert f"1 rejected record(s) written to {dead}" in out
    assert refreshed_count(client, names["chunks"]) >= 3
    stored = client.search(
        index=names["chunks"], body={"size": 0, "aggs": {"d": {"terms": {"field": "doc_id", "size": 10}}}}
    )
    assert sorted(b["key"] for b in stored["aggregations"]["d"]["buckets"]) == [r["_id"] for r in GOOD]
    [record] = [json.loads(line) for line in dead.read_text(encoding="utf-8").splitlines()]
    assert record == {
        "stage": "parse",
        "path": str(corpus),
        "location": "line 2",
        "line": 2,
        "reason": "invalid UTF-8: byte 0xe9 at column 35",
    }
