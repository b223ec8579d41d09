"""What a remote model's answer must look like to survive ml-commons' ml_inference processor.

ml-commons reads a remote model's JSON answer into Java maps whose numbers are doubles when the predict
runs on another node of the cluster than the search (on a single node they keep their type), and writes
them back into the search request as ``200.0``. Most of a query's numbers parse either way (``k``,
``boost``, ``size``), but the k-NN parser refuses a ``method_parameters`` value that is not an integer
(400 "ef_search value must be an integer"), and it reads a string of digits as one (SEISMIC's
sparse ``method_parameters`` are left as they are: not measured). Measured on the
3-node cluster (OpenSearch 3.6.0, 2026-12-02): every clinical-pipeline search was that 400 until the
rewrite answered its ``ef_search`` as a string.
"""

from __future__ import annotations

from typing import Any

METHOD_PARAMETERS = "method_parameters"
EF_SEARCH = "ef_search"


def with_string_ef_search(query: Any) -> Any:
    """``query`` (any JSON value) with every integer ``method_parameters.ef_search`` as its digits (a new
    value; the rest unchanged), so it reaches the k-NN parser as an integer from any node."""
    if isinstance(query, list):
        return [with_string_ef_search(item) for item in query]
    if not isinstance(query, dict):
        return query
    return {
        key: _ef_search_digits(value) if key == METHOD_PARAMETERS else with_string_ef_search(value)
        for key, value in query.items()
    }


def _ef_search_digits(parameters: Any) -> Any:
    if not isinstance(parameters, dict):
        return parameters
    value = parameters.get(EF_SEARCH)
    if not isinstance(value, int) or isinstance(value, bool):
        return dict(parameters)
    return {**parameters, EF_SEARCH: str(value)}
