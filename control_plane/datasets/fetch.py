"""Download an evaluation corpus from its public source into ``datasets/``, checked file by file.

Sources and pins are data (``sources.json``). A corpus is unpacked into a staging folder beside its
destination, converted to the layout the project reads (BEIR: corpus.jsonl, queries.jsonl, qrels/*.tsv),
and every file is checked against its sha256 pin before the folder is moved into place in one rename: a
failed or interrupted fetch leaves nothing half-written, and running it again is harmless.
"""

from __future__ import annotations

import io
import json
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Final, Literal

from control_plane.checksums import sha256_file
from control_plane.datasets.locate import DATASETS_DIR_ENV_VAR
from control_plane.errors import BiohybridError
from control_plane.progress import progress_bar

SOURCES_FILE: Final = Path(__file__).with_name("sources.json")
_TIMEOUT_S: Final = 60.0
_BLOCK: Final = 1 << 16


class DatasetFetchError(BiohybridError):
    """A download failed or what it unpacked to does not match the pins."""


@dataclass(frozen=True)
class DatasetSource:
    """One corpus: where it is downloaded from, how it is converted, and the pin of each file it leaves."""

    name: str
    title: str
    downloads: tuple[str, ...]
    convert: str
    files: Mapping[str, str]


def load_sources(path: Path = SOURCES_FILE) -> dict[str, DatasetSource]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {
        name: DatasetSource(
            name=name,
            title=entry["title"],
            downloads=tuple(entry["downloads"]),
            convert=entry["convert"],
            files=dict(entry["files"]),
        )
        for name, entry in data.items()
        if not name.startswith("_")
    }


def source_url(url: str, mirror: str | None) -> str:
    """The URL to download: the public one, or the same file name under ``mirror`` (a local copy of the
    public files, or the tests' local HTTP server)."""
    return f"{mirror.rstrip('/')}/{PurePosixPath(url).name}" if mirror else url


def pin_mismatches(folder: Path, files: Mapping[str, str]) -> list[str]:
    """The pinned files of ``folder`` that are missing or differ, each with what was expected."""
    problems = []
    for relative, expected in sorted(files.items()):
        path = folder / relative
        if not path.is_file():
            problems.append(f"{relative}: missing")
        elif (actual := sha256_file(path)) != expected:
            problems.append(f"{relative}: sha256 {actual}, pinned {expected}")
    return problems


@dataclass(frozen=True)
class FetchResult:
    name: str
    folder: Path
    outcome: Literal["fetched", "present"]


def fetch_dataset(
    source: DatasetSource, into: Path, *, mirror: str | None = None, show_progress: bool = True
) -> FetchResult:
    """Put ``source`` at ``into/<name>``; a folder already there that matches the pins is kept as it is,
    one that does not is refused (it may be someone's edited copy)."""
    destination = into / source.name
    if destination.exists():
        problems = pin_mismatches(destination, source.files)
        if not problems:
            return FetchResult(source.name, destination, "present")
        raise DatasetFetchError(
            f"{destination} exists but does not match the pins ({problems[0]}); move it away and fetch again"
        )
    into.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{source.name}-", dir=into) as work:
        downloads = [
            _download(source_url(url, mirror), Path(work) / PurePosixPath(url).name, show_progress)
            for url in source.downloads
        ]
        staging = Path(work) / source.name
        staging.mkdir()
        converter = CONVERTERS.get(source.convert)
        if converter is None:
            raise DatasetFetchError(f"{source.name}: unknown conversion {source.convert!r} in sources.json")
        try:
            converter(downloads, staging)
        except (OSError, KeyError, ValueError, zipfile.BadZipFile, tarfile.TarError) as error:
            raise DatasetFetchError(f"{source.name}: could not unpack the download: {error}") from error
        problems = pin_mismatches(staging, source.files)
        if problems:
            raise DatasetFetchError(
                f"{source.name}: the download does not match the pins ({'; '.join(problems)}); nothing was "
                f"written. The source may have changed: set {DATASETS_DIR_ENV_VAR} to a folder holding a "
                f"copy of {source.name}/ instead"
            )
        staging.rename(destination)
    return FetchResult(source.name, destination, "fetched")


def _download(url: str, target: Path, show_progress: bool) -> Path:
    try:
        with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as response, target.open("wb") as out:
            total = int(response.headers.get("Content-Length") or 0) or None
            with progress_bar(
                total=total, desc=f"download {target.name}", unit="B", disable=not show_progress
            ) as bar:
                while block := response.read(_BLOCK):
                    out.write(block)
                    bar.update(len(block))
    except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
        reason = getattr(error, "reason", None) or error
        raise DatasetFetchError(
            f"could not download {url}: {reason}; set {DATASETS_DIR_ENV_VAR} to a folder that already holds "
            "the dataset, or fetch through a reachable copy with --mirror URL"
        ) from error
    return target


def _normalised(data: bytes) -> bytes:
    """Text as the project stores it: LF line endings (BEIR's qrels come with CRLF)."""
    return data.replace(b"\r\n", b"\n")


def _beir_zip(downloads: list[Path], staging: Path) -> None:
    """BEIR's ``<name>.zip``: ``<name>/corpus.jsonl``, ``queries.jsonl``, ``qrels/*.tsv``."""
    [archive] = downloads
    with zipfile.ZipFile(archive) as bundle:
        for member in bundle.namelist():
            parts = PurePosixPath(member).parts
            if member.endswith("/") or len(parts) < 2 or ".." in parts:
                continue
            relative = PurePosixPath(*parts[1:])
            if relative.name in ("corpus.jsonl", "queries.jsonl") or relative.parent.name == "qrels":
                target = staging / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(_normalised(bundle.read(member)))


def _scifact_release(downloads: list[Path], staging: Path) -> None:
    """SciFact's release ``data.tar.gz`` to BEIR's layout with the training claims only: a document's text
    is its abstract's sentences joined by one space, a claim's qrels are the documents it cites."""
    [archive] = downloads
    with tarfile.open(archive, "r:gz") as bundle:
        corpus = _tar_lines(bundle, "corpus.jsonl")
        claims = _tar_lines(bundle, "claims_train.jsonl")
    (staging / "qrels").mkdir()
    with (staging / "corpus.jsonl").open("w", encoding="utf-8", newline="\n") as out:
        for record in corpus:
            document = {
                "_id": str(record["doc_id"]),
                "title": record["title"],
                "text": " ".join(record["abstract"]),
                "metadata": {"structured": record["structured"]},
            }
            out.write(json.dumps(document) + "\n")
    with (staging / "queries.jsonl").open("w", encoding="utf-8", newline="\n") as out:
        for claim in claims:
            out.write(json.dumps({"_id": str(claim["id"]), "text": claim["claim"], "metadata": {}}) + "\n")
    with (staging / "qrels" / "train.tsv").open("w", encoding="utf-8", newline="\n") as out:
        out.write("query-id\tcorpus-id\tscore\n")
        for claim in claims:
            for doc_id in claim["cited_doc_ids"]:
                out.write(f"{claim['id']}\t{doc_id}\t1\n")


def _tar_lines(bundle: tarfile.TarFile, name: str) -> list[dict[str, Any]]:
    member = next((m for m in bundle.getmembers() if m.isfile() and PurePosixPath(m.name).name == name), None)
    if member is None:
        raise KeyError(f"no {name} in the archive")
    handle = bundle.extractfile(member)
    if handle is None:
        raise KeyError(f"{name} is not a file in the archive")
    with io.TextIOWrapper(handle, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def _as_is(downloads: list[Path], staging: Path) -> None:
    for download in downloads:
        shutil.move(download, staging / download.name)


CONVERTERS: Final[dict[str, Callable[[list[Path], Path], None]]] = {
    "beir-zip": _beir_zip,
    "scifact-release": _scifact_release,
    "as-is": _as_is,
}
