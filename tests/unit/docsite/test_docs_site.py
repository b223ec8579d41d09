"""The documentation as committed: the README's budget and that its examples are run (each is a runnable
block of the site), every runnable block parses and names only indices the tests can isolate, every nav
page exists, and the sample PDF the guide ingests reads as it was typeset."""

import re

import pytest
import yaml
from pdf_samples import SAMPLE_FIGURE, SAMPLE_SECTIONS, SAMPLE_TABLE, SAMPLE_TITLE

from control_plane.docsite.http_block import parse_http
from control_plane.docsite.nav import nav_pages
from control_plane.docsite.runnable import Block, chunk_index_names, fenced_blocks, runnable_blocks
from control_plane.ingestion.parsers import parse_documents
from control_plane.locations import REPOSITORY_ROOT

README = REPOSITORY_ROOT / "README.md"
DOCS = REPOSITORY_ROOT / "docs"
README_BUDGET = 200
# The indices a runnable block may name: the test points these at indices of its own.
ISOLATED = re.compile(r"^chunks-(demo|papers(-[a-z0-9-]+)?|\*)$")


def _nav() -> list[str]:
    config = yaml.safe_load((REPOSITORY_ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return nav_pages(config["nav"])


def _site_blocks() -> list[Block]:
    return [
        block
        for page in _nav()
        for block in runnable_blocks((DOCS / page).read_text(encoding="utf-8"), f"docs/{page}")
    ]


def test_the_readme_is_within_its_budget() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_BUDGET, (
        f"README.md has {lines} lines; move the rest to docs/ (budget {README_BUDGET})"
    )


def test_every_readme_example_is_a_runnable_block_of_the_site() -> None:
    run = {block.code for block in _site_blocks()}
    examples = list(fenced_blocks(README.read_text(encoding="utf-8"), "README.md"))
    unrun = [f"README.md:{b.line}" for b in examples if "make run" not in b.code and b.code not in run]
    assert unrun == [], "give these the same code as a {.bash .runnable} block in docs/ (so they are run)"


def test_the_readmes_relative_links_exist() -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    missing = [link for link in links if "://" not in link and not (REPOSITORY_ROOT / link).exists()]
    assert missing == []


def test_every_nav_page_exists_and_every_page_is_in_the_nav() -> None:
    pages = _nav()
    assert [p for p in pages if not (DOCS / p).is_file()] == []
    written = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert written - set(pages) == set()


def test_the_site_has_runnable_examples_of_every_kind() -> None:
    blocks = _site_blocks()
    assert {b.language for b in blocks} == {"shell", "python", "http"}
    assert len(blocks) >= 30


@pytest.mark.parametrize("block", _site_blocks(), ids=lambda block: block.where)
def test_every_runnable_block_parses_and_names_only_isolated_indices(block: Block) -> None:
    if block.language == "http":
        parse_http(block.code)
    foreign = sorted(name for name in chunk_index_names(block.code) if not ISOLATED.match(name))
    assert foreign == [], (
        f"{block.where}: the tests cannot isolate {foreign}; use chunks-demo or chunks-papers"
    )


def test_the_sample_pdf_reads_as_it_was_typeset() -> None:
    [document] = parse_documents(DOCS / "examples" / "sample-trial-report.pdf")
    assert (document.doc_id, document.title, document.source) == (
        "sample-trial-report",
        SAMPLE_TITLE,
        "pdf",
    )
    body = [s.title_path for s in document.sections if s.kind != "figure"]
    assert body == [s.title_path for s in SAMPLE_SECTIONS]
    [table] = document.tables
    assert table.row_lines == SAMPLE_TABLE.row_lines
    assert SAMPLE_FIGURE in document.text
