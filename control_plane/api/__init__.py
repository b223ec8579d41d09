"""The control API (Flask): /v1/search, /retrieve, /v1/rewrite, /v1/evaluate and admin endpoints."""
