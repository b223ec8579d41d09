"""The documentation's runnable examples: fenced code blocks marked ``{.bash .runnable}``,
``{.python .runnable}`` or ``{.http .runnable}`` (pymdownx.superfences' attribute form; Material renders
them as ordinary highlighted blocks with a ``runnable`` class). The integration tests execute every one
against the real stack, so an example whose flag or field changed breaks the build instead of rotting.

Parsing is strict on purpose: a block that says "runnable" in any other way, or in a language the tests
cannot run, is an error naming its page and line, never silently skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final, Literal

from control_plane.errors import BiohybridError

Language = Literal["shell", "python", "http"]

RUNNABLE: Final = "runnable"
LANGUAGES: Final[Mapping[str, Language]] = {
    "bash": "shell",
    "sh": "shell",
    "shell": "shell",
    "python": "python",
    "py": "python",
    "http": "http",
}

_FENCE: Final = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


class RunnableMarkerError(BiohybridError, ValueError):
    """A code block's marker is malformed, names an unknown language, or its fence is never closed."""


@dataclass(frozen=True)
class Block:
    """One runnable example: where it is (page, 1-based line of its opening fence), how to run it."""

    page: str
    line: int
    language: Language
    code: str

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass(frozen=True)
class Fenced:
    """Any fenced code block: its opening line, its info string and its content (indent removed)."""

    line: int
    info: str
    code: str


def fenced_blocks(markdown: str, page: str = "<markdown>") -> Iterator[Fenced]:
    """Every fenced block of a page, also inside lists and admonitions (an indented fence: its indent is
    removed from the content). A fence that is never closed is an error, not the rest of the page."""
    lines = markdown.splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None or (opening["fence"][0] == "`" and "`" in opening["info"]):
            index += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        body: list[str] = []
        for end in range(index + 1, len(lines)):
            if _closes(lines[end], fence):
                yield Fenced(index + 1, opening["info"].strip(), "\n".join(body))
                index = end + 1
                break
            body.append(_dedent(lines[end], indent))
        else:
            raise RunnableMarkerError(f"{page}:{index + 1}: the code fence {fence} is never closed")


def _closes(line: str, fence: str) -> bool:
    text = line.strip()
    return len(text) >= len(fence) and set(text) == {fence[0]}


def _dedent(line: str, indent: int) -> str:
    taken = len(line) - len(line.lstrip(" \t"))
    return line[min(indent, taken) :]


def info_classes(info: str) -> tuple[str, ...]:
    """The classes of an info string: ``{.bash .runnable title="x"}`` gives ("bash", "runnable");
    ``bash`` (the short form) gives ("bash",); an empty one gives ()."""
    text = info.strip()
    if not text.startswith("{"):
        return (text.split()[0],) if text else ()
    if not text.endswith("}"):
        raise RunnableMarkerError(f"unclosed attribute list {text!r}")
    return tuple(token[1:] for token in text[1:-1].split() if token.startswith(".") and len(token) > 1)


def runnable_blocks(markdown: str, page: str) -> list[Block]:
    """The runnable blocks of one page, in page order."""
    blocks = []
    for fenced in fenced_blocks(markdown, page):
        where = f"{page}:{fenced.line}"
        try:
            classes = info_classes(fenced.info)
        except RunnableMarkerError as exc:
            raise RunnableMarkerError(f"{where}: {exc}") from None
        if RUNNABLE not in classes[1:]:
            if RUNNABLE in fenced.info:
                raise RunnableMarkerError(
                    f"{where}: write the marker as {{.LANGUAGE .{RUNNABLE}}} (got {fenced.info!r})"
                )
            continue
        language = LANGUAGES.get(classes[0])
        if language is None:
            raise RunnableMarkerError(
                f"{where}: runnable blocks are {', '.join(sorted(LANGUAGES))}, not {classes[0]!r}"
            )
        if not fenced.code.strip():
            raise RunnableMarkerError(f"{where}: the runnable block is empty")
        blocks.append(Block(page, fenced.line, language, fenced.code))
    return blocks


def substitute(code: str, replacements: Mapping[str, str]) -> str:
    """``code`` with each literal of ``replacements`` replaced, longest first and in one pass (so
    ``chunks-demo`` inside ``chunks-demo-papers`` is not replaced twice): how the tests point an example's
    documented names (the demo index, the API's port) at the session's own."""
    if not replacements:
        return code
    pattern = re.compile("|".join(re.escape(key) for key in sorted(replacements, key=len, reverse=True)))
    return pattern.sub(lambda match: replacements[match.group(0)], code)


_INDEX_NAME: Final = re.compile(r"\bchunks-[A-Za-z0-9_*.-]*[A-Za-z0-9_*]")


def chunk_index_names(code: str) -> set[str]:
    """The ``chunks-...`` index names (or patterns) a block names: the tests refuse any they cannot point
    at an index of their own, so an example never writes to a real one."""
    return set(_INDEX_NAME.findall(code))
