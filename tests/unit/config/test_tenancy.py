"""Which index names belong to which tenant when tenants are separated by index: hand-written cases of
the rule in control_plane/config/tenancy.py (exact <prefix>-<tenant> or <prefix>-<tenant>-<suffix>;
tenant names lowercase letters, digits and '_')."""

from __future__ import annotations

import pytest

from control_plane.config.tenancy import (
    TenantIndexError,
    check_tenant_index,
    index_belongs_to_tenant,
    tenant_index,
    tenant_index_pattern,
    tenant_name_problem,
)
from control_plane.errors import ClientError


def test_the_tenant_index_and_pattern() -> None:
    assert tenant_index("chunks", "acme") == "chunks-acme"
    assert tenant_index_pattern("chunks", "acme") == "chunks-acme,chunks-acme-*"
    assert tenant_index_pattern("bio-chunks", "t_1") == "bio-chunks-t_1,bio-chunks-t_1-*"


@pytest.mark.parametrize(
    ("tenant", "index", "belongs"),
    [
        ("acme", "chunks-acme", True),
        ("acme", "chunks-acme-pmc", True),
        ("acme", "chunks-acme-pmc-2024", True),
        ("acme", "chunks-acme-*", True),  # every name it matches starts with chunks-acme-
        ("acme", "chunks-acme,chunks-acme-*", True),
        ("acme", "chunks-acme,chunks-acme-pmc", True),
        ("acm", "chunks-acme", False),  # a longer tenant name is another tenant
        ("acm", "chunks-acme-x", False),
        ("acme", "chunks-acm", False),
        ("acme", "chunks-acme-", False),  # no suffix after the dash
        ("acme", "chunks-acmex", False),
        ("acme", "chunks-acme*", False),  # would match chunks-acmex
        ("acme", "chunks-*", False),
        ("acme", "*", False),
        ("acme", "_all", False),
        ("acme", "chunks-globex", False),
        ("acme", "chunks-acme,chunks-globex", False),  # every part must be the tenant's
        ("acme", "chunks-acme,", False),
        ("acme", "chunks-acme,-chunks-acme-old", False),  # exclusions are not the tenant's names
        ("acme", "remote:chunks-acme", False),
        ("acme", "other-acme", False),
        ("acme", "chunks-ACME", False),
        ("acme", "", False),
    ],
)
def test_which_indices_belong_to_a_tenant(tenant: str, index: str, belongs: bool) -> None:
    assert index_belongs_to_tenant("chunks", tenant, index) is belongs


def test_a_hyphenated_prefix_is_taken_whole() -> None:
    # The prefix is one setting (index.prefix), so its own '-' never shifts where the tenant starts.
    assert index_belongs_to_tenant("bio-chunks", "acme", "bio-chunks-acme-x")
    assert not index_belongs_to_tenant("bio-chunks", "chunks", "bio-chunks-acme")


@pytest.mark.parametrize("tenant", ["acme", "t1", "tenant_2", "default", "0"])
def test_lowercase_letters_digits_and_underscore_name_tenants(tenant: str) -> None:
    assert tenant_name_problem(tenant) is None


@pytest.mark.parametrize("tenant", ["acme-x", "Acme", "ACME", "a.b", "a b", ""])
def test_other_tenant_names_cannot_name_indices(tenant: str) -> None:
    problem = tenant_name_problem(tenant)
    assert problem is not None
    assert f"tenant {tenant!r}" in problem and "index.tenant_indices" in problem
    # Their indices cannot be told apart from another tenant's: nothing belongs to them, no pattern.
    assert not index_belongs_to_tenant("chunks", tenant, f"chunks-{tenant}")
    with pytest.raises(TenantIndexError, match="lowercase letters, digits and '_'"):
        tenant_index_pattern("chunks", tenant)


def test_chunks_acme_x_belongs_to_acme_only() -> None:
    assert index_belongs_to_tenant("chunks", "acme", "chunks-acme-x")
    assert not index_belongs_to_tenant("chunks", "acme-x", "chunks-acme-x")  # '-' is no tenant's


def test_a_foreign_index_is_refused_naming_index_tenant_and_allowed_names() -> None:
    with pytest.raises(TenantIndexError) as refused:
        check_tenant_index("chunks", "acme", "chunks-globex")
    message = str(refused.value)
    assert "index 'chunks-globex' is not tenant 'acme''s" in message
    assert "'chunks-acme'" in message and "'chunks-acme-<suffix>'" in message
    assert refused.value.http_status == 403
    assert isinstance(refused.value, ClientError) and isinstance(refused.value, ValueError)


def test_a_bad_tenant_name_is_refused_before_the_index_is_looked_at() -> None:
    with pytest.raises(TenantIndexError, match=r"tenant 'Acme' cannot name indices"):
        check_tenant_index("chunks", "Acme", "chunks-Acme")


def test_the_tenants_own_indices_pass() -> None:
    check_tenant_index("chunks", "acme", "chunks-acme")
    check_tenant_index("chunks", "acme", "chunks-acme-pmc")
    check_tenant_index("chunks", "acme", tenant_index_pattern("chunks", "acme"))
