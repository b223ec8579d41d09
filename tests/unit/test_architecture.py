"""ARCHITECTURE.md's package table is the import contract: every package of control_plane is listed, and
each imports only packages of a lower layer (or itself); the product never imports build, benchmark or test
code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from control_plane.locations import PACKAGE_DIR, REPOSITORY_ROOT

ROW = re.compile(r"^\| (\d+) \| (\w+) \| .+ \|$")


def layers() -> dict[str, int]:
    text = (REPOSITORY_ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    return {m.group(2): int(m.group(1)) for line in text.splitlines() if (m := ROW.match(line))}


def package_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR).parts
    return parts[0].removesuffix(".py")


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def sources() -> list[Path]:
    return sorted(p for p in PACKAGE_DIR.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE_DIR)


def test_every_package_is_in_the_table() -> None:
    listed = layers()
    found = {package_of(p) for p in sources()}
    assert found - set(listed) == set(), "add these packages to ARCHITECTURE.md's table"
    assert set(listed) - found == set(), "ARCHITECTURE.md lists packages that do not exist"


def violations(mine: str, names: set[str], listed: dict[str, int]) -> list[str]:
    """The imports of a module of package ``mine`` that break the contract."""
    broken = []
    for name in sorted(names):
        top, _, rest = name.partition(".")
        if top in {"model_artifacts", "benchmarks", "tests"}:
            broken.append(f"imports {name} (build or test code)")
        elif top == "control_plane" and rest:
            theirs = rest.split(".")[0]
            if theirs != mine and listed[theirs] >= listed[mine]:
                broken.append(f"{mine} (layer {listed[mine]}) imports {theirs} (layer {listed[theirs]})")
    return broken


def test_imports_go_only_to_lower_layers() -> None:
    listed = layers()
    broken = [
        f"{path.relative_to(REPOSITORY_ROOT)}: {problem}"
        for path in sources()
        for problem in violations(package_of(path), imports(path), listed)
    ]
    assert broken == []


def test_the_contract_reports_upward_sideways_and_build_imports() -> None:
    listed = layers()
    assert (
        violations("search", {"control_plane.formulas.bm25", "control_plane.search.spec", "numpy"}, listed)
        == []
    )
    assert violations("formulas", {"control_plane.search.service"}, listed) == [
        f"formulas (layer 0) imports search (layer {listed['search']})"
    ]
    assert violations("search", {"control_plane.cluster.manage"}, listed) != []  # same layer
    assert violations("models", {"model_artifacts.reranker.bm25"}, listed) == [
        "imports model_artifacts.reranker.bm25 (build or test code)"
    ]
    assert violations("search", {"benchmarks.fusion_grid.compute"}, listed) == [
        "imports benchmarks.fusion_grid.compute (build or test code)"
    ]
