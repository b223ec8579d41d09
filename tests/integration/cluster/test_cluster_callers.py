"""On the 3-node cluster, every node's connectors prove their caller to the cluster's inference service
with the caller token (an ml-commons credential), as on the local node."""

import pytest
from integration.cluster.reference import Cluster
from integration.service import search_proves_its_caller

pytestmark = pytest.mark.integration


def test_the_clusters_connectors_prove_their_caller(cluster: Cluster) -> None:
    search_proves_its_caller(cluster.client, cluster.settings.models.service_url, cluster.reference_index)
