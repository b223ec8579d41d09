"""Check that no `everyday` question in queries.jsonl contains a banned word.

The match is a case-insensitive substring match, so "doses", "overdose",
"results", "outcomes" and "designed" are caught as well.
Run from anywhere: python testsets/clinical-everyday/check_everyday_words.py
"""
import json
import pathlib
import sys

BANNED = ["adverse", "side effect", "side-effect", "eligib", "inclusion",
          "exclusion", "criteria", "criterion", "dose", "dosage", "dosing",
          "efficacy", "outcome", "result", "method", "design", "safety",
          "toxicity"]

path = pathlib.Path(__file__).with_name("queries.jsonl")
checked = 0
bad = []
for line in path.read_text(encoding="utf-8").splitlines():
    q = json.loads(line)
    if q["metadata"]["form"] != "everyday":
        continue
    checked += 1
    text = q["text"].lower()
    hits = [w for w in BANNED if w in text]
    if hits:
        bad.append((q["_id"], hits, q["text"]))

print(f"everyday questions checked: {checked}")
print(f"banned words: {', '.join(BANNED)}")
print(f"questions with a banned word: {len(bad)}")
for qid, hits, text in bad:
    print(f"  {qid}: {hits}: {text}")
sys.exit(1 if bad else 0)
