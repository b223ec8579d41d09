"""A SEISMIC index holds SPLADE terms keyed by token id: the Python encoding path writes them so."""

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from control_plane.ingestion.chunking import Chunk
from control_plane.ingestion.encode import ModelChunkEncoder


class _Dense:
    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.ones((len(texts), 2), dtype=np.float32)


class _Sparse:
    def encode(self, texts: Sequence[str]) -> list[dict[str, float]]:
        return [{"statin": 1.5, "##s": 0.25} for _ in texts]


class _Chunk:
    text = "statins"

    def to_dict(self) -> dict[str, Any]:
        return {"chunk_id": "d1:chunk:0", "text": self.text}


def _chunk() -> Chunk:
    return cast(Chunk, _Chunk())


def test_word_pieces_by_default_and_token_ids_for_seismic() -> None:
    plain = ModelChunkEncoder(_Dense(), _Sparse())([_chunk()])
    assert plain[0]["sparse_terms"] == {"statin": 1.5, "##s": 0.25}
    seismic = ModelChunkEncoder(_Dense(), _Sparse(), sparse_token_ids={"statin": 2424, "##s": 2015})(
        [_chunk()]
    )
    assert seismic[0]["sparse_terms"] == {"2424": 1.5, "2015": 0.25}
