import pytest

from control_plane.docsite.http_block import HttpBlockError, HttpRequest, parse_http


def test_a_dev_tools_request_goes_to_opensearch_with_a_json_body() -> None:
    request = parse_http('POST chunks-demo/_search?search_pipeline=hybrid-rrf\n{"size": 3,\n "query": {}}\n')
    assert request == HttpRequest(
        "POST", "chunks-demo/_search?search_pipeline=hybrid-rrf", (), '{"size": 3,\n "query": {}}'
    )
    assert request.url("http://127.0.0.1:9200/") == (
        "http://127.0.0.1:9200/chunks-demo/_search?search_pipeline=hybrid-rrf"
    )
    assert request.header_map() == {"Content-Type": "application/json"}


def test_an_absolute_target_with_headers_and_a_body_after_a_blank_line() -> None:
    code = (
        "POST http://localhost:8600/v1/search\n"
        "X-API-Key: demo-search-key\n"
        "Content-Type: application/json\n"
        "\n"
        '{"query": "statin myopathy"}\n'
    )
    request = parse_http(code)
    assert request.url("http://127.0.0.1:9200") == "http://localhost:8600/v1/search"
    assert request.header_map() == {"X-API-Key": "demo-search-key", "Content-Type": "application/json"}
    assert request.body == '{"query": "statin myopathy"}'


def test_a_request_without_a_body_gets_no_content_type() -> None:
    request = parse_http("GET /_cluster/health")
    assert (request.body, request.header_map()) == ("", {})
    assert request.url("http://n:9200") == "http://n:9200/_cluster/health"


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("", "starts with a request line"),
        ("FETCH /x", "expected METHOD TARGET"),
        ("GET", "expected METHOD TARGET"),
        ("GET /x\nnot a header\n", "a header is 'Name: value'"),
    ],
)
def test_what_cannot_be_sent_is_an_error(code: str, message: str) -> None:
    with pytest.raises(HttpBlockError, match=message):
        parse_http(code)
