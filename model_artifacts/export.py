"""Export a model to ONNX with torch, with pooling inside the graph, and compute the PyTorch reference.

torch and transformers are imported lazily (typed as Any): they are the ``export`` extra, absent from a
runtime install, and ``--help`` should not pay for them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from control_plane.models.manifest import ModelSpec
from control_plane.models.tokenization import Run

OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def _torch() -> Any:
    try:
        return importlib.import_module("torch")
    except ImportError:
        raise SystemExit("torch is not installed: pip install -e '.[export]' (torch==2.13.0)") from None


def _transformers() -> Any:
    return importlib.import_module("transformers")


@dataclass(frozen=True)
class TorchModel:
    """The PyTorch module whose output the ONNX graph reproduces, and the inputs it takes."""

    module: Any
    input_names: tuple[str, ...]
    output_name: str


def load_torch_model(spec: ModelSpec, folder: Path) -> TorchModel:
    """The HF model wrapped so its forward returns what the service serves (pooled embedding or SPLADE)."""
    torch, transformers = _torch(), _transformers()
    if spec.role == "sparse":
        base = transformers.AutoModelForMaskedLM.from_pretrained(str(folder), attn_implementation="eager")
        module = _splade_module(torch, base)
        output = "sparse_weights"
    else:
        base = transformers.AutoModel.from_pretrained(str(folder), attn_implementation="eager")
        module = _mean_pool_module(torch, base, spec.normalize)
        output = "sentence_embedding"
    names = INPUTS if base.config.model_type == "bert" else INPUTS[:2]
    # eval() on the wrapper matters: torch.onnx.export restores the wrapper's mode recursively afterwards,
    # and a freshly built wrapper is in training mode (dropout on).
    return TorchModel(module=module.eval(), input_names=names, output_name=output)


def _mean_pool_module(torch: Any, base: Any, normalize: bool) -> Any:
    class MeanPooled(torch.nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.base = base

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any = None) -> Any:
            kwargs = {"input_ids": input_ids, "attention_mask": attention_mask}
            if token_type_ids is not None:
                kwargs["token_type_ids"] = token_type_ids
            hidden = self.base(**kwargs).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1) if normalize else pooled

    return MeanPooled()


def _splade_module(torch: Any, base: Any) -> Any:
    class Splade(torch.nn.Module):  # type: ignore[misc]
        """max_t log(1 + relu(logit_t)) over unmasked tokens, computed as log(1 + relu(max_t logit_t)).

        log1p∘relu is monotone, so the max can be taken first: the same value (checked against the literal
        formula at export) with the activation applied to [batch, vocab] instead of [batch, length, vocab].
        """

        def __init__(self) -> None:
            super().__init__()
            self.base = base

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            logits = self.base(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).logits
            padding = attention_mask.unsqueeze(-1) == 0
            masked = logits.masked_fill(padding, torch.finfo(logits.dtype).min)
            return torch.log1p(torch.relu(masked.max(dim=1).values))

    return Splade()


def export_onnx(model: TorchModel, path: Path) -> None:
    """Legacy (TorchScript) exporter, opset 17, dynamic batch and sequence axes, constant folding on."""
    torch = _torch()
    sample = torch.ones((2, 8), dtype=torch.long)
    args = tuple(
        sample if name != "token_type_ids" else torch.zeros_like(sample) for name in model.input_names
    )
    axes = {name: {0: "batch", 1: "sequence"} for name in model.input_names}
    axes[model.output_name] = {0: "batch"}
    path.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(
            model.module,
            args,
            str(path),
            dynamo=False,
            input_names=list(model.input_names),
            output_names=[model.output_name],
            dynamic_axes=axes,
            opset_version=OPSET,
            do_constant_folding=True,
        )


def torch_reference(spec: ModelSpec, folder: Path, runs: list[Run], rows: int) -> npt.NDArray[np.float32]:
    """The PyTorch outputs for ``runs``, computed with the textbook formula, not the exported wrapper.

    Dense: the base model's last hidden state, mean-pooled over the mask, L2-normalised.
    Sparse: max over tokens of log(1 + relu(logits)) × mask, as SPLADE defines it.
    """
    torch, transformers = _torch(), _transformers()
    sparse = spec.role == "sparse"
    loader = transformers.AutoModelForMaskedLM if sparse else transformers.AutoModel
    base = loader.from_pretrained(str(folder)).eval()
    names = INPUTS if base.config.model_type == "bert" else INPUTS[:2]
    out: npt.NDArray[np.float32] | None = None
    with torch.no_grad():
        for run in runs:
            feeds = {k: torch.from_numpy(v) for k, v in run.feeds(names).items()}
            mask = feeds["attention_mask"].unsqueeze(-1).float()
            if sparse:
                value = (torch.log1p(torch.relu(base(**feeds).logits)) * mask).max(dim=1).values
            else:
                hidden = base(**feeds).last_hidden_state
                value = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                if spec.normalize:
                    value = torch.nn.functional.normalize(value, p=2, dim=1)
            block = value.numpy().astype(np.float32)
            if out is None:
                out = np.zeros((rows, block.shape[1]), dtype=np.float32)
            out[run.indices] = block
    assert out is not None
    return out


def sentence_transformers_reference(folder: Path, texts: list[str]) -> npt.NDArray[np.float32] | None:
    """sentence-transformers' own embeddings when it is installed: an independent second check."""
    try:
        st = importlib.import_module("sentence_transformers")
    except ImportError:
        return None
    model = st.SentenceTransformer(str(folder), device="cpu")
    return np.asarray(model.encode(texts, normalize_embeddings=True, batch_size=len(texts)), dtype=np.float32)
