"""Fetching the evaluation corpora over real HTTP (a local server holding the public sources' layouts,
rebuilt from the copies found here): every file checked against the real pins, nothing half-written on a
bad download, a second run harmless, and a server that does not answer is one line naming both ways."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from unit.api.unreachable import closed_port_url

from control_plane.checksums import sha256_file
from control_plane.cli.main import main
from control_plane.datasets.fetch import DatasetFetchError, fetch_dataset, load_sources
from control_plane.datasets.locate import DATASETS_DIR_ENV_VAR, dataset_folder


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _serve(folder: Path) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _beir_zip(name: str, target: Path) -> None:
    """BEIR's archive layout, qrels with the CRLF line endings BEIR ships."""
    folder = dataset_folder(name)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr(f"{name}/", "")
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                data = path.read_bytes()
                if path.suffix == ".tsv":
                    data = data.replace(b"\n", b"\r\n")
                bundle.writestr(f"{name}/{path.relative_to(folder).as_posix()}", data)


def _scifact_release(target: Path) -> None:
    """SciFact's release layout: an abstract as a list of sentences, claims citing their documents."""
    folder = dataset_folder("scifact")
    corpus = [json.loads(line) for line in (folder / "corpus.jsonl").open(encoding="utf-8")]
    claims = [json.loads(line) for line in (folder / "queries.jsonl").open(encoding="utf-8")]
    cited: dict[str, list[int]] = {}
    for row in (folder / "qrels" / "train.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        query_id, doc_id, _ = row.split("\t")
        cited.setdefault(query_id, []).append(int(doc_id))
    members = {
        "data/corpus.jsonl": [
            {
                "doc_id": int(d["_id"]),
                "title": d["title"],
                "abstract": [d["text"]],
                "structured": d["metadata"]["structured"],
            }
            for d in corpus
        ],
        "data/claims_train.jsonl": [
            {"id": int(c["_id"]), "claim": c["text"], "evidence": {}, "cited_doc_ids": cited[c["_id"]]}
            for c in claims
        ],
        "data/claims_dev.jsonl": [],
    }
    with tarfile.open(target, "w:gz") as bundle:
        for name, records in members.items():
            data = "".join(json.dumps(record) + "\n" for record in records).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            bundle.addfile(info, io.BytesIO(data))


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("mirror")
    _beir_zip("nfcorpus", folder / "nfcorpus.zip")
    _scifact_release(folder / "data.tar.gz")
    for path in dataset_folder("medline").glob("*.xml.gz"):
        (folder / path.name).symlink_to(path)
    yield from _serve(folder)


@pytest.mark.parametrize("name", ["nfcorpus", "scifact", "medline"])
def test_each_corpus_arrives_matching_its_pins(name: str, mirror: str, tmp_path: Path) -> None:
    source = load_sources()[name]
    result = fetch_dataset(source, tmp_path, mirror=mirror, show_progress=False)
    assert result.outcome == "fetched" and result.folder == tmp_path / name
    fetched = sorted(p.relative_to(result.folder).as_posix() for p in result.folder.rglob("*") if p.is_file())
    assert fetched == sorted(source.files)
    for relative in fetched:  # the same bytes as the copy the project has always read
        assert sha256_file(result.folder / relative) == sha256_file(dataset_folder(name) / relative)
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no staging left behind
    again = fetch_dataset(source, tmp_path, mirror=mirror, show_progress=False)
    assert again.outcome == "present"


def test_a_download_that_differs_from_the_pins_leaves_nothing(tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    original = sorted(dataset_folder("medline").glob("*.xml.gz"))[0]
    with gzip.open(original, "rb") as handle:
        head = handle.read(1000)
    (served / original.name).write_bytes(gzip.compress(head))  # a truncated file under the same name
    other = sorted(dataset_folder("medline").glob("*.xml.gz"))[1]
    (served / other.name).symlink_to(other)
    into = tmp_path / "datasets"
    for url in _serve(served):
        with pytest.raises(DatasetFetchError) as raised:
            fetch_dataset(load_sources()["medline"], into, mirror=url, show_progress=False)
    message = str(raised.value)
    assert f"{original.name}: sha256 " in message and "pinned" in message and "nothing was written" in message
    assert list(into.iterdir()) == []


def test_a_folder_that_differs_from_the_pins_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "scifact").mkdir()
    (tmp_path / "scifact" / "corpus.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(DatasetFetchError, match="exists but does not match the pins"):
        fetch_dataset(load_sources()["scifact"], tmp_path, mirror="http://127.0.0.1:9", show_progress=False)
    assert (tmp_path / "scifact" / "corpus.jsonl").read_text(encoding="utf-8") == "{}\n"


def test_an_unreachable_source_is_one_line_naming_both_ways(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mirror = closed_port_url()
    code = main(
        ["datasets", "fetch", "nfcorpus", "--into", str(tmp_path), "--mirror", mirror, "--no-progress"]
    )
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert line.startswith(f"error: could not download {mirror}/nfcorpus.zip: ")
    assert DATASETS_DIR_ENV_VAR in line and "--mirror" in line
    assert list(tmp_path.iterdir()) == []


def test_the_command_fetches_through_a_mirror(
    mirror: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["datasets", "fetch", "scifact", "--into", str(tmp_path), "--mirror", mirror, "--no-progress"])
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith(f"scifact: fetched ({tmp_path / 'scifact'}, 3 files match their pins)")
