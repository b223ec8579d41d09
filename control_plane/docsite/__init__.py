"""The documentation site's machinery (docs/, mkdocs.yml): the pages generated at build time from the code
they describe (the control API's OpenAPI document, the settings models, the CLI's parser), so no committed
copy can go stale, and the extractor of the runnable examples the integration tests execute."""
