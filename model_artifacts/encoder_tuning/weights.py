"""Hugging Face BERT weights out of an exported ONNX graph.

The export kept the Hugging Face names of the embeddings, LayerNorms and biases, but each Linear layer's
weight became an anonymous ``MatMul`` initializer, stored transposed ([in, out]). The graph itself names
it: the ``Add`` that takes the MatMul's output also takes the Linear's bias, ``<layer>.bias``, so the
weight is ``<layer>.weight``. Pure onnx + numpy; the parity test (tests/export) proves the mapping by
running both graphs.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]


class WeightMappingError(ValueError):
    """The graph does not have the shape this mapping expects; the message names the tensor."""


@dataclass(frozen=True)
class BertShape:
    """What a BertConfig needs that the weights say (heads do not show in shapes: given)."""

    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    intermediate_size: int
    max_position_embeddings: int
    type_vocab_size: int


def bert_state(model: Any) -> dict[str, Array]:
    """Every weight of the graph under its Hugging Face ``BertModel`` name (Linear weights [out, in])."""
    numpy_helper = importlib.import_module("onnx.numpy_helper")
    initializers = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    state = {name: value for name, value in initializers.items() if not name.startswith("onnx::")}
    consumers: dict[str, list[Any]] = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    for node in model.graph.node:
        if node.op_type != "MatMul":
            continue
        weights = [name for name in node.input if name in initializers and name.startswith("onnx::")]
        if not weights:
            continue
        bias = _bias_of(node.output[0], consumers, initializers)
        state[bias.removesuffix(".bias") + ".weight"] = np.ascontiguousarray(initializers[weights[0]].T)
    return state


def _bias_of(output: str, consumers: Mapping[str, list[Any]], initializers: Mapping[str, Array]) -> str:
    for node in consumers.get(output, []):
        if node.op_type == "Add":
            named = [n for n in node.input if n in initializers and n.endswith(".bias")]
            if named:
                return str(named[0])
    raise WeightMappingError(f"the MatMul giving {output!r} feeds no Add with a named bias")


def bert_shape(state: Mapping[str, Array]) -> BertShape:
    """The configuration the weights imply."""
    layers = {int(name.split(".")[2]) for name in state if name.startswith("encoder.layer.")}
    try:
        vocab, hidden = state["embeddings.word_embeddings.weight"].shape
        intermediate = state["encoder.layer.0.intermediate.dense.weight"].shape[0]
        positions = state["embeddings.position_embeddings.weight"].shape[0]
        types = state["embeddings.token_type_embeddings.weight"].shape[0]
    except KeyError as exc:
        raise WeightMappingError(f"no tensor {exc.args[0]!r} in the graph's weights") from None
    return BertShape(int(vocab), int(hidden), len(layers), int(intermediate), int(positions), int(types))
