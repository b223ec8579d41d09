#!/usr/bin/env python3
"""Print the bcrypt hash of the password on stdin for the security plugin's internal_users.yml, reusing
the hash kept in HASH_FILE while it still matches the password (so re-runs render the same file and do
not reload the security configuration). Prints one JSON line: {"changed": bool, "hash": ...}.

Usage: bcrypt_hash.py HASH_FILE < password
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import bcrypt


def main() -> int:
    hash_file = Path(sys.argv[1])
    password = sys.stdin.read().strip().encode()
    if not password:
        print("bcrypt_hash.py: empty password on stdin", file=sys.stderr)
        return 2
    if hash_file.exists():
        kept = hash_file.read_text().strip().encode()
        if kept and bcrypt.checkpw(password, kept):
            print(json.dumps({"changed": False, "hash": kept.decode()}))
            return 0
    hashed = bcrypt.hashpw(password, bcrypt.gensalt(rounds=12)).decode()
    hash_file.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(hash_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        out.write(hashed + "\n")
    print(json.dumps({"changed": True, "hash": hashed}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
