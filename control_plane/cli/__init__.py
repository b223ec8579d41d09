"""The ``biohybrid`` command line."""
