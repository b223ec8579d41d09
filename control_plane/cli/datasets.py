"""`datasets list` (where each dataset is found) and `datasets fetch` (the evaluation corpora from their
public sources, checked against sha256 pins). No node needed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from control_plane.cli.common import EXIT_CONFIG, Subcommands, guide
from control_plane.config.settings import Settings
from control_plane.datasets.fetch import fetch_dataset, load_sources
from control_plane.datasets.locate import (
    DATASETS_DIR_ENV_VAR,
    FETCHABLE,
    REPOSITORY_DATASETS,
    dataset_roots,
    find_dataset,
)

ALL_DATASETS = ("pmc", "clinicaltrials", *FETCHABLE)


def add_parsers(commands: Subcommands) -> None:
    datasets = commands.add_parser(
        "datasets",
        epilog=guide("evaluation/test-sets.md"),
        help="where each dataset is found; fetch the evaluation corpora (NFCorpus, SciFact, MEDLINE)",
        description="Datasets are looked for in $"
        f"{DATASETS_DIR_ENV_VAR}, then the repository's datasets/ (the demo corpus ships there), then "
        "../shared/datasets beside the checkout. `datasets list` says where each one is; `datasets fetch` "
        "downloads the evaluation corpora that are found nowhere from their public sources into datasets/, "
        "unpacks and converts them, and checks every file against its sha256 pin before moving it into "
        "place (a corpus already found is left alone; running it again is harmless).",
    )
    actions = datasets.add_subparsers(dest="datasets_action", required=True, metavar="ACTION")
    listing = actions.add_parser(
        "list", help="each dataset and the folder it is found in", epilog=guide("evaluation/test-sets.md")
    )
    listing.set_defaults(handler=_list)
    fetch = actions.add_parser(
        "fetch",
        help="download evaluation corpora found nowhere",
        epilog=guide("evaluation/test-sets.md"),
        description="Download NFCorpus, SciFact and/or the MEDLINE files into --into (default: each one "
        "found nowhere; one named is fetched even when found elsewhere).",
    )
    fetch.add_argument("names", nargs="*", metavar="NAME", help=f"any of {', '.join(FETCHABLE)}")
    fetch.add_argument(
        "--into", type=Path, default=REPOSITORY_DATASETS, help="where to put them (default: %(default)s)"
    )
    fetch.add_argument(
        "--mirror",
        metavar="URL",
        help="download the same file names from this base URL instead of the public sources (a local copy)",
    )
    fetch.add_argument(
        "--if-missing", action="store_true", help="skip a named corpus that is already found somewhere"
    )
    fetch.add_argument("--no-progress", action="store_true", help="no progress bar")
    fetch.set_defaults(handler=_fetch)


def _list(settings: Settings, args: argparse.Namespace) -> int:
    print(f"looked for in: {', '.join(str(root) for root in dataset_roots())}")
    for name in ALL_DATASETS:
        found = find_dataset(name)
        fix = f" (biohybrid datasets fetch {name})" if name in FETCHABLE else ""
        where = str(found) if found else f"missing{fix}"
        print(f"  {name:<15} {where}")
    return 0


def _fetch(settings: Settings, args: argparse.Namespace) -> int:
    unknown = [name for name in args.names if name not in FETCHABLE]
    if unknown:
        print(
            f"error: no public source for {', '.join(unknown)}: fetch one of {', '.join(FETCHABLE)} "
            "(pmc and clinicaltrials ship in datasets/)",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    sources = load_sources()
    if args.names and not args.if_missing:
        wanted = list(args.names)
    else:
        wanted = [name for name in (args.names or FETCHABLE) if find_dataset(name) is None]
    if not wanted:
        print(f"already found: {', '.join(args.names or FETCHABLE)} (biohybrid datasets list says where)")
        return 0
    for name in wanted:
        result = fetch_dataset(
            sources[name], args.into, mirror=args.mirror, show_progress=not args.no_progress
        )
        print(
            f"{name}: {result.outcome} ({result.folder}, {len(sources[name].files)} files match their pins)"
        )
    return 0
