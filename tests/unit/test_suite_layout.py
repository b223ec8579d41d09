"""The test suite's own layout rules.

The test folders are not packages (no ``__init__.py``), and since pytest 8 a ``scope="package"`` fixture
outside a package lives to the end of the session: a fixture written to end with its folder (and put the
node back as it found it) silently outlived it, and a later module met its models and pipelines
(stop 43's red run). Fixtures say ``module`` or ``session``, the lifetime they really get."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def package_scoped_fixtures(source: str) -> list[str]:
    """The names of the functions in ``source`` decorated ``@pytest.fixture(scope="package")``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and any(
                k.arg == "scope" and isinstance(k.value, ast.Constant) and k.value.value == "package"
                for k in decorator.keywords
            ):
                found.append(node.name)
    return found


def test_package_scope_is_found() -> None:
    source = (
        "import pytest\n"
        "@pytest.fixture(scope='package')\ndef stack(): ...\n"
        "@pytest.fixture(scope='module')\ndef other(): ...\n"
        "@pytest.fixture\ndef plain(): ...\n"
    )
    assert package_scoped_fixtures(source) == ["stack"]


def test_no_fixture_outside_a_package_is_package_scoped() -> None:
    offenders = [
        f"{path.relative_to(TESTS)}: {name}"
        for path in sorted(TESTS.rglob("*.py"))
        if not (path.parent / "__init__.py").exists()
        for name in package_scoped_fixtures(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], (
        "these fixtures say scope='package' in a folder that is not a package, so they live to the end of "
        f"the session: say 'module' or 'session' instead: {offenders}"
    )
