import argparse

from control_plane.docsite.cli_page import cli_markdown, help_text, subcommands


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tool", description="A tool.")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("first", help="the first", description="First things.")
    second = commands.add_parser("second", help="the second")
    actions = second.add_subparsers(dest="action")
    actions.add_parser("inner", help="nested", aliases=["in"])
    return parser


def test_subcommands_are_walked_depth_first_once_each() -> None:
    assert [p.prog for p in subcommands(_parser())] == ["tool first", "tool second", "tool second inner"]


def test_every_command_gets_a_heading_and_its_help_verbatim() -> None:
    page = cli_markdown(_parser())
    assert [line for line in page.splitlines() if line.startswith("###")] == [
        "### tool",
        "### tool first",
        "### tool second",
        "### tool second inner",
    ]
    assert "### tool first\n\n```text\nusage: tool first [-h]\n\nFirst things." in page


def test_help_is_formatted_at_a_fixed_width_and_the_parser_is_left_as_it_was() -> None:
    parser = argparse.ArgumentParser(prog="p", description=" ".join(["word"] * 40))
    before = parser.formatter_class
    assert max(len(line) for line in help_text(parser, width=40).splitlines()) <= 40
    assert parser.formatter_class is before
