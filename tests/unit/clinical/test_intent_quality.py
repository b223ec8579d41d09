"""Intent detection quality: counts and micro precision/recall, the labelled-sample loader, the shipped
sample's targets (a test that fails when a phrase list change loses recall or precision), the CLI."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from control_plane.cli.main import main
from control_plane.clinical.intent_quality import (
    DEFAULT_LABELS_FILE,
    Counts,
    IntentLabelError,
    LabelledQuery,
    labelled_questions,
    load_labels,
    measure,
    measure_detection,
)
from control_plane.clinical.intents import DEFAULT_INTENTS_FILE, load_intent_config

INTENTS = ("eligibility", "adverse_events", "dosage", "results", "methods", "indications", "tabular")


def _query(text: str, intents: list[str], form: str) -> LabelledQuery:
    return LabelledQuery.model_validate({"query": text, "intents": intents, "form": form})


def test_micro_precision_and_recall_by_hand() -> None:
    labelled = [
        _query("a", ["eligibility"], "exact"),  # found: tp eligibility
        _query("b", ["dosage", "tabular"], "complex"),  # dosage found, tabular missed, results spurious
        _query("c", ["results"], "paraphrase"),  # nothing found: fn results
        _query("d", [], "none"),  # methods spurious
    ]
    detected = [["eligibility"], ["dosage", "results"], [], ["methods"]]
    report = measure(labelled, detected, intents=INTENTS)
    # tp: eligibility, dosage = 2; fp: results (b), methods (d) = 2; fn: tabular (b), results (c) = 2.
    assert report.overall == Counts(tp=2, fp=2, fn=2)
    assert report.overall.precision == pytest.approx(2 / 4)
    assert report.overall.recall == pytest.approx(2 / 4)
    assert report.per_intent["results"] == Counts(tp=0, fp=1, fn=1)
    assert report.per_intent["dosage"] == Counts(tp=1, fp=0, fn=0)
    assert report.per_intent["adverse_events"] == Counts()  # listed although never seen
    assert report.per_form == {
        "exact": Counts(1, 0, 0),
        "complex": Counts(1, 1, 1),
        "paraphrase": Counts(0, 0, 1),
        "none": Counts(0, 1, 0),
    }
    assert [o.labelled.query for o in report.mistakes] == ["b", "c", "d"]
    assert report.mistakes[0].missed == {"tabular"} and report.mistakes[0].spurious == {"results"}


def test_no_detection_has_no_precision_and_no_label_no_recall() -> None:
    assert Counts().precision is None and Counts().recall is None
    assert Counts(tp=0, fp=0, fn=3).precision is None
    assert Counts(tp=0, fp=2, fn=0).recall is None


def test_measure_refuses_misaligned_inputs() -> None:
    with pytest.raises(ValueError, match="1 labelled queries but 2 detections"):
        measure([_query("a", [], "none")], [[], []])


def _write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = json.dumps({"query": "inclusion criteria", "intents": ["eligibility"], "form": "exact"})


def test_loader_reads_records_and_skips_blank_lines(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD, "", json.dumps({"query": "statins", "intents": [], "form": "none"}))
    records = load_labels(path, known_intents=INTENTS)
    assert [(r.query, r.intents, r.form) for r in records] == [
        ("inclusion criteria", frozenset({"eligibility"}), "exact"),
        ("statins", frozenset(), "none"),
    ]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", r"labels\.jsonl:2: not valid JSON"),
        (
            json.dumps({"query": "q", "intents": ["safety"], "form": "exact"}),
            r":2: unknown intent\(s\) \['safety'\]",
        ),
        (json.dumps({"query": "q", "intents": [], "form": "vague"}), r":2: form 'vague' is not one of"),
        (json.dumps({"intents": [], "form": "none"}), r":2: query: "),
        (json.dumps({"query": "q", "intents": [], "form": "none", "note": 1}), r":2: note: "),
        (json.dumps({"query": "q", "intents": ["dosage"], "form": "none"}), r":2: form 'none' with intents"),
        (json.dumps({"query": "q", "intents": [], "form": "paraphrase"}), r":2: form 'paraphrase' needs"),
    ],
)
def test_loader_names_file_and_line_of_a_bad_record(tmp_path: Path, bad: str, message: str) -> None:
    path = _write(tmp_path, GOOD, bad)
    with pytest.raises(IntentLabelError, match=message) as caught:
        load_labels(path, known_intents=INTENTS)
    assert f"{path}:2:" in str(caught.value)


def test_loader_reports_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(IntentLabelError, match="not found"):
        load_labels(tmp_path / "absent.jsonl")


def test_shipped_sample_is_large_and_covers_every_intent_and_form() -> None:
    records = load_labels(DEFAULT_LABELS_FILE, known_intents=INTENTS)
    assert len(records) >= 130
    assert len({r.query.casefold() for r in records}) == len(records)  # no duplicates
    forms = Counter(r.form for r in records)
    assert forms["none"] >= 30 and forms["complex"] >= 10 and forms["paraphrase"] >= 50
    per_intent = Counter(i for r in records for i in r.intents)
    assert set(per_intent) == set(INTENTS) and min(per_intent.values()) >= 15


def test_shipped_detector_reaches_the_targets_on_the_shipped_sample() -> None:
    config = load_intent_config(DEFAULT_INTENTS_FILE)
    report = measure_detection(load_labels(DEFAULT_LABELS_FILE, known_intents=config.intents), config)
    overall = report.overall
    assert overall.recall is not None and overall.recall >= 0.8, overall
    assert overall.precision is not None and overall.precision >= 0.9, overall


def test_cli_check_prints_the_table_and_exits_by_the_targets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["intents", "check"]) == 0
    out = capsys.readouterr().out
    assert "overall" in out and "intent eligibility" in out and "form none" in out
    # A sample the detector cannot get right: recall 0 is below any positive minimum.
    path = _write(tmp_path, json.dumps({"query": "zebrafish", "intents": ["dosage"], "form": "paraphrase"}))
    assert main(["intents", "check", "--labels", str(path), "--mistakes"]) == 1
    out = capsys.readouterr().out
    assert "below target: recall 0.000 < 0.8" in out and "zebrafish" in out
    bad = _write(tmp_path, json.dumps({"query": "q", "intents": ["nausea"], "form": "exact"}))
    assert main(["intents", "check", "--labels", str(bad)]) == 2
    assert "unknown intent(s) ['nausea']" in capsys.readouterr().err


def test_cli_cues_refuses_what_ingest_refuses_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "cues.json"
    assert main(["intents", "cues", str(tmp_path / "absent"), "--out", str(out)]) == 2
    assert "no such dataset, file or folder" in capsys.readouterr().err
    monkeypatch.setenv("BIOHYBRID_DATASETS_DIR", str(tmp_path / "nowhere"))
    assert main(["intents", "cues", "ctgov", "--mesh", "medline", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "BIOHYBRID_DATASETS_DIR" in err and "Traceback" not in err
    assert main(["intents", "cues", "ctgov", "--min-records", "0", "--out", str(out)]) == 2
    assert not out.exists()


def test_a_test_sets_questions_are_labelled_by_their_metadata() -> None:
    questions = [
        ("did lenalidomide help", {"intents": ["results"], "form": "implicit"}),
        ("breast cancer", {}),
        ("dose of X and its harms", {"intents": ["dosage", "adverse_events"]}),
    ]
    labelled = labelled_questions(questions, INTENTS)
    assert [(q.query, set(q.intents), q.form) for q in labelled] == [
        ("did lenalidomide help", {"results"}, "implicit"),
        ("breast cancer", set(), "none"),
        ("dose of X and its harms", {"dosage", "adverse_events"}, "unnamed"),
    ]
    with pytest.raises(IntentLabelError, match=r"question 'q': unknown intent\(s\) \['safety'\]"):
        labelled_questions([("q", {"intents": ["safety"]})], INTENTS)
    with pytest.raises(IntentLabelError, match="must be a list of names"):
        labelled_questions([("q", {"intents": "results"})], INTENTS)


def test_cli_check_reads_a_registered_split_or_names_the_known_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "set"
    (folder / "qrels").mkdir(parents=True)
    lines = [
        {
            "_id": "q1",
            "text": "inclusion criteria for the asthma trial",
            "metadata": {"intents": ["eligibility"], "form": "topic"},
        },
        {"_id": "q2", "text": "asthma", "metadata": {"intents": [], "form": "no_intent"}},
        {"_id": "q3", "text": "not judged in this split", "metadata": {"intents": ["dosage"]}},
    ]
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    (folder / "qrels" / "dev.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t2\nq2\td1\t1\n", encoding="utf-8"
    )
    assert main(["intents", "check", "--split", f"{folder}:dev"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 labelled queries") and "form topic" in out and "form no_intent" in out
    assert main(["intents", "check", "--split", "nope/dev"]) == 2
    assert "unknown test set id 'nope/dev'" in capsys.readouterr().err
