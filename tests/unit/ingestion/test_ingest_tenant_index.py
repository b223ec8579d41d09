"""Ingest's target index when tenants are separated by index (index.tenant_indices): the default is
<prefix>-<tenant>, and an index that is not the tenant's is refused when the options are built, i.e.
before any client call, model load or write (the CLI and the control API both build them this way)."""

from __future__ import annotations

import dataclasses

import pytest

from control_plane.config.index_settings import IndexSettings
from control_plane.config.tenancy import TenantIndexError
from control_plane.ingestion.run import IngestOptions

SHARED = IndexSettings()
SEPARATED = IndexSettings(tenant_indices=True)


def test_the_default_index_is_the_tenants_own() -> None:
    assert IngestOptions.for_tenant(SHARED, "acme").index == "chunks-acme"
    assert IngestOptions.for_tenant(SEPARATED, "acme").index == "chunks-acme"
    assert IngestOptions.for_tenant(IndexSettings(prefix="bio"), "acme", None).index == "bio-acme"


def test_shared_indices_take_any_index_and_tenant_name() -> None:
    options = IngestOptions.for_tenant(SHARED, "Acme-EU", "chunks-nfcorpus", strategy="section")
    assert (options.index, options.tenant_id, options.strategy) == ("chunks-nfcorpus", "Acme-EU", "section")
    assert options.tenant_index_prefix is None


@pytest.mark.parametrize("index", ["chunks-acme", "chunks-acme-pmc", "chunks-acme-ctgov-2024"])
def test_separated_indices_take_the_tenants_own(index: str) -> None:
    options = IngestOptions.for_tenant(SEPARATED, "acme", index, batch_chunks=64, progress=False)
    assert (options.index, options.batch_chunks, options.progress) == (index, 64, False)
    assert options.tenant_index_prefix == "chunks"


@pytest.mark.parametrize("index", ["chunks-globex", "chunks-acmex", "chunks-nfcorpus", "chunks-acm"])
def test_separated_indices_refuse_another_index_naming_it_the_tenant_and_the_allowed_names(
    index: str,
) -> None:
    with pytest.raises(TenantIndexError) as refused:
        IngestOptions.for_tenant(SEPARATED, "acme", index)
    assert str(refused.value) == (
        f"index {index!r} is not tenant 'acme''s: with index.tenant_indices on, tenant 'acme' may use only "
        "'chunks-acme' or 'chunks-acme-<suffix>' (e.g. 'chunks-acme-pmc'; 'chunks-acme-*' reads them "
        "all): name one of those, or leave the index out to use the tenant's own"
    )


def test_separated_indices_refuse_a_tenant_name_that_cannot_name_indices() -> None:
    with pytest.raises(TenantIndexError, match=r"tenant 'acme-eu' cannot name indices.*no '-'"):
        IngestOptions.for_tenant(SEPARATED, "acme-eu")


def test_options_built_directly_or_copied_are_checked_too() -> None:
    with pytest.raises(TenantIndexError, match="'chunks-globex' is not tenant 'acme''s"):
        IngestOptions(index="chunks-globex", tenant_id="acme", tenant_index_prefix="chunks")
    own = IngestOptions.for_tenant(SEPARATED, "acme")
    with pytest.raises(TenantIndexError, match="'chunks-globex' is not tenant 'acme''s"):
        dataclasses.replace(own, index="chunks-globex")
    # Without the prefix (tenants sharing indices) nothing is checked.
    assert IngestOptions(index="chunks-globex", tenant_id="acme").index == "chunks-globex"
