"""`apply --mappings` on the real node: an index made before a field existed takes it in place and then
accepts documents with it; an index that cannot take the mapping is reported, not half-changed."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from integration.names import session_index
from opensearchpy import OpenSearch, RequestError

from control_plane.cli.main import main as cli
from control_plane.cluster.manage import current_resources
from control_plane.cluster.mappings import MappingAction, MappingUpdate, chunk_mappings, update_index_mappings
from control_plane.config.settings import LOCAL_FILE, Settings

pytestmark = pytest.mark.integration

DOC = {"chunk_id": "d1:chunk:0", "doc_id": "d1", "text": "aspirin and stroke", "tenant_id": "default"}
LAYOUT = {"pages": [1], "lines": []}


def _merged_settings(resources: list[Any]) -> dict[str, Any]:
    """The chunk index settings both component templates give (analysis, similarity, k-NN switch)."""
    merged: dict[str, Any] = {}
    for resource in resources:
        if resource.kind.value == "component_template" and resource.name.startswith("chunk-"):
            merged.update(resource.body["template"].get("settings", {}).get("index", {}))
    return {"index": merged}


@pytest.fixture
def legacy_index(client: OpenSearch, applied: Settings) -> Iterator[str]:
    """A chunk index as an older release made it: today's settings and mapping, without ``layout``
    (outside the chunk template's pattern, so the template cannot add it back)."""
    resources = current_resources(client, applied)
    mappings = copy.deepcopy(chunk_mappings(resources))
    del mappings["properties"]["layout"]
    name = session_index("mapupgrade", "legacy")
    client.indices.create(index=name, body={"settings": _merged_settings(resources), "mappings": mappings})
    yield name
    client.indices.delete(index=name, ignore_unavailable=True)


def test_an_old_index_takes_the_new_field_in_place_once(
    client: OpenSearch, applied: Settings, legacy_index: str
) -> None:
    with pytest.raises(RequestError, match="strict_dynamic_mapping_exception"):
        client.index(index=legacy_index, id="d1:chunk:0", body={**DOC, "layout": LAYOUT})
    mappings = chunk_mappings(current_resources(client, applied))
    assert update_index_mappings(client, legacy_index, mappings) == [MappingUpdate(legacy_index, ("layout",))]
    client.index(index=legacy_index, id="d1:chunk:0", body={**DOC, "layout": LAYOUT}, refresh=True)
    assert client.get(index=legacy_index, id="d1:chunk:0")["_source"]["layout"] == LAYOUT
    again = update_index_mappings(client, legacy_index, mappings)
    assert [u.action for u in again] == [MappingAction.UNCHANGED]


def test_an_index_without_the_analyzers_is_reported_and_left_as_it_was(
    client: OpenSearch, applied: Settings
) -> None:
    name = session_index("mapbare", "legacy")
    client.indices.create(
        index=name, body={"mappings": {"dynamic": "strict", "properties": {"doc_id": {"type": "keyword"}}}}
    )
    try:
        mappings = chunk_mappings(current_resources(client, applied))
        [update] = update_index_mappings(client, name, mappings)
        assert update.action is MappingAction.REFUSED
        assert "analyzer" in (update.error or "") and "re-index" in (update.error or "")
        assert "layout" in update.added and "text" in update.added
        kept = client.indices.get_mapping(index=name)[name]["mappings"]["properties"]
        assert list(kept) == ["doc_id"]  # all or nothing: no field of the refused update was added
    finally:
        client.indices.delete(index=name, ignore_unavailable=True)


def test_the_cli_checks_every_chunk_index(
    applied: Settings, chunk_index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["--config", str(LOCAL_FILE), "apply", "--mappings"]) == 0
    out = capsys.readouterr().out
    assert f"unchanged  index/{chunk_index}" in out  # made from today's template: nothing to add
    assert "refused" not in out
