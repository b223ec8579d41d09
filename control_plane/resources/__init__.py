"""Index templates and search pipelines: JSON data in the repository, rendered from settings."""
