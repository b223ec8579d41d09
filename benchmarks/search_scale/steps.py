"""The size steps: which sizes to measure, and each step's index, a copy of the first N chunks of the
large index (`_reindex` with ``max_docs``: the stored vectors travel, nothing is encoded again)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from opensearchpy import OpenSearch
from tqdm import tqdm

from control_plane.errors import BiohybridError

POLL_S = 2.0


class StepIndexError(BiohybridError, RuntimeError):
    """A step's index cannot be built or reused; the message says what to do."""


@dataclass(frozen=True)
class StepIndex:
    """One measured index: its chunks, segments and size on disk. ``series`` is the large index a step
    was cut from (an extra index is its own series); ``copy``: a step copy this benchmark owns;
    ``build_s`` is None when it was used as it was (the large index, an extra index, a step copied by an
    earlier run)."""

    index: str
    chunks: int
    segments: int
    store_bytes: int
    origin: str
    series: str
    copy: bool = False
    build_s: float | None = None


def parse_sizes(text: str) -> list[int | None]:
    """``10000,18000,all`` -> [10000, 18000, None] (None: the whole index); refuses anything else."""
    sizes: list[int | None] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if part == "all":
            sizes.append(None)
        elif part.isdigit() and int(part) > 0:
            sizes.append(int(part))
        else:
            raise ValueError(f"--sizes: {part!r} is neither a positive chunk count nor 'all'")
    if not sizes:
        raise ValueError("--sizes is empty: give chunk counts and/or 'all', e.g. 10000,18000,all")
    return sizes


def step_sizes(total: int, sizes: Sequence[int | None]) -> list[int]:
    """The distinct sizes to measure, ascending: each asked size below ``total``, and ``total`` itself
    for 'all' or for a size at or above it (a copy of everything would only repeat the index)."""
    return sorted({total if size is None or size >= total else size for size in sizes})


def step_index_name(source: str, size: int, total: int) -> str:
    """The whole index is measured as it is; a smaller step is ``<source>-first<size>`` (under the chunk
    prefix, so the chunk template gives it the same mappings)."""
    return source if size == total else f"{source}-first{size}"


def describe(
    client: OpenSearch,
    index: str,
    origin: str,
    series: str,
    *,
    copy: bool = False,
    build_s: float | None = None,
) -> StepIndex:
    stats = client.indices.stats(index=index, metric="docs,store,segments")["_all"]["primaries"]
    return StepIndex(
        index=index,
        chunks=int(stats["docs"]["count"]),
        segments=int(stats["segments"]["count"]),
        store_bytes=int(stats["store"]["size_in_bytes"]),
        origin=origin,
        series=series,
        copy=copy,
        build_s=build_s,
    )


def build_step(
    client: OpenSearch, source: str, size: int, total: int, *, rebuild: bool, progress: bool
) -> StepIndex:
    """The step's index: the source itself at full size, else a copy of its first ``size`` chunks,
    reused when one with exactly ``size`` chunks exists (unless ``rebuild``)."""
    if size == total:
        return describe(client, source, "the whole index, as ingested", source)
    name = step_index_name(source, size, total)
    origin = f"first {size:,} of {total:,} chunks of {source} (_reindex)"
    if client.indices.exists(index=name):
        count = int(client.count(index=name)["count"])
        if count == size and not rebuild:
            return describe(client, name, origin, source, copy=True)
        if not rebuild:
            raise StepIndexError(
                f"{name} exists with {count:,} chunks, not {size:,}: pass --rebuild to copy it again"
            )
        client.indices.delete(index=name)
    started = time.monotonic()
    task = client.reindex(
        body={"source": {"index": source, "size": 500}, "dest": {"index": name}, "max_docs": size},
        wait_for_completion=False,
        refresh=True,
    )["task"]
    _wait_for_task(client, task, size, name, progress)
    client.indices.refresh(index=name)
    count = int(client.count(index=name)["count"])
    if count != size:
        raise StepIndexError(
            f"{name} holds {count:,} chunks after the copy, not {size:,}: see the node's log"
        )
    return describe(client, name, origin, source, copy=True, build_s=time.monotonic() - started)


def _wait_for_task(client: OpenSearch, task: str, size: int, name: str, progress: bool) -> None:
    with tqdm(total=size, desc=f"copy -> {name}", unit="chunk", disable=not progress) as bar:
        while True:
            answer = client.tasks.get(task_id=task)
            status = answer["task"]["status"]
            bar.update(int(status.get("created", 0)) - bar.n)
            if answer.get("completed"):
                break
            time.sleep(POLL_S)
    failures = answer.get("response", {}).get("failures") or ([answer["error"]] if "error" in answer else [])
    if failures:
        raise StepIndexError(f"copying into {name} failed: {str(failures[0])[:300]}")


def copies(steps: Sequence[StepIndex]) -> list[str]:
    """The step copies this benchmark owns: never the large index or an extra index."""
    return [s.index for s in steps if s.copy]


def delete_copies(client: OpenSearch, steps: Sequence[StepIndex]) -> list[str]:
    """Delete the step copies; returns their names."""
    names = copies(steps)
    for name in names:
        client.indices.delete(index=name, ignore_unavailable=True)
    return names
