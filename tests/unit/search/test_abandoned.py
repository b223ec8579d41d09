"""Which tasks a caller's search left behind: the top-level search tasks of a ``_tasks?detailed`` answer
under the caller's opaque id (the shape as a 3.6.0 node answered it while a search ran)."""

from __future__ import annotations

import pytest

from control_plane.errors import CallerGoneError
from control_plane.search.abandoned import UNWATCHED, WatchedCaller, search_task_ids

TASKS = {
    "nodes": {
        "PVKiz835": {
            "tasks": {
                "PVKiz835:939": {"action": "indices:data/read/search", "headers": {"X-Opaque-Id": "mine"}},
                "PVKiz835:940": {
                    "action": "indices:data/read/search[phase/query]",
                    "headers": {"X-Opaque-Id": "mine"},
                    "parent_task_id": "PVKiz835:939",
                },
                "PVKiz835:941": {"action": "indices:data/read/search", "headers": {"X-Opaque-Id": "theirs"}},
                "PVKiz835:942": {"action": "indices:data/read/search", "headers": {}},
            }
        },
        "Qx7": {
            "tasks": {"Qx7:12": {"action": "indices:data/read/search", "headers": {"X-Opaque-Id": "mine"}}}
        },
    }
}


def test_a_callers_tasks_are_its_top_level_searches_on_every_node() -> None:
    assert search_task_ids(TASKS, "mine") == ["PVKiz835:939", "Qx7:12"]  # not the child: cancelled with it
    assert search_task_ids(TASKS, "nobody") == []
    assert search_task_ids({"nodes": {}}, "mine") == []


def test_a_caller_that_left_stops_the_request_and_one_not_watched_never_does() -> None:
    with pytest.raises(CallerGoneError, match="closed its connection before the search"):
        WatchedCaller({"X-Opaque-Id": "mine"}, lambda: True).stop_if_left("before the search")
    WatchedCaller({"X-Opaque-Id": "mine"}, lambda: False).stop_if_left("before the search")
    assert not UNWATCHED.left() and UNWATCHED.headers == {}
