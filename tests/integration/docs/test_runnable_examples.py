"""Every code block of the documentation site marked runnable ({.bash .runnable}, {.python .runnable},
{.http .runnable}: control_plane/docsite/runnable.py) runs against the real stack, in the order a reader
meets them (mkdocs.yml's nav, then page order), so an example whose flag or field changed fails here
with its page and line instead of rotting. Shell blocks run under bash with the virtual environment
first on PATH and curl failing on an HTTP error; Python blocks in a subprocess; HTTP blocks as requests.
The documented names (chunks-demo, chunks-papers, ports 8600 and 8501) are pointed at this session's
(conftest.py), and a block naming any other chunk index is refused before it runs."""

from __future__ import annotations

import subprocess
import sys

import pytest
import requests
import yaml
from integration.docs.conftest import DocsStack

from control_plane.docsite.http_block import parse_http
from control_plane.docsite.nav import nav_pages
from control_plane.docsite.runnable import Block, chunk_index_names, runnable_blocks, substitute
from control_plane.locations import REPOSITORY_ROOT

pytestmark = pytest.mark.integration

DOCS = REPOSITORY_ROOT / "docs"
TIMEOUT_S = 300
# curl exits non-zero on an HTTP error (with the body shown), as a reader would notice one.
SHELL_PRELUDE = 'set -eo pipefail\ncurl() { command curl --fail-with-body --show-error "$@"; }\n'


def _blocks() -> list[Block]:
    config = yaml.safe_load((REPOSITORY_ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return [
        block
        for page in nav_pages(config["nav"])
        for block in runnable_blocks((DOCS / page).read_text(encoding="utf-8"), f"docs/{page}")
    ]


def _tail(text: str, chars: int = 3000) -> str:
    return text if len(text) <= chars else "..." + text[-chars:]


def _run(command: list[str], stack: DocsStack) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=REPOSITORY_ROOT, env=stack.env, capture_output=True, text=True, timeout=TIMEOUT_S
    )


def _http(code: str, stack: DocsStack) -> tuple[bool, str]:
    request = parse_http(code)
    response = requests.request(
        request.method,
        request.url(stack.opensearch),
        headers=request.header_map(),
        data=request.body.encode("utf-8") or None,
        timeout=TIMEOUT_S,
    )
    return response.ok, f"HTTP {response.status_code}\n{_tail(response.text)}"


@pytest.mark.parametrize("block", _blocks(), ids=lambda block: block.where)
def test_runnable_example(block: Block, docs_stack: DocsStack) -> None:
    code = substitute(block.code, docs_stack.replacements)
    foreign = sorted(
        name
        for name in chunk_index_names(code)
        if name != "chunks-*" and not name.startswith(docs_stack.index_prefix)
    )
    assert foreign == [], f"{block.where}: names indices this test cannot isolate: {foreign}"
    if block.language == "http":
        ok, detail = _http(code, docs_stack)
        assert ok, f"{block.where}: {detail}\n--- request\n{code}"
        return
    command = (
        ["bash", "-c", SHELL_PRELUDE + code] if block.language == "shell" else [sys.executable, "-c", code]
    )
    done = _run(command, docs_stack)
    assert done.returncode == 0, (
        f"{block.where}: exit {done.returncode}\n--- code\n{code}\n"
        f"--- stdout\n{_tail(done.stdout)}\n--- stderr\n{_tail(done.stderr)}"
    )
