import io
import json
import math
import zipfile
from collections import Counter

from tokenizers import Tokenizer

from control_plane.ingestion.tokens import minilm_tokenizer_path
from control_plane.mlcommons.doc_only import document_frequencies, idf_table, tokenizer_bundle


def test_idf_table_covers_the_vocabulary_without_special_tokens() -> None:
    table = idf_table(Counter({"as": 2}), 4, ["as", "##pi", "[CLS]", "[SEP]"])
    assert set(table) == {"as", "##pi"}
    assert table["as"] == round(math.log(1 + 2.5 / 2.5), 6)
    assert table["##pi"] == round(math.log(1 + 4.5 / 0.5), 6)


def test_document_frequencies_count_each_token_once_per_text() -> None:
    tokenizer = Tokenizer.from_file(str(minilm_tokenizer_path()))
    frequencies, n = document_frequencies(["bleeding bleeding risk", "bleeding"], tokenizer)
    assert n == 2
    assert frequencies["bleeding"] == 2 and frequencies["risk"] == 1


def test_bundle_is_deterministic_and_holds_both_files() -> None:
    first = tokenizer_bundle(b'{"t": 1}', {"b": 2.0, "a": 1.0})
    assert first == tokenizer_bundle(b'{"t": 1}', {"a": 1.0, "b": 2.0})
    with zipfile.ZipFile(io.BytesIO(first)) as bundle:
        assert sorted(bundle.namelist()) == ["idf.json", "tokenizer.json"]
        assert json.loads(bundle.read("idf.json")) == {"a": 1.0, "b": 2.0}
