"""Cluster administration: install, verify and report the project's resources."""
