"""python -m control_plane.evaluation.clinical_set --out testsets/clinical"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from control_plane.evaluation.clinical_set.build import build


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m control_plane.evaluation.clinical_set",
        description="Build the clinical test collection (BEIR layout, chunk-level graded judgments) from "
        "the shared ClinicalTrials.gov, PMC and MEDLINE records. Deterministic: the same inputs give "
        "the same files.",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("testsets/clinical"), help="output folder (its files are replaced)"
    )
    args = parser.parse_args()
    summary = build(args.out)
    print(json.dumps(summary, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
