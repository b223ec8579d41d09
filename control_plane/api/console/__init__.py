"""The relevance console: one page (``GET /console``) that compares two configurations on a question,
plots the stored evaluation runs over time and shows models, pipelines and drift; its data comes from
admin-only JSON endpoints under ``/v1/admin/console/``."""
