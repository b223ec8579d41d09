"""Query-side text analysis shared across packages."""
