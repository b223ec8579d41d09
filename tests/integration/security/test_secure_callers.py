"""On the secured 2.19.1 node, OpenSearch's connectors prove their caller to the inference service with
the caller token they hold as an ml-commons credential, as on the local node."""

import pytest
from integration.security.conftest import TENANT_SOURCES, SecureNode
from integration.service import search_proves_its_caller

pytestmark = pytest.mark.integration


def test_the_secured_nodes_connectors_prove_their_caller(secure_node: SecureNode) -> None:
    index = f"chunks-{next(iter(TENANT_SOURCES))}*"
    search_proves_its_caller(secure_node.service, secure_node.settings.models.service_url, index)
