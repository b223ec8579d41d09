"""Settings ``api``: the control API's server, its keys (stored as SHA-256) and what each key may ask
of it at once."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from control_plane.config.strict import StrictSettings


class KeyLimits(StrictSettings):
    """What one API key may ask of the control API at once, so no caller can take what the others need:
    beyond it a request gets 429 with Retry-After."""

    requests_per_s: float = Field(50.0, gt=0, description="sustained requests per second")
    burst: int = Field(100, ge=1, description="requests allowed at once above the sustained rate")
    concurrent: int = Field(
        4, ge=1, description="requests in progress at once (keep it below api.threads, so other keys get one)"
    )
    question_chars_free: int = Field(
        200,
        ge=0,
        description="characters of a question that cost nothing beyond its request: an ordinary question "
        "(the test sets' longest is 77 tokens) never touches the characters bucket",
    )
    question_chars_per_s: float = Field(
        500.0,
        gt=0,
        description="characters past question_chars_free per second, sustained: a question costs the "
        "encoders, BM25 and highlighting by its length (2,000 characters take about 3x an ordinary "
        "question's time), so a key sending long ones is slowed before it takes the cores every key shares",
    )
    question_chars_burst: int = Field(
        2000,
        ge=1,
        description="characters past question_chars_free allowed at once above the sustained rate (a "
        "question costing more waits for a full bucket)",
    )


class BusyShare(StrictSettings):
    """How keys share the machine while more than one is busy: the requests in progress across the busy
    keys are split evenly between them, so a key that floods the API slows itself, not the others (a key
    alone keeps its own ``concurrent``)."""

    requests: int | None = Field(
        2,
        ge=1,
        description="requests in progress across the busy keys, split evenly (each key keeps at least "
        "one): about the cores the search stack runs on (2 on the project's machines); null: each key "
        "keeps its own concurrent limit whatever the others do",
    )
    window_s: float = Field(
        1.0,
        ge=0,
        description="a key counts as busy while a request of its is in progress and this long after its "
        "last one ended, so a caller asking one question after another stays busy between them",
    )


class ApiKey(StrictSettings):
    """An API key, stored as its SHA-256 (the key itself never sits in configuration or logs)."""

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="the key's SHA-256, hex")
    tenant: str = Field(
        pattern=r"^[A-Za-z0-9_\-]+$", description="the tenant every request with this key is confined to"
    )
    role: Literal["search", "admin"] = Field(
        "search", description="search, or admin for /v1/admin/* and /v1/evaluate"
    )
    name: str = Field("", description="a label for logs (never the key)")
    limits: KeyLimits | None = Field(None, description="this key's limits (default: api.key_limits)")


class ApiSettings(StrictSettings):
    """The control API (python -m control_plane.api, `biohybrid api start`)."""

    host: str = Field("127.0.0.1", description="bind address")
    port: int = Field(8600, ge=1, le=65535, description="port")
    threads: int = Field(
        8,
        ge=1,
        le=256,
        description="request threads of the production server (waitress): each mostly waits on encoders "
        "and OpenSearch",
    )
    keys: tuple[ApiKey, ...] = Field(
        (), description="the API keys, as SHA-256 hashes (none: every request gets 401)"
    )
    key_limits: KeyLimits = Field(
        default_factory=KeyLimits,
        description="each key's request rate and concurrency, unless it sets its own",
    )
    busy_share: BusyShare = Field(
        default_factory=BusyShare,
        description="how keys share the requests in progress while more than one is busy",
    )
    job_grace_s: float = Field(
        10.0,
        ge=0,
        description="on SIGTERM, how long running jobs may take to end before they are recorded as "
        "interrupted; keep it below the service manager's stop timeout (systemd: 90 s) less events.drain_s",
    )
