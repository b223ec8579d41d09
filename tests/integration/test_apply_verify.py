"""apply is idempotent, verify finds no drift after it and finds a hand edit."""

import copy

import pytest
from opensearchpy import OpenSearch

from control_plane.cli.main import main as cli
from control_plane.cluster.manage import Action, apply_resources, current_resources, verify_resources
from control_plane.config.settings import LOCAL_FILE, Settings

pytestmark = pytest.mark.integration


def test_second_apply_changes_nothing_and_verify_is_clean(client: OpenSearch, applied: Settings) -> None:
    """Two applies in a row, here: the first makes the node as the repository says (whatever earlier
    modules left; that a session leaves the node as it found it is test_node_left_as_found's), the
    second must change nothing."""
    resources = current_resources(client, applied)
    apply_resources(client, applied, resources)
    drift = {
        label: [str(d)[:400] for d in diffs] for label, diffs in verify_resources(client, resources).items()
    }
    results = apply_resources(client, applied, resources)
    changed = [r.label for r in results if r.action is not Action.UNCHANGED]
    assert changed == [], {label: drift.get(label) for label in changed}
    assert len(results) == len(resources)
    labels = {r.label for r in resources}
    assert {"index_template/chunks", "index_template/eval-runs", "search_pipeline/hybrid-rrf"} <= labels
    assert all(not diffs for diffs in verify_resources(client, resources).values())


def test_hand_edited_pipeline_shows_drift_until_apply_repairs_it(
    client: OpenSearch, applied: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    [pipeline] = [r for r in current_resources(client, applied) if r.name == "hybrid-minmax"]
    edited = copy.deepcopy(pipeline.body)
    edited["phase_results_processors"][0]["normalization-processor"]["combination"]["parameters"][
        "weights"
    ] = [
        0.5,
        0.25,
        0.25,
    ]
    client.search_pipeline.put(id="hybrid-minmax", body=edited)
    try:
        drift = verify_resources(client, current_resources(client, applied))
        assert [label for label, diffs in drift.items() if diffs] == ["search_pipeline/hybrid-minmax"]
        assert cli(["--config", str(LOCAL_FILE), "verify"]) == 1
        out = capsys.readouterr().out
        assert "drift  search_pipeline/hybrid-minmax" in out
        assert "[0.5, 0.25, 0.25]" in out and "[0.2, 0.2, 0.6]" in out
    finally:
        results = apply_resources(client, applied, current_resources(client, applied))
    assert {r.label for r in results if r.action is Action.UPDATED} == {"search_pipeline/hybrid-minmax"}
    assert cli(["--config", str(LOCAL_FILE), "verify"]) == 0


def test_status_reports_engine_plugins_and_resources(
    applied: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["--config", str(LOCAL_FILE), "status"]) == 0
    out = capsys.readouterr().out
    assert "k-NN engine lucene" in out
    assert "opensearch-neural-search" in out
    assert "search_pipeline/hybrid-rrf: in sync" in out
    assert "(supported; supported: 2.19.1, 3.6.0)" in out


def test_faiss_is_refused_on_a_node_without_knn_natives(
    applied: Settings, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BIOHYBRID_CONFIG", raising=False)
    # The packaged defaults are the production form (faiss); this node is the Maven zip build.
    assert cli(["apply"]) == 2
    assert "without the k-NN native libraries" in capsys.readouterr().err
