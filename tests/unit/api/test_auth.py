import pytest

from control_plane.api.auth import AuthError, Principal, authenticate, key_sha256, presented_key
from control_plane.config.api_settings import ApiKey

KEYS = (
    ApiKey(sha256=key_sha256("s3cret-a"), tenant="a", role="search", name="a-search"),
    ApiKey(sha256=key_sha256("s3cret-admin"), tenant="a", role="admin"),
)


def test_sha256_of_a_known_key() -> None:
    assert key_sha256("demo-search-key") == "d2fa5c9cf5a7135d0d1df997c1e3bcdc2ad0e04dad1b644dfa9be40fc1703a80"


def test_bearer_and_x_api_key_headers_case_insensitively() -> None:
    assert presented_key({"Authorization": "Bearer k1"}) == "k1"
    assert presented_key({"x-api-key": "k2"}) == "k2"
    assert presented_key({"X-Api-Key": "k3"}) == "k3"
    assert presented_key({}) is None


def test_a_key_maps_to_its_tenant_and_role() -> None:
    who = authenticate({"Authorization": "Bearer s3cret-a"}, KEYS)
    assert who == Principal("a", "search", "a-search", key_id=key_sha256("s3cret-a")[:16])


@pytest.mark.parametrize(("headers", "status"), [({}, 401), ({"X-API-Key": "wrong"}, 401)])
def test_missing_or_unknown_keys_are_401(headers: dict[str, str], status: int) -> None:
    with pytest.raises(AuthError) as caught:
        authenticate(headers, KEYS)
    assert caught.value.status == status
    assert "wrong" not in str(caught.value)


def test_search_role_cannot_use_admin_endpoints_and_admin_can_search() -> None:
    with pytest.raises(AuthError) as caught:
        Principal("a", "search", "x").require("admin")
    assert caught.value.status == 403
    Principal("a", "admin", "x").require("search")
