"""Names of what a test session creates on the shared node, and the sweep of a killed session's leftovers.

Every index a test makes is ``<prefix>-t<pid>-<what>-<random>``: unique, removable by pattern, and
traceable to the pytest process that made it. A session that was killed skips its teardown; the next
session deletes indices whose process is gone (a live concurrent session's indices are left alone), and
the names earlier versions of the suite used.
"""

from __future__ import annotations

import os
import re
import uuid

from opensearchpy import OpenSearch

SESSION_TAG = f"t{os.getpid()}"
# (a sparse-index benchmark variant of a session's chunk index is sparsebench-<method>-chunks-t<pid>-...)
# The tenant the tests index for where the index must be the tenant's own (index.tenant_indices, as on
# the secured node): its chunk indices are chunks-<TEST_TENANT>-t<pid>-...
TEST_TENANT = "evalsuite"
_SESSION_INDEX = re.compile(
    rf"^(?:sparsebench-[a-z_]+-)?(?:chunks|chunks-{TEST_TENANT}|eval-runs|jobs|legacy)-t(\d+)-"
)
# Names the suite used before it named indices by session (left behind by killed runs).
LEGACY_PATTERNS = (
    "chunks-apitest-*",
    "chunks-evaltest-*",
    "eval-runs-test-*",
    "chunks-test-*",
    "chunks-ingest-*",
    "chunks-doconly-*",
    "chunks-models-*",
    "rrft",
    "tiet",
)


def session_index(what: str, prefix: str = "chunks") -> str:
    """A fresh index name of this session (``prefix`` chunks matches the chunk template)."""
    return f"{prefix}-{SESSION_TAG}-{what}-{uuid.uuid4().hex[:8]}"


def tenant_session_index(what: str) -> str:
    """A fresh chunk index of this session that is ``TEST_TENANT``'s own under index.tenant_indices."""
    return session_index(what, prefix=f"chunks-{TEST_TENANT}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_leftovers(client: OpenSearch) -> list[str]:
    """Delete the indices of dead test sessions and the legacy test names; returns what was deleted."""
    names = list(client.indices.get(index="*", expand_wildcards="open,closed", ignore_unavailable=True))
    stale = [
        name
        for name in names
        if (match := _SESSION_INDEX.match(name))
        and int(match.group(1)) != os.getpid()
        and not _alive(int(match.group(1)))
    ]
    legacy = list(
        client.indices.get(index=",".join(LEGACY_PATTERNS), ignore_unavailable=True, allow_no_indices=True)
    )
    for name in [*stale, *legacy]:
        client.indices.delete(index=name, ignore_unavailable=True)
    return [*stale, *legacy]
