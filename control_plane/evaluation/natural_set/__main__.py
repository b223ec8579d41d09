"""python -m control_plane.evaluation.natural_set {pool,added,build} ..."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

FOLDER = Path("testsets/clinical-natural")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m control_plane.evaluation.natural_set")
    commands = parser.add_subparsers(dest="command", required=True)
    pool = commands.add_parser("pool", help="write the top-k chunks of every configuration for judging")
    pool.add_argument("--folder", type=Path, default=FOLDER)
    pool.add_argument("--index", default="chunks-clinical")
    pool.add_argument("--depth", type=int, default=20)
    pool.add_argument("--tenant", default="default", help="tenant id the service searches as")
    pool.add_argument("--out", type=Path, default=FOLDER / "pool.jsonl")
    added = commands.add_parser(
        "added", help="write added.jsonl: every chunk of each question's on-topic records the pool missed"
    )
    added.add_argument("--folder", type=Path, default=FOLDER)
    added.add_argument("--corpus", type=Path, default=Path("testsets/clinical/corpus.jsonl"))
    build = commands.add_parser(
        "build", help="grade the pool from reading.tsv and topics.json; split by topic group; write qrels"
    )
    build.add_argument("--folder", type=Path, default=FOLDER)
    args = parser.parse_args()
    if args.command == "pool":
        from control_plane.evaluation.natural_set.pool import write_pool

        count = write_pool(args.folder / "queries.jsonl", args.out, args.index, args.depth, args.tenant)
        print(f"{count} (query, chunk) pairs -> {args.out}")
        return 0
    if args.command == "added":
        from control_plane.evaluation.natural_set.added import write_added

        print(
            f"{write_added(args.folder, args.corpus)} (query, chunk) pairs -> {args.folder / 'added.jsonl'}"
        )
        return 0
    from control_plane.evaluation.natural_set.build import build as build_folder
    from control_plane.evaluation.natural_set.judge import judge

    judge(args.folder)
    print(json.dumps(build_folder(args.folder), indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
