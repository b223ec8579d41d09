"""Build tooling for the ONNX model artifacts (export, parity, int8 variants, manifest digests).

Run ``python -m model_artifacts.build --help``. Needs the ``export`` extra (torch, transformers, onnx);
the runtime in ``control_plane.models`` needs none of it.
"""
