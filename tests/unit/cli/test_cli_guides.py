"""Every command's --help names what it accepts and the guide page that explains it (a page that exists),
and the top-level help says where the guide is and how to read it as a site."""

import argparse
import re

import pytest

from control_plane.cli.common import guide
from control_plane.cli.main import build_parser
from control_plane.docsite.cli_page import help_text, subcommands
from control_plane.locations import REPOSITORY_ROOT

GUIDE = re.compile(r"Guide: docs/(?P<page>[\w/-]+\.md)")
COMMANDS = {parser.prog: parser for parser in subcommands(build_parser())}


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("prog", sorted(COMMANDS))
def test_every_command_names_its_guide_page_and_the_page_exists(prog: str) -> None:
    found = GUIDE.search(_flat(help_text(COMMANDS[prog])))
    assert found is not None, f"{prog}: add epilog=guide('<page>.md')"
    assert (REPOSITORY_ROOT / "docs" / found["page"]).is_file(), f"{prog}: docs/{found['page']} is missing"


@pytest.mark.parametrize("prog", sorted(COMMANDS))
def test_every_argument_and_sub_command_says_what_it_accepts(prog: str) -> None:
    silent = []
    for action in COMMANDS[prog]._actions:
        if isinstance(action, argparse._SubParsersAction):
            silent += [choice.dest for choice in action._choices_actions if not (choice.help or "").strip()]
        elif not isinstance(action, argparse._HelpAction) and not (action.help or "").strip():
            silent.append("/".join(action.option_strings) or action.dest)
    assert silent == [], f"{prog}: give these a help text"


def test_ingest_names_pdf_among_its_inputs() -> None:
    text = _flat(help_text(COMMANDS["biohybrid ingest"]))
    assert "PDF (.pdf)" in text and "PDF full text (.pdf" in text


def test_the_top_level_help_says_where_the_guide_is() -> None:
    text = _flat(help_text(build_parser()))
    assert "docs/index.md" in text and "mkdocs serve" in text and "make docs" in text
    assert (REPOSITORY_ROOT / "docs" / "index.md").is_file()


@pytest.mark.parametrize(
    ("page", "url"),
    [
        ("index.md", "http://127.0.0.1:8000/"),
        ("ingestion/index.md", "http://127.0.0.1:8000/ingestion/"),
        ("ingestion/pdf.md", "http://127.0.0.1:8000/ingestion/pdf/"),
    ],
)
def test_guide_gives_the_source_page_and_its_served_address(page: str, url: str) -> None:
    assert guide(page).startswith(f"Guide: docs/{page} ({url} ")
