"""Scoring and statistics formulas as small pure functions, one module per formula, imported by every
caller (fusion formulas live in control_plane/fusion/)."""
