"""MkDocs hooks (mkdocs.yml ``hooks:``): the generated pages and the committed reports.

- ``on_page_markdown`` expands ``<!-- generated: NAME -->`` lines (markers.py) with the API reference from
  the OpenAPI document, the configuration references from the settings models and the CLI reference from
  the parser, at build time, so nothing generated is committed.
- ``on_files`` adds the committed benchmark and evaluation reports (model_artifacts/reports/, their
  markdown and figures) to the site at the same paths, so pages link the reports that hold the figures
  instead of copying numbers that age. A report whose figure was never committed shows a note in its
  place (reports.py) rather than failing the strict build; a guide page's broken link still fails it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Final

from control_plane.docsite.markers import expand_markers
from control_plane.docsite.reports import uncommitted_figures_noted
from control_plane.locations import REPOSITORY_ROOT

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

REPORTS: Final = Path("model_artifacts") / "reports"
REPORT_SUFFIXES: Final = frozenset({".md", ".png", ".svg"})


def _openapi() -> str:
    from control_plane.api.openapi import openapi_document
    from control_plane.docsite.openapi_page import openapi_markdown

    return openapi_markdown(openapi_document())


def _settings() -> str:
    from control_plane.config.settings import load_settings
    from control_plane.docsite.settings_page import settings_markdown

    return settings_markdown(load_settings(environ={}), "control_plane/config/defaults.yaml")


def _evaluation_settings() -> str:
    from control_plane.docsite.settings_page import settings_markdown
    from control_plane.evaluation.settings import load_evaluation_settings

    return settings_markdown(load_evaluation_settings(environ={}), "control_plane/config/evaluation.yaml")


def _cli() -> str:
    from control_plane.cli.main import build_parser
    from control_plane.docsite.cli_page import cli_markdown

    return cli_markdown(build_parser())


GENERATORS: Final[Mapping[str, Callable[[], str]]] = {
    "openapi": _openapi,
    "settings": _settings,
    "evaluation-settings": _evaluation_settings,
    "cli": _cli,
}


def report_paths(root: Path) -> list[Path]:
    """The report files the site carries, relative to the repository root, sorted."""
    folder = root / REPORTS
    return sorted(
        path.relative_to(root)
        for path in folder.rglob("*")
        if path.is_file() and path.suffix.lower() in REPORT_SUFFIXES
    )


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    source = page.file.src_uri
    if source.startswith(REPORTS.as_posix() + "/"):
        folder = (REPOSITORY_ROOT / source).parent
        return uncommitted_figures_noted(markdown, lambda target: (folder / target).is_file())
    return expand_markers(markdown, GENERATORS, source)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    from mkdocs.structure.files import File

    for path in report_paths(REPOSITORY_ROOT):
        files.append(
            File(
                path.as_posix(),
                src_dir=str(REPOSITORY_ROOT),
                dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls,
            )
        )
    return files
