"""Issue 14 option (d): domain adaptation of the dense encoder (bge-small) on training pairs only.

``source`` fetches bge-small's fp32 graph (pinned), ``weights`` turns it back into Hugging Face BERT
weights, ``pairs`` builds (query, positive, hard negative) triples from the reranker's cached training data
(NFCorpus train, SciFact train less its held-out claims, MEDLINE title → abstract), ``train`` fine-tunes
with in-batch and hard negatives, and ``evaluate`` compares base and tuned by exact dense search on
nfcorpus/dev, the held-out SciFact claims and MEDLINE pairs no run trained on, and ``export`` writes a
run's weights back into the publisher's graph as the served ``bge-small-bio`` (int8, committed in pieces).
torch is the ``export`` extra: nothing here is imported at runtime.
"""
