"""The hook's generators over the real code (so an undescribed setting or a broken OpenAPI document fails
here, before the site build), and the report files the site carries."""

from pathlib import Path

import pytest

from control_plane.docsite.hooks import GENERATORS, report_paths


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_every_generator_renders_the_real_code(name: str) -> None:
    page = GENERATORS[name]()
    assert page.endswith("\n") and page.count("\n") > 20


def test_the_settings_reference_has_every_section_and_an_env_spelled_key() -> None:
    page = "\n" + GENERATORS["settings"]()
    for section in ("opensearch", "index", "fusion", "models", "search", "ingest", "api", "ledger", "events"):
        assert f"\n## {section}\n" in page
    assert "| `index.knn.engine` |" in page and "| `api.keys[].sha256` |" in page


def test_the_cli_reference_names_pdf_among_the_ingest_inputs() -> None:
    page = GENERATORS["cli"]()
    ingest = page[page.index("### biohybrid ingest") :]
    assert "PDF (.pdf)" in " ".join(ingest[: ingest.index("### biohybrid reencode")].split())


def test_report_paths_are_the_markdown_and_figures_under_the_reports_folder(tmp_path: Path) -> None:
    reports = tmp_path / "model_artifacts" / "reports"
    (reports / "grid").mkdir(parents=True)
    for name in ("a.md", "grid/b.md", "grid/b.png", "grid/results.json", "c.SVG"):
        (reports / name).write_text("x", encoding="utf-8")
    assert [p.as_posix() for p in report_paths(tmp_path)] == [
        "model_artifacts/reports/a.md",
        "model_artifacts/reports/c.SVG",
        "model_artifacts/reports/grid/b.md",
        "model_artifacts/reports/grid/b.png",
    ]
