"""int8 variants of an fp32 ONNX graph, and the de-duplication of tied weights.

* ``int8``: onnxruntime dynamic quantisation (int8 weights, activations quantised per call, per-channel).
  Fastest on CPU, but it moves MiniLM vectors noticeably (see the parity report).
* ``int8w``: weight-only int8. Large MatMul/Gather weights are stored as int8 with a per-channel scale and
  a DequantizeLinear node that onnxruntime folds into fp32 at load: the file is as small as ``int8`` while
  the arithmetic stays fp32, so the vectors stay much closer to fp32.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic  # type: ignore[import-untyped]

_MIN_ELEMENTS = 4096  # smaller tensors (biases, LayerNorm) stay fp32


def dynamic_int8(source: Path, target: Path) -> None:
    quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8, per_channel=True)


def weight_only_int8(source: Path, target: Path) -> None:
    model = onnx.load(str(source))
    graph = model.graph
    initializers = {init.name: init for init in graph.initializer}
    axes: dict[str, int] = {}
    for node in graph.node:
        if node.op_type == "MatMul" and node.input[1] in initializers:
            axes[node.input[1]] = 1  # [in, out]: one scale per output column
        elif node.op_type == "Gather" and node.input[0] in initializers:
            axes[node.input[0]] = 0  # embedding table: one scale per row
    dequantize = []
    for name, axis in axes.items():
        weights = numpy_helper.to_array(initializers[name]).astype(np.float32)
        if weights.ndim != 2 or weights.size < _MIN_ELEMENTS:
            continue
        scale = np.abs(weights).max(axis=1 - axis) / 127.0
        scale[scale == 0] = 1.0
        shaped = scale.reshape((1, -1) if axis == 1 else (-1, 1))
        quantized = np.clip(np.rint(weights / shaped), -127, 127).astype(np.int8)
        graph.initializer.remove(initializers[name])
        graph.initializer.extend(
            [
                numpy_helper.from_array(quantized, f"{name}_int8"),
                numpy_helper.from_array(scale.astype(np.float32), f"{name}_scale"),
                numpy_helper.from_array(np.zeros(scale.shape, dtype=np.int8), f"{name}_zero"),
            ]
        )
        dequantize.append(
            helper.make_node(
                "DequantizeLinear", [f"{name}_int8", f"{name}_scale", f"{name}_zero"], [name], axis=axis
            )
        )
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(dequantize + nodes)
    onnx.checker.check_model(model)
    onnx.save(model, str(target))


def share_transposed_duplicates(source: Path, target: Path) -> int:
    """Replace an initializer that is the transpose of another by a Transpose node; return bytes saved.

    Constant folding turns a tied output projection (SPLADE's MLM decoder = word embeddingsᵀ) into a
    second 15 MB copy; sharing it keeps the fp32 file small enough to commit.
    """
    model = onnx.load(str(source))
    graph = model.graph
    big = [i for i in graph.initializer if len(i.dims) == 2 and i.dims[0] * i.dims[1] >= _MIN_ELEMENTS]
    arrays = {i.name: numpy_helper.to_array(i) for i in big}
    saved = 0
    replaced: set[str] = set()
    for dup in big:
        for orig in big:
            if dup.name == orig.name or orig.name in replaced or dup.name in replaced:
                continue
            if list(dup.dims) == list(reversed(orig.dims)) and np.array_equal(
                arrays[dup.name], arrays[orig.name].T
            ):
                graph.initializer.remove(dup)
                graph.node.insert(0, helper.make_node("Transpose", [orig.name], [dup.name], perm=[1, 0]))
                saved += arrays[dup.name].nbytes
                replaced.add(dup.name)
    onnx.checker.check_model(model)
    onnx.save(model, str(target))
    return saved
