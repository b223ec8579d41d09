"""The fault switch is off unless asked for: a service process started without the flag or the variable
answers 404 on /admin/faults and its model calls are not faulted."""

from __future__ import annotations

import pytest
from integration.fault_switch import call
from integration.service import running_service

from control_plane.inference.faults import ENV_VAR

pytestmark = pytest.mark.integration


def test_a_service_started_without_the_switch_answers_404_and_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    with running_service() as url:
        status, answer = call(f"{url}/admin/faults", "POST", {"fail_next": 5})
        assert status == 404 and ENV_VAR in answer["error"]["message"]
        assert call(f"{url}/admin/faults", "GET")[0] == 404
        status, vectors = call(f"{url}/v1/embeddings/bge-small", "POST", {"input": ["aspirin"]})
        assert status == 200 and len(vectors[0]) == 384
