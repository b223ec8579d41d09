import pytest

from control_plane.docsite.runnable import (
    Block,
    RunnableMarkerError,
    chunk_index_names,
    fenced_blocks,
    info_classes,
    runnable_blocks,
    substitute,
)

PAGE = """# A page

```bash
make run
```

```{.bash .runnable}
curl -s localhost:9200
```

Some text.

```{.python .runnable title="a query"}
print("hi")

print("bye")
```

```{.http .runnable}
GET /_cluster/health
```
"""


def test_only_marked_blocks_are_runnable_with_page_line_language_and_code() -> None:
    assert runnable_blocks(PAGE, "guide.md") == [
        Block("guide.md", 7, "shell", "curl -s localhost:9200"),
        Block("guide.md", 13, "python", 'print("hi")\n\nprint("bye")'),
        Block("guide.md", 19, "http", "GET /_cluster/health"),
    ]


def test_where_names_page_and_line() -> None:
    assert Block("a/b.md", 12, "shell", "true").where == "a/b.md:12"


def test_an_indented_block_inside_a_list_or_admonition_loses_its_indent() -> None:
    page = "!!! note\n\n    ```{.bash .runnable}\n    biohybrid --help\n      | head\n    ```\n"
    assert runnable_blocks(page, "p.md") == [Block("p.md", 3, "shell", "biohybrid --help\n  | head")]


def test_a_longer_fence_keeps_a_shorter_one_inside_it() -> None:
    page = "````{.bash .runnable}\ncat <<'EOF'\n```\nEOF\n````\n"
    assert runnable_blocks(page, "p.md")[0].code == "cat <<'EOF'\n```\nEOF"


def test_tilde_fences_are_blocks_too() -> None:
    assert [b.info for b in fenced_blocks("~~~python\nx = 1\n~~~\n")] == ["python"]


def test_an_unclosed_fence_is_an_error_with_its_line() -> None:
    with pytest.raises(RunnableMarkerError, match=r"p\.md:3: the code fence ``` is never closed"):
        list(fenced_blocks("text\n\n```bash\nls\n", "p.md"))


@pytest.mark.parametrize(
    ("info", "classes"),
    [
        ("bash", ("bash",)),
        ("python title=x", ("python",)),
        ("{.bash .runnable}", ("bash", "runnable")),
        ('{ .http .runnable title="x y" }', ("http", "runnable")),
        ("", ()),
    ],
)
def test_info_classes(info: str, classes: tuple[str, ...]) -> None:
    assert info_classes(info) == classes


@pytest.mark.parametrize(
    ("info", "message"),
    [
        ("bash runnable", r"p\.md:1: write the marker as \{\.LANGUAGE \.runnable\}"),
        ("{.runnable}", r"p\.md:1: write the marker as"),
        ("{.ruby .runnable}", r"p\.md:1: runnable blocks are .*not 'ruby'"),
        ("{.bash .runnable", r"p\.md:1: unclosed attribute list"),
    ],
)
def test_a_malformed_marker_is_an_error_never_a_skipped_block(info: str, message: str) -> None:
    with pytest.raises(RunnableMarkerError, match=message):
        runnable_blocks(f"```{info}\nls\n```\n", "p.md")


def test_an_empty_runnable_block_is_an_error() -> None:
    with pytest.raises(RunnableMarkerError, match="empty"):
        runnable_blocks("```{.bash .runnable}\n\n```\n", "p.md")


def test_substitute_replaces_longest_first_in_one_pass() -> None:
    replacements = {"chunks-demo": "chunks-t1-docs", "chunks-demo-papers": "chunks-t1-papers"}
    code = "curl localhost:9200/chunks-demo-papers/_search; curl localhost:9200/chunks-demo/_count"
    assert substitute(code, replacements) == (
        "curl localhost:9200/chunks-t1-papers/_search; curl localhost:9200/chunks-t1-docs/_count"
    )


def test_substitute_does_not_reapply_to_what_it_wrote() -> None:
    assert substitute("a b", {"a": "b", "b": "c"}) == "b c"
    assert substitute("nothing", {}) == "nothing"


def test_chunk_index_names_finds_names_and_patterns_not_prose() -> None:
    code = "curl localhost:9200/chunks-demo/_search; biohybrid query x --index chunks-*\n# chunks- alone"
    assert chunk_index_names(code) == {"chunks-demo", "chunks-*"}
    assert chunk_index_names('{"index": "chunks-papers-api"}') == {"chunks-papers-api"}
