"""The job ledger: every ingest, model registration and evaluation job (API, CLI, schedule) as one
document in the ``jobs`` index, written on each state change, readable after a restart."""
