"""Helpers of the relevance console's tests: the control API of the package stack (tests/integration/api/
conftest.py) with its evaluation store in a session index, a judged test set over tenant A's records,
real evaluation runs stored there, and the app behind a real HTTP server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml
from flask import Flask
from integration.api.stack import ApiStack
from integration.names import session_index
from integration.service import free_port
from opensearchpy import OpenSearch
from werkzeug.serving import make_server

from control_plane.api.app import create_app
from control_plane.evaluation.api import EvaluateRequest
from control_plane.evaluation.api import evaluate as run_evaluation
from control_plane.evaluation.settings import EVALUATION_FILE, EvaluationSettings, load_evaluation_settings
from control_plane.evaluation.store import EvalRunStore
from control_plane.search.service import SearchService

ADMIN = "a-admin"
TENANT = "tenant-a"
CONFIGURATIONS = ["bm25", "hybrid-rrf"]
METRICS = ["ndcg@10", "recall@10"]
# Words of tenant A's record titles (ClinicalTrials.gov and PMC): each a question of the judged set.
TOPICS = ("cancer", "children", "vaccine", "pregnancy", "heart", "diabetes", "depression")
MIN_QUERIES = 4


@dataclass
class ConsoleApp:
    app: Flask
    evaluation: EvaluationSettings
    runs_index: str
    test_set_id: str


def judged_set(client: OpenSearch, stack: ApiStack, folder: Path) -> str:
    """A BEIR-layout test set over tenant A's records: a question per topic word of ``TOPICS``, judging
    relevant every record whose title has the word (so rankings differ, and so do configurations);
    returns its id (``<folder>:dev``)."""
    body = {"size": 1000, "collapse": {"field": "doc_id"}, "_source": ["doc_id", "title_path"]}
    hits = client.search(index=f"{stack.prefix}-a", body=body)["hits"]["hits"]
    titles = {h["_source"]["doc_id"]: str(h["_source"]["title_path"]).split("›")[0].lower() for h in hits}
    queries, qrels = [], ["query-id\tcorpus-id\tscore"]
    for topic in TOPICS:
        relevant = sorted(doc for doc, title in titles.items() if topic in title.split())
        if relevant:
            queries.append(json.dumps({"_id": topic, "text": f"{topic} treatment outcomes"}))
            qrels.extend(f"{topic}\t{doc}\t1" for doc in relevant)
    assert len(queries) >= MIN_QUERIES, f"tenant A's titles name only {len(queries)} of {TOPICS}"
    (folder / "qrels").mkdir(parents=True)
    (folder / "queries.jsonl").write_text("\n".join(queries) + "\n", encoding="utf-8")
    (folder / "qrels" / "dev.tsv").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    return f"{folder}:dev"


def console_app(client: OpenSearch, stack: ApiStack, root: Path) -> ConsoleApp:
    """The stack's settings and keys in an app whose evaluations read the judged set from tenant A's
    index and store runs in a session index (never the developer's eval-runs)."""
    test_set_id = judged_set(client, stack, root / "consoleset")
    runs_index = session_index("console", prefix="eval-runs")
    data = yaml.safe_load(EVALUATION_FILE.read_text(encoding="utf-8"))
    data.update(
        indices={"consoleset": f"{stack.prefix}-a"},
        tenant_id=TENANT,
        store={"index": runs_index},
        metrics=METRICS,
    )
    data["schedule"]["enabled"] = False
    evaluation_file = root / "evaluation.yaml"
    evaluation_file.write_text(yaml.safe_dump(data), encoding="utf-8")
    evaluation = load_evaluation_settings(evaluation_file)
    app = create_app(stack.settings, client, evaluation=evaluation)
    return ConsoleApp(app, evaluation, runs_index, test_set_id)


def evaluate(console: ConsoleApp) -> str:
    """One real evaluation run of the judged set (the search service of the console's app, tenant A),
    stored in the console's eval-runs index as `biohybrid evaluate` stores it; its run id. (POST
    /v1/evaluate reads only the test sets the server knows, never a folder a request names.)"""
    service: SearchService = console.app.extensions["biohybrid.service"]
    store = EvalRunStore(service.client, service.settings, console.runs_index)
    request = EvaluateRequest(test_set_id=console.test_set_id, configurations=CONFIGURATIONS)
    result = run_evaluation(request, service, store, settings=console.evaluation, tenant_id=TENANT)
    assert result.stored and [c.configuration for c in result.configurations] == CONFIGURATIONS
    return result.run_id


@contextmanager
def served(app: Flask) -> Iterator[str]:
    """The app behind a real HTTP server (werkzeug's, threaded) on a free port; its base URL."""
    server = make_server("127.0.0.1", free_port(), app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="console-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
