"""The markdown report: each form's nDCG@10 beside the plain form's, the latency breakdown, the targets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmarks.client_forms.compute import ADDED_P95_MS, WITHIN_PLAIN, FormVerdict, added_p95
from benchmarks.client_forms.forms import SOURCES_KEPT
from benchmarks.client_forms.measure import EXPLICIT, PLAIN_FORM
from benchmarks.clinical_pipelines.compute import Latency
from benchmarks.run_stamp import RunStamp, report_opening


@dataclass(frozen=True)
class Findings:
    forms: tuple[FormVerdict, ...]
    questions: Mapping[str, int]  # judged questions per split
    latency: Mapping[str, Latency]
    latency_questions: str


def _form_table(forms: Sequence[FormVerdict], questions: Mapping[str, int]) -> list[str]:
    lines = [
        "| split | fusion | form | nDCG@10 | plain form | difference | within 0.005 |",
        "|---|---|---|---|---|---|---|",
    ]
    for v in forms:
        lines.append(
            f"| {v.split} ({questions[v.split]}) | {v.fusion} | {v.form} | {v.ndcg:.4f} | {v.plain:.4f} "
            f"| {v.delta:+.4f} | {'yes' if v.met else 'NO'} |"
        )
    return lines


def render_report(findings: Findings, context: RunStamp, index: str) -> str:
    missed = [v for v in findings.forms if not v.met]
    explicit, plain = findings.latency[EXPLICIT], findings.latency[PLAIN_FORM]
    added = added_p95(plain, explicit)
    lines = [
        *report_opening(
            "Client forms and RAG libraries through the clinical pipelines", context, [f"- index `{index}`"]
        ),
        "## nDCG@10 of each form against the plain form",
        "Each form is a body a client or a library sends (benchmarks/client_forms/forms.py), "
        "or the library's own retriever (libraries.py), through the clinical pipeline of each fusion. "
        "A form that narrows the sources is compared with the plain form's answer kept to those sources "
        "(its whole routed window, the other sources' hits taken out): "
        + "; ".join(f"'{form}' with {', '.join(sources)}" for form, sources in SOURCES_KEPT.items())
        + ".",
        "",
        *_form_table(findings.forms, findings.questions),
        "",
        f"Forms outside {WITHIN_PLAIN} of the plain form: {len(missed)} of {len(findings.forms)}"
        + (
            ": " + "; ".join(f"{v.split} {v.fusion} {v.form} {v.delta:+.4f}" for v in missed)
            if missed
            else "."
        ),
        "",
        f"## Latency (client-side ms, one interleaved run, {findings.latency_questions})",
        "The plain form through `clinical-minmax` against the README's explicit query, with pipelines cut "
        "down from the installed `clinical-minmax` to show where the added time goes.",
        "",
        "| path | n | P50 | P95 |",
        "|---|---|---|---|",
        *(
            f"| {label} | {lat.n} | {lat.p50:.0f} | {lat.p95:.0f} |"
            for label, lat in findings.latency.items()
        ),
        "",
        "## Targets (issue 47)",
        "",
        "| target | measured | verdict |",
        "|---|---|---|",
        f"| every form within {WITHIN_PLAIN} nDCG@10 of the plain form | {len(missed)} outside "
        f"| {'met' if not missed else 'MISSED'} |",
        f"| plain form's P95 at most {ADDED_P95_MS:g} ms over the explicit query | {plain.p95:.0f} - "
        f"{explicit.p95:.0f} = {added:+.0f} ms | {'met' if added <= ADDED_P95_MS else 'MISSED'} |",
        "",
    ]
    return "\n".join(lines)
