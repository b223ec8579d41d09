"""What every tuning run over the cached triples shares (bge-small's here, SPLADE-tiny's in
``model_artifacts.sparse_tuning``): the seeded plan of which triples fill each step, one padded batch in
the caller's order, the learning-rate schedule, and the run's record (``train.json``). torch is the
``export`` extra, imported lazily."""

from __future__ import annotations

import json
import math
import platform
import shlex
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from control_plane.models.tokenization import BatchTokenizer, pad_encodings
from model_artifacts.encoder_tuning.model import INPUTS
from model_artifacts.encoder_tuning.pairs import Triple, step_triples
from model_artifacts.reranker.config import config_by_name
from model_artifacts.reranker.data import TrainingData, ensure_data, load_data
from model_artifacts.reranker.model import torch_lib
from model_artifacts.reranker.pairs import schedule


class RunSettings(Protocol):
    """The settings every tuning run has (each run's ``TuneSettings`` adds its own)."""

    @property
    def data_config(self) -> str: ...
    @property
    def mix(self) -> tuple[tuple[str, float], ...]: ...
    @property
    def steps(self) -> int: ...
    @property
    def batch(self) -> int: ...
    @property
    def warmup_steps(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def threads(self) -> int: ...


@dataclass(frozen=True)
class TriplePlan:
    """The training data and which query fills each slot of each step (``reranker.pairs.schedule``)."""

    data: TrainingData
    names: tuple[str, ...]
    slots: npt.NDArray[np.int64]
    seed: int

    def triples(self, step: int) -> list[Triple]:
        return step_triples(self.data, self.names, self.slots[step], self.seed, step)


def seeded_plan(settings: RunSettings, data_root: Path) -> TriplePlan:
    """torch's threads and seed set, the cached data loaded (built if missing), the steps planned."""
    torch = torch_lib()
    torch.set_num_threads(settings.threads)
    torch.manual_seed(settings.seed)
    data = load_data(ensure_data(config_by_name(settings.data_config).data, data_root))
    sizes = {name: len(source_data.queries) for name, source_data in data.sources.items()}
    names, slots = schedule(sizes, dict(settings.mix), settings.steps, settings.batch, settings.seed)
    return TriplePlan(data, names, slots, settings.seed)


def ordered_feeds(tokenizer: BatchTokenizer, texts: Sequence[str]) -> dict[str, Any]:
    """One padded batch of ``texts`` in the caller's order (rows line up with the loss's targets)."""
    torch = torch_lib()
    run = pad_encodings(list(range(len(texts))), tokenizer.encode(texts), tokenizer.pad_id)
    return {k: torch.from_numpy(v) for k, v in run.feeds(INPUTS).items()}


def warmup_cosine(step: int, warmup_steps: int, steps: int) -> float:
    """The rate's factor at ``step``: linear warm-up to 1 over ``warmup_steps``, then a cosine to 0 at
    ``steps``."""
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    progress = (step - warmup_steps) / max(steps - warmup_steps, 1)
    return 0.5 * (1 + math.cos(math.pi * progress))


def warmup_cosine_scheduler(optimizer: Any, settings: RunSettings) -> Any:
    """A torch scheduler applying :func:`warmup_cosine` to ``optimizer``'s rate, stepped once a step."""
    return torch_lib().optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: warmup_cosine(step, settings.warmup_steps, settings.steps)
    )


def write_run_record(out: Path, prog: str, settings: Any, data: TrainingData, **extra: str) -> None:
    """``out/train.json``: the settings (a dataclass), the command, ``extra``, the data's folder and
    digests, and the machine."""
    record = {
        "settings": asdict(settings),
        "command": " ".join([prog, shlex.join(sys.argv[1:])]),
        **extra,
        "data": str(data.folder),
        "data_sources": {s: e["files"] for s, e in data.manifest["sources"].items()},
        "machine": f"{platform.machine()} {platform.processor()}, torch {torch_lib().__version__}",
    }
    (out / "train.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
