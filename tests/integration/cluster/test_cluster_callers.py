"""On the 3-node cluster, the clinical pipelines answer (their rewrite's model answer crosses nodes, where
ml-commons hands its numbers back as floats: control_plane/mlcommons/model_output.py), and every node's
connectors prove their caller to the cluster's inference service with the caller token (an ml-commons
credential), as on the local node."""

import pytest
from integration.cluster.reference import Cluster
from integration.service import search_proves_its_caller
from opensearchpy import OpenSearch

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("pipeline", ["clinical-minmax", "clinical-rrf"])
def test_a_clinical_pipeline_answers_from_every_coordinating_node(cluster: Cluster, pipeline: str) -> None:
    body = {"size": 5, "_source": ["doc_id"], "query": {"match": {"text": "eligibility criteria for adults"}}}
    for url in cluster.settings.opensearch.urls:
        node = OpenSearch(hosts=[url], timeout=60)
        answer = node.search(index=cluster.reference_index, params={"search_pipeline": pipeline}, body=body)
        assert len(answer["hits"]["hits"]) == 5, (pipeline, answer)


def test_the_clusters_connectors_prove_their_caller(cluster: Cluster) -> None:
    search_proves_its_caller(cluster.client, cluster.settings.models.service_url, cluster.reference_index)
