"""The cluster as the control plane sees it: the opensearch-py client factory (connection, timeouts,
retries), the resource API, and install / verify / status of the project's resources.

Other packages receive a client built here and send their own requests with it (search, bulk, ml-commons);
this package does not wrap those calls."""
