import pytest
from pydantic import ValidationError

from control_plane.api.admin import RESULT_WINDOW, JobListQuery


def test_a_page_ends_within_the_jobs_result_window() -> None:
    assert JobListQuery.model_validate({"from": RESULT_WINDOW - 20, "size": 20}).from_ == RESULT_WINDOW - 20
    with pytest.raises(ValidationError, match="from \\+ size is 10001; pages end at job 10,000"):
        JobListQuery.model_validate({"from": RESULT_WINDOW - 20, "size": 21})
