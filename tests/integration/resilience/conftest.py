"""One inference service with the fault switch on, shared by this package's tests (each arms what it needs
and is disarmed after it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from integration.fault_switch import disarm, faulty_service


# Session scope (what "package" gave anyway: this folder is not a package).
@pytest.fixture(scope="session")
def faulty_url() -> Iterator[str]:
    with faulty_service() as url:
        yield url


@pytest.fixture
def service_url(faulty_url: str) -> Iterator[str]:
    """The faulty service, disarmed after each test."""
    yield faulty_url
    disarm(faulty_url)
