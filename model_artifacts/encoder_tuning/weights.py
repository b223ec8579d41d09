"""Hugging Face BERT weights out of an exported ONNX graph.

The export kept the Hugging Face names of the embeddings, LayerNorms and biases, but each Linear layer's
weight became an anonymous ``MatMul`` initializer, stored transposed ([in, out]). The graph itself names
it: the ``Add`` that takes the MatMul's output also takes the Linear's bias, ``<layer>.bias``, so the
weight is ``<layer>.weight``. Pure onnx + numpy; the parity test (tests/export) proves the mapping by
running both graphs.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection, Mapping
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
    arrays = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    return {
        name: arrays[onnx_name] if name == onnx_name else np.ascontiguousarray(arrays[onnx_name].T)
        for name, onnx_name in _onnx_names(model).items()
    }


def _bias_of(output: str, consumers: Mapping[str, list[Any]], initializers: Collection[str]) -> str:
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


def with_bert_state(model: Any, state: Mapping[str, Array]) -> Any:
    """``model`` (the graph :func:`bert_state` read) with every weight replaced by ``state``'s.

    The inverse of :func:`bert_state`: the fine-tuned weights go back into the publisher's graph, so the
    served file keeps its structure (and its speed once quantised). Every graph weight must be replaced,
    with its shape; a missing or extra tensor is an error, not a silently half-tuned model.
    """
    numpy_helper = importlib.import_module("onnx.numpy_helper")
    onnx_names = _onnx_names(model)
    unknown = sorted(set(state) - set(onnx_names) - {"embeddings.position_ids"})
    missing = sorted(set(onnx_names) - set(state))
    if unknown or missing:
        raise WeightMappingError(f"weights do not fit the graph: missing {missing}, unexpected {unknown}")
    initializers = {i.name: i for i in model.graph.initializer}
    for name, onnx_name in onnx_names.items():
        old = initializers[onnx_name]
        value = np.asarray(state[name], dtype=np.float32)
        if onnx_name != name:  # a MatMul weight: stored [in, out]
            value = value.T
        if tuple(value.shape) != tuple(old.dims):
            raise WeightMappingError(f"{name}: shape {value.shape}, the graph has {tuple(old.dims)}")
        old.CopyFrom(numpy_helper.from_array(np.ascontiguousarray(value), onnx_name))
    return model


def _onnx_names(model: Any) -> dict[str, str]:
    """Hugging Face name → the graph's initializer name, for every weight :func:`bert_state` reads."""
    initializers = {i.name for i in model.graph.initializer}
    names = {name: name for name in initializers if not name.startswith("onnx::")}
    consumers: dict[str, list[Any]] = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    for node in model.graph.node:
        if node.op_type != "MatMul":
            continue
        weights = [name for name in node.input if name in initializers and name.startswith("onnx::")]
        if weights:
            bias = _bias_of(node.output[0], consumers, initializers)
            names[bias.removesuffix(".bias") + ".weight"] = weights[0]
    return names
