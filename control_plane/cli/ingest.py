"""`ingest`: parse, chunk, encode and index documents; `reencode`: an index's chunks again, with the
configured models."""

from __future__ import annotations

import argparse
import sys

from control_plane.cli.common import (
    EXIT_CONFIG,
    EXIT_DRIFT,
    EXIT_MODEL,
    Subcommands,
    add_nice_argument,
    guide,
)
from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings
from control_plane.ingestion.chunking import STRATEGIES
from control_plane.mlcommons.registry import deployed_model_ids
from control_plane.priority import yield_cpu


def add_parsers(commands: Subcommands) -> None:
    ingest = commands.add_parser(
        "ingest",
        epilog=guide("ingestion/index.md"),
        help="parse, chunk, encode and index documents (resumable, idempotent)",
        description="Index dataset ids (nfcorpus, scifact, pmc, ctgov, medline) or your own files and "
        "folders: PDF full text (.pdf, with a text layer), PMC JATS articles (.nxml), ClinicalTrials.gov "
        "records (.json, .xml), MEDLINE (.xml, .xml.gz) and BEIR corpora (.jsonl); a folder's files are read "
        "recursively, each by the parser of its kind. Bad records (a corrupt or password-protected PDF, a "
        "scan without text) go to the dead-letter file and the rest land; a re-run skips unchanged "
        "chunks, updates changed ones and deletes chunks of documents that shrank.",
    )
    ingest.add_argument(
        "sources",
        nargs="+",
        help="dataset ids (nfcorpus, scifact, pmc, ctgov, medline), files or folders: PDF (.pdf), "
        "JATS (.nxml), ClinicalTrials.gov (.json, .xml), MEDLINE (.xml, .xml.gz), BEIR (.jsonl)",
    )
    ingest.add_argument(
        "--index",
        help="target index, a name the chunk template covers: <index.prefix>-* (default: "
        "<index.prefix>-<tenant>; with index.tenant_indices on it must be <index.prefix>-<tenant> or "
        "<index.prefix>-<tenant>-<suffix>)",
    )
    ingest.add_argument("--tenant", default="default", help="tenant id stored on every chunk")
    ingest.add_argument(
        "--strategy",
        default="sentence",
        choices=list(STRATEGIES),
        help="chunking strategy (haystack-*: Haystack's DocumentSplitter per section; the haystack extra)",
    )
    ingest.add_argument(
        "--token-budget", type=int, default=254, help="max tokens per chunk (dense tokenizer)"
    )
    ingest.add_argument("--overlap-pct", type=float, default=20.0, help="sliding-window overlap in percent")
    ingest.add_argument("--batch-size", type=int, default=256, help="chunks per bulk batch")
    ingest.add_argument(
        "--encode",
        choices=["python", "pipeline"],
        default="python",
        help="python: encode here in batches (fast path); pipeline: the chunk-embed ingest "
        "pipeline encodes inside OpenSearch (needs `models register`)",
    )
    ingest.add_argument("--dead-letter", default=".local/dead-letter.jsonl", help="where rejected records go")
    ingest.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_nice_argument(ingest)
    ingest.set_defaults(handler=_ingest)

    reencode = commands.add_parser(
        "reencode",
        epilog=guide("ingestion/index-options.md"),
        help="re-encode an index's chunks with the configured models (resumable, idempotent)",
        description="Compute every chunk's dense and sparse vectors again from its stored text with the "
        "configured models (models.dense, models.sparse), write them in place and record the models on "
        "the index. Run it when `ingest` refuses an index whose chunks came from other models or from "
        "unrecorded ones (made before records were kept). An interrupted run resumes where it stopped; "
        "an index already recording the configured models is left as it is. A vector field of another "
        "dimension cannot be re-encoded in place: ingest into a new index instead.",
    )
    reencode.add_argument(
        "--index", help="the chunk index (default: <index.prefix>-<tenant>, confined as for `ingest`)"
    )
    reencode.add_argument("--tenant", default="default", help="the tenant whose index it is")
    reencode.add_argument("--batch-size", type=int, default=256, help="chunks per encode and bulk batch")
    reencode.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_nice_argument(reencode)
    reencode.set_defaults(handler=_reencode)

    seed = commands.add_parser(
        "encode-seed",
        epilog=guide("ingestion/encoding-cache.md"),
        help="encode sources here (no OpenSearch) and write an encoding seed that ingest reads",
        description="Parse and chunk the sources as `ingest` does (same strategy, token budget and "
        "overlap), encode every distinct chunk text with the configured dense and sparse models in this "
        "process (ONNX; no encoding cache, no seed, no node), and write the encodings to an encoding seed "
        "file keyed by each model's ONNX sha256 and model key and by each chunk text's sha256. An ingest "
        "whose models.encoding_seed names the file reads the encodings of the texts and models that match "
        "and encodes the rest. `make demo-seed` rewrites the demo corpus's (datasets/encodings/demo.npz).",
    )
    seed.add_argument("sources", nargs="+", help="dataset ids, files or folders, as for `ingest`")
    seed.add_argument("--out", required=True, help="the seed file to write (.npz; replaced atomically)")
    seed.add_argument(
        "--strategy", default="sentence", choices=list(STRATEGIES), help="chunking strategy, as for `ingest`"
    )
    seed.add_argument("--token-budget", type=int, default=254, help="max tokens per chunk, as for `ingest`")
    seed.add_argument("--overlap-pct", type=float, default=20.0, help="overlap in percent, as for `ingest`")
    seed.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_nice_argument(seed)
    seed.set_defaults(handler=_encode_seed)


def _ingest(settings: Settings, args: argparse.Namespace) -> int:
    from pathlib import Path

    from control_plane.cli.recording import recording
    from control_plane.config.tenancy import TenantIndexError
    from control_plane.events.ingest_stages import IngestStageEvents
    from control_plane.ingestion.bulk import DeadLetterFile
    from control_plane.ingestion.encode import ModelChunkEncoder, PipelineChunkEncoder
    from control_plane.ingestion.encoding_seed import EncodingTally
    from control_plane.ingestion.index_models import IndexModelsError, encoding_models
    from control_plane.ingestion.parsers import DATASET_FILES, dataset_files
    from control_plane.ingestion.run import IngestOptions, IngestSummary, ingest
    from control_plane.ingestion.setup import python_encoder
    from control_plane.ingestion.submission import IngestRefusedError, check_sources, check_target_index
    from control_plane.ledger.records import numeric_counts
    from control_plane.ledger.tracking import JobTracker, tracked
    from control_plane.resilience.policy import ModelCallError

    pipeline = "chunk-embed" if args.encode == "pipeline" else None
    try:  # before any client, model or write: an index that is not the tenant's is refused here, and
        options = IngestOptions.for_tenant(
            settings.index,
            args.tenant,
            args.index,
            strategy=args.strategy,
            token_budget=args.token_budget,
            overlap_pct=args.overlap_pct,
            batch_chunks=args.batch_size,
            pipeline=pipeline,
            progress=not args.no_progress,
            models=encoding_models(settings.models),
        )
        # an index no chunk template covers, a reserved or a system index; a source that is not there
        check_target_index(settings, options.index)
        check_sources(args.sources)
    except (TenantIndexError, IngestRefusedError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    for dataset in (source for source in args.sources if source in DATASET_FILES):
        dataset_files(dataset)  # its folder must exist before anything starts: else one line says where
    yield_cpu(args.nice)  # before the models' threads start: they inherit it
    client = make_client(settings.opensearch)
    tally = EncodingTally()
    python_side, counter = python_encoder(settings, tally=tally)
    if pipeline is None:
        encoder: ModelChunkEncoder | PipelineChunkEncoder = python_side
    else:
        if {"dense", "sparse"} - set(deployed_model_ids(client, settings)):
            print(
                "error: --encode pipeline needs deployed models: run `biohybrid models register`",
                file=sys.stderr,
            )
            return EXIT_CONFIG
        encoder = PipelineChunkEncoder()
    dead_letter = DeadLetterFile(Path(args.dead_letter))

    def work(tracker: JobTracker) -> IngestSummary:
        stages = IngestStageEvents(record.events, args.tenant, options.index, tracker.job_id)
        return ingest(client, args.sources, options, encoder, dead_letter, counter, stages)

    detail = {"index": options.index, "sources": ",".join(args.sources)}
    with recording(settings, client) as record:
        try:
            summary = tracked(
                record.ledger,
                "ingest",
                args.tenant,
                "cli",
                work,
                detail,
                lambda s: numeric_counts(s.to_dict()),
            )
        except ModelCallError as exc:  # what landed stays: a re-run skips it (resumable)
            print(f"error: ingest stopped: {exc}", file=sys.stderr)
            return EXIT_MODEL
        except IndexModelsError as exc:  # refused before anything was written
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_CONFIG
    print(
        f"{summary.documents} documents, {summary.chunks} chunks ({summary.written} written, "
        f"{summary.unchanged} unchanged, {summary.deleted} deleted), {summary.duplicates} duplicates "
        f"skipped, {summary.parse_errors} parse errors, {summary.index_failures} index failures, "
        f"{summary.chunks_per_s:.1f} chunks/s into {options.index}"
    )
    split = (
        f"parse+chunk {summary.parse_s:.1f}s, encode {summary.encode_s:.1f}s, hash look-ups "
        f"{summary.lookup_s:.1f}s, waiting for bulk {summary.write_wait_s:.1f}s "
        f"(bulk {summary.index_s:.1f}s, alongside)"
    )
    print(f"time: {split}")
    if pipeline is None and settings.ingest.encoder == "local":
        print(tally.describe())
    if summary.retried_records or summary.retried_batches:
        print(
            f"retried: {summary.retried_records} record(s) refused for a transient reason, "
            f"{summary.retried_batches} batch request(s) that failed as a whole (idempotent: same chunk ids)"
        )
    if dead_letter.count:
        print(f"{dead_letter.count} rejected record(s) written to {dead_letter.path}")
    return 0 if not (summary.parse_errors or summary.index_failures) else EXIT_DRIFT


def _reencode(settings: Settings, args: argparse.Namespace) -> int:
    from control_plane.cli.recording import recording
    from control_plane.config.tenancy import TenantIndexError
    from control_plane.ingestion.index_models import encoding_models, named_models
    from control_plane.ingestion.reencode import ReencodeError, ReencodeSummary, reencode
    from control_plane.ingestion.run import IngestOptions
    from control_plane.ingestion.setup import python_encoder
    from control_plane.ledger.tracking import JobTracker, tracked
    from control_plane.models.manifest import load_manifest
    from control_plane.resilience.policy import ModelCallError

    try:  # the same confinement as an ingest into the index
        index = IngestOptions.for_tenant(settings.index, args.tenant, args.index).index
    except TenantIndexError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    models = encoding_models(settings.models)
    yield_cpu(args.nice)  # before the models' threads start: they inherit it
    client = make_client(settings.opensearch)
    encoder, _ = python_encoder(settings)
    dimension = load_manifest().model(settings.models.dense).dimension

    def work(_: JobTracker) -> ReencodeSummary:
        return reencode(
            client,
            index,
            models,
            encoder,
            dense_dimension=dimension,
            batch_chunks=args.batch_size,
            progress=not args.no_progress,
        )

    named = named_models(models)
    with recording(settings, client) as record:
        try:
            summary = tracked(
                record.ledger,
                "reencode",
                args.tenant,
                "cli",
                work,
                {"index": index, **models},
                lambda s: {"chunks": s.chunks, "reencoded": s.reencoded},
            )
        except (ReencodeError, ModelCallError) as exc:  # what was written stays: a re-run resumes
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_MODEL if isinstance(exc, ModelCallError) else EXIT_CONFIG
    if summary.nothing_to_do:
        print(f"{index}: already encoded by {named}; nothing to do")
        return 0
    resumed = f", resumed after chunk {summary.resumed_after}" if summary.resumed_after else ""
    print(
        f"{index}: {summary.reencoded} of {summary.chunks} chunks re-encoded with {named}{resumed} "
        f"in {summary.seconds:.1f}s; the index records them"
    )
    return 0


def _encode_seed(settings: Settings, args: argparse.Namespace) -> int:
    from pathlib import Path

    from control_plane.ingestion.seed_build import build_seed
    from control_plane.ingestion.submission import IngestRefusedError, check_sources
    from control_plane.resilience.policy import ModelCallError

    try:
        check_sources(args.sources)
    except IngestRefusedError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    yield_cpu(args.nice)  # before the models' threads start: they inherit it
    try:
        built = build_seed(
            settings,
            args.sources,
            Path(args.out),
            strategy=args.strategy,
            token_budget=args.token_budget,
            overlap_pct=args.overlap_pct,
            progress=not args.no_progress,
        )
    except ModelCallError as exc:
        print(f"error: encode-seed stopped: {exc}", file=sys.stderr)
        return EXIT_MODEL
    print(
        f"{built.path}: {built.texts} chunk texts ({built.chunks} chunks of {built.documents} documents, "
        f"{built.parse_errors} parse errors) encoded in {built.seconds:.1f}s "
        f"({built.texts_per_s:.1f} texts/s), {built.bytes / 1e6:.2f} MB"
    )
    return 0 if not built.parse_errors else EXIT_DRIFT
