# The two commands the README documents:
#   make run   set up everything: the local OpenSearch node, the inference service and its models
#              registered in ml-commons, templates and pipelines, the demo corpus indexed, status and
#              example queries printed (the evaluation corpora: make nfcorpus, make scifact)
#   make test  set up everything (the evaluation corpora fetched when found nowhere: make datasets), lint,
#              type-check, build the documentation site strictly, and run unit +
#              integration tests (the docs' runnable examples among them) against the real node (reused if
#              running, else provisioned and stopped again afterwards)
SHELL := /bin/bash
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
LOCAL_CONFIG := control_plane/config/local.yaml
export BIOHYBRID_CONFIG ?= $(abspath $(LOCAL_CONFIG))

DEMO_INDEX := chunks-demo
DEMO_SOURCES := pmc ctgov

DEMO_KEY := demo-search-key
EVAL_LOCAL_CONFIG := control_plane/config/evaluation-local.yaml

.PHONY: help setup run datasets nfcorpus scifact browser test test-export pin-artifacts lint unit integration node-up node-down cluster-up cluster-down cluster-status cluster-rolling-restart secure-up secure-down monitoring-check monitoring-up monitoring-down service-up service-down api-up api-down status demo demo-seed docs clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

setup: $(BIN)/.installed ## create .venv, install the project with its dev, ops, haystack and clients extras, fetch the pinned Maven models
	@$(BIN)/biohybrid --log-format text models fetch

# setuptools tells every editable install "be careful with folders ... with the same name as your
# package": here that folder is the package itself, so the notice says nothing; it is silenced by its
# exact text (pip re-raises the build backend's warnings) and every other warning still shows.
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"

$(BIN)/.installed: pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found (Python 3.11 is required)"; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(QUIET_EDITABLE) $(BIN)/pip install --quiet -e ".[dev,ops,haystack,clients]"
	@touch $@

node-up: setup ## provision and start the local node and inference service (idempotent)
	cd ansible && ../$(BIN)/ansible-playbook site.yml

node-down: setup ## stop the local node and inference service
	cd ansible && ../$(BIN)/ansible-playbook site.yml -e opensearch_state=stopped

CLUSTER_INVENTORY := inventories/local-cluster/hosts.yml
CLUSTER_CONFIG := $(abspath control_plane/config/local-cluster.yaml)

cluster-up: setup ## provision and start a 3-node cluster on this machine (ports 9211-9213) and its inference service (8502)
	cd ansible && ../$(BIN)/ansible-playbook -i $(CLUSTER_INVENTORY) site.yml
	BIOHYBRID_CONFIG=$(CLUSTER_CONFIG) $(BIN)/biohybrid --log-format text status

secure-up: setup ## start the security-plugin node (2.19.1, HTTPS on 9221) the secured-configuration tests use
	cd ansible && ../$(BIN)/ansible-playbook -i inventories/local-secure/hosts.yml site.yml

secure-down: setup ## stop the security-plugin node (its data and certificates stay under .local/secure)
	cd ansible && ../$(BIN)/ansible-playbook -i inventories/local-secure/hosts.yml site.yml -e opensearch_state=stopped

cluster-down: setup ## stop the 3-node cluster and its inference service (data stays under .local/cluster)
	cd ansible && ../$(BIN)/ansible-playbook -i $(CLUSTER_INVENTORY) site.yml -e opensearch_state=stopped

cluster-rolling-restart: setup ## restart the 3-node cluster one node at a time, serving searches throughout
	cd ansible && ../$(BIN)/ansible-playbook -i $(CLUSTER_INVENTORY) rolling_restart.yml

cluster-status: setup ## the 3-node cluster's health, nodes and shard allocation
	BIOHYBRID_CONFIG=$(CLUSTER_CONFIG) $(BIN)/biohybrid --log-format text status

pin-artifacts: setup ## after changing opensearch_version: fetch the role's zips and rewrite their sha256 pins
	$(BIN)/python ansible/roles/opensearch/files/maven_artifact.py pin \
	  --defaults ansible/roles/opensearch/defaults/main.yml --pins ansible/roles/opensearch/vars/artifact_pins.yml

monitoring-check: setup ## promtool check + unit tests of the alert rules (ops/prometheus/; fetches the pinned Prometheus)
	$(BIN)/python -m control_plane.monitoring check

monitoring-up: setup ## a local Prometheus on 9090 scraping the API (8600) and the inference service (8501) with the alert rules
	$(BIN)/python -m control_plane.monitoring up

monitoring-down: setup ## stop the local Prometheus
	$(BIN)/python -m control_plane.monitoring down

status: setup ## print the node's status
	$(BIN)/biohybrid --log-format text status

service-up: setup ## start the inference service in the background (reused if running)
	$(BIN)/biohybrid service start

service-down: setup ## stop the inference service
	$(BIN)/biohybrid service stop

api-up: setup ## start the control API on port 8600 in the background (reused if running)
	BIOHYBRID_EVAL_CONFIG=$(abspath $(EVAL_LOCAL_CONFIG)) $(BIN)/biohybrid api start

api-down: setup ## stop the control API
	$(BIN)/biohybrid api stop

# `make run` times its phases: each one's wall time when it ends and the time since make run started
# (RUN_T0, set by the top-level make run, inherited by its sub-makes), then a summary ending with the
# first demo answer (.local/make-run-phases.txt keeps it).
ifneq ($(filter run,$(MAKECMDGOALS)),)
export RUN_T0 := $(shell date +%s)
endif
PHASES_LOG := .local/make-run-phases.txt
# $(call timed,NAME,COMMAND): COMMAND under a header; when it succeeds, NAME's wall time (logged)
timed = printf '\n=== %s\n' '$(1)'; t=$$(date +%s); $(2) || exit $$?; now=$$(date +%s); \
	printf '%-62s %5ss  (at %ss)\n' '$(1)' $$((now - t)) $$((now - $(RUN_T0))) | tee -a $(PHASES_LOG) | sed 's/^/=== done: /'

run: ## everything: node, models, pipelines, demo corpus, status, example queries (each phase timed)
	@mkdir -p .local && : >$(PHASES_LOG)
	@$(call timed,pip: .venv + models fetch (make setup),$(MAKE) --no-print-directory setup)
	@$(call timed,provision: node + inference service (make node-up service-up),$(MAKE) --no-print-directory node-up service-up)
	@$(call timed,templates and pipelines (biohybrid apply),$(BIN)/biohybrid --log-format text apply --mappings)
	@$(call timed,model registration (biohybrid models register),$(BIN)/biohybrid --log-format text models register)
	@$(call timed,drift check (biohybrid verify),$(BIN)/biohybrid --log-format text verify)
	@$(call timed,demo ingest (biohybrid ingest),$(BIN)/biohybrid --log-format text ingest $(DEMO_SOURCES) --index $(DEMO_INDEX))
	@$(call timed,control API (make api-up),$(MAKE) --no-print-directory api-up)
	@$(call timed,status (biohybrid status),$(BIN)/biohybrid --log-format text status)
	@$(call timed,example queries (make demo),$(MAKE) --no-print-directory demo)
	@printf '\n=== make run: phase wall times\n' && sed 's/^/  /' $(PHASES_LOG) && \
	  printf '  %-62s %5ss\n' total $$(($$(date +%s) - $(RUN_T0)))
	@$(BIN)/biohybrid status --next-steps

datasets: setup ## fetch the evaluation corpora (NFCorpus, SciFact, MEDLINE) found nowhere, checked against their sha256 pins (datasets/README.md)
	$(BIN)/biohybrid --log-format text datasets fetch

nfcorpus: node-up service-up ## index NFCorpus (6,794 chunks; ~11 min on 2 cores the first time, seconds once cached) for evaluation
	$(BIN)/biohybrid --log-format text datasets fetch nfcorpus --if-missing
	$(BIN)/biohybrid --log-format text ingest nfcorpus --index chunks-nfcorpus

scifact: node-up service-up ## index SciFact (9,076 chunks; ~15 min on 2 cores the first time) for evaluation
	$(BIN)/biohybrid --log-format text datasets fetch scifact --if-missing
	$(BIN)/biohybrid --log-format text ingest scifact --index chunks-scifact

DEMO_SEED := datasets/encodings/demo.npz

demo-seed: setup ## rewrite the encoding seed the first make run reads (datasets/encodings/demo.npz): parse, chunk, encode here, no node
	$(BIN)/biohybrid --log-format text encode-seed $(DEMO_SOURCES) --out $(DEMO_SEED) --nice 10

demo: setup ## example queries: straight to OpenSearch's pipelines, then through the control API
	$(BIN)/biohybrid query "eligibility for breast cancer trials" --index $(DEMO_INDEX) --pipeline clinical-minmax
	@$(if $(RUN_T0),printf '%-62s %5s   (at %ss)\n' 'first demo answer' '' $$(($$(date +%s) - $(RUN_T0))) | tee -a $(PHASES_LOG) | sed 's/^/=== /')
	$(BIN)/biohybrid query "side effects of the treatment" --index $(DEMO_INDEX) --pipeline clinical-rrf
	$(BIN)/biohybrid query "exclusion criteria pregnancy" --index $(DEMO_INDEX) --pipeline hybrid-rrf
	$(BIN)/biohybrid query "serious adverse events of the study drug" --index $(DEMO_INDEX) --pipeline hybrid-minmax
	$(BIN)/biohybrid query "dose of the intervention in mg" --index $(DEMO_INDEX) --pipeline hybrid-rrf-rerank
	$(BIN)/biohybrid search "side effects of the treatment" --key $(DEMO_KEY)
	$(BIN)/biohybrid search "eligibility for breast cancer trials" --key $(DEMO_KEY) --fusion weighted --documents

lint: setup ## ruff, mypy and a strict build of the documentation site (no node needed)
	$(BIN)/ruff check control_plane benchmarks model_artifacts tests loadtest
	$(BIN)/ruff format --check control_plane benchmarks model_artifacts tests loadtest
	$(BIN)/mypy
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

docs: setup ## serve the documentation site (docs/) on http://127.0.0.1:8000/, rebuilt on every edit
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

unit: setup ## unit tests only (no node)
	$(BIN)/pytest tests/unit

integration: setup ## integration tests against the local node
	$(BIN)/pytest tests/integration

# The relevance console's browser test drives Debian's chromium and chromedriver (/usr/bin) headless:
# installed first when missing and make runs as root (as .ci/run does), else named before anything runs.
browser: ## Debian's chromium and chromedriver for the console's browser test (apt-get as root, else named)
	@test -x /usr/bin/chromium && test -x /usr/bin/chromedriver || { \
	  if [ "$$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing chromium and chromium-driver (apt-get) for the console's browser test"; \
	    apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null || exit 2; \
	  else \
	    echo "error: make test needs Debian's chromium and chromedriver in /usr/bin (the console's browser test): sudo apt-get install chromium chromium-driver"; \
	    exit 2; \
	  fi; }

test: browser lint datasets ## lint, fetch the evaluation corpora found nowhere, then every test (unit and integration) in two halves at once (PYTEST_ARGS adds pytest options)
	$(BIN)/pytest -n 2 $(PYTEST_ARGS)

test-export: setup ## export-time parity against torch (installs the export extra: torch with its CUDA libraries, several GB)
	$(QUIET_EDITABLE) $(BIN)/pip install --quiet -e ".[dev,ops,export]"
	$(BIN)/python -c 'from control_plane.models.manifest import load_manifest; from model_artifacts.sources import install_sources, missing_packages; m = load_manifest(); [install_sources(m.model(n)) for n in ("minilm", "splade-tiny") if missing_packages(m.model(n))]'
	$(BIN)/pytest tests/export

clean: api-down service-down node-down ## stop the API, the service and the node, remove the project-local installs
	rm -rf .local .venv
