from flask import Response

from control_plane.api.security_headers import SECURITY_HEADERS, with_security_headers


def test_every_answer_gets_the_headers_and_a_handlers_own_value_is_kept() -> None:
    answer = with_security_headers(Response("{}", headers={"Referrer-Policy": "same-origin"}))
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    policy = answer.headers["Content-Security-Policy"]
    assert (
        "frame-ancestors 'none'" in policy
        and "script-src 'self'" in policy
        and "'unsafe-inline'" not in policy
    )
    assert answer.headers["Referrer-Policy"] == "same-origin"
    assert set(SECURITY_HEADERS) <= set(answer.headers.keys())
