"""Typed settings loaded from YAML with environment overrides."""

from control_plane.config.settings import ConfigError, Settings, load_settings

__all__ = ["ConfigError", "Settings", "load_settings"]
