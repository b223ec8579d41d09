"""Monitoring assets and their tools: the pinned Prometheus (prometheus, promtool) fetched from Debian's
package by sha256, the alert rules and Grafana dashboard under ops/ read as data, the metric names their
PromQL uses, and a local Prometheus that scrapes the running API and inference service with the rules."""
