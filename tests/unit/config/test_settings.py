from pathlib import Path

import pytest

from control_plane.config.opensearch_settings import OpenSearchSettings
from control_plane.config.settings import DEFAULTS_FILE, LOCAL_FILE, ConfigError, load_settings


def test_packaged_defaults_are_the_production_form() -> None:
    settings = load_settings(environ={})
    assert settings.index.knn.engine == "faiss"
    assert settings.index.bm25.k1 == 1.2
    assert settings.index.bm25.b == 0.75
    assert settings.fusion.weights.in_order() == [0.20, 0.20, 0.60]
    assert settings.fusion.rrf.rank_constant == 60


def test_local_profile_switches_knn_engine_to_lucene() -> None:
    settings = load_settings(LOCAL_FILE, environ={})
    assert settings.index.knn.engine == "lucene"
    assert settings.opensearch.cluster_name == "biohybrid-local"


def test_environment_overrides_win_and_are_typed() -> None:
    settings = load_settings(environ={"BIOHYBRID__INDEX__BM25__K1": "0.9", "BIOHYBRID__INDEX__SHARDS": "2"})
    assert settings.index.bm25.k1 == 0.9
    assert settings.index.shards == 2


def test_config_file_from_environment_variable(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("index:\n  knn:\n    dimension: 768\n")
    assert load_settings(environ={"BIOHYBRID_CONFIG": str(path)}).index.knn.dimension == 768


@pytest.mark.parametrize(
    ("env", "key"),
    [
        ({"BIOHYBRID__INDEX__KNN__ENGINE": "nmslib"}, "index.knn.engine"),
        ({"BIOHYBRID__INDEX__BM25__B": "1.5"}, "index.bm25.b"),
        ({"BIOHYBRID__INDEX__SHARDS": "zero"}, "index.shards"),
        ({"BIOHYBRID__FUSION__TYPO": "1"}, "fusion.typo"),
    ],
)
def test_bad_value_names_the_key(env: dict[str, str], key: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_settings(environ=env)


def test_weights_that_do_not_sum_to_one_are_refused_with_the_sum() -> None:
    with pytest.raises(ConfigError, match=r"fusion\.weights.*sum to 1.*1\.3000"):
        load_settings(environ={"BIOHYBRID__FUSION__WEIGHTS__BM25": "0.5"})


def test_weights_within_tolerance_are_accepted() -> None:
    settings = load_settings(environ={"BIOHYBRID__FUSION__WEIGHTS__BM25": "0.205"})
    assert settings.fusion.weights.bm25 == 0.205


def test_missing_or_malformed_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "absent.yaml", environ={})
    bad = tmp_path / "bad.yaml"
    bad.write_text("index: [unclosed\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml"):
        load_settings(bad, environ={})


def test_a_client_is_given_every_listed_node_else_the_single_url() -> None:
    single = OpenSearchSettings(url="http://a:9200")
    cluster = OpenSearchSettings(url="http://a:9200", urls=["http://a:9211", "http://b:9212"])
    assert single.hosts == ["http://a:9200"]
    assert cluster.hosts == ["http://a:9211", "http://b:9212"]
    cluster_file = load_settings(
        Path(__file__).parents[3] / "control_plane/config/local-cluster.yaml", environ={}
    )
    assert len(cluster_file.opensearch.hosts) == 3
    assert (cluster_file.index.shards, cluster_file.index.replicas) == (3, 1)


def test_an_unknown_key_is_named_with_where_it_came_from_and_the_fix(tmp_path: Path) -> None:
    config = tmp_path / "mine.yaml"
    config.write_text("search:\n  no_such_key: 1\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_settings(config, environ={})
    assert str(raised.value) == (
        f"invalid configuration in {config} or the BIOHYBRID__* variables: search.no_such_key: not a known "
        f"key (remove it or check its spelling) (every setting, with its default: {DEFAULTS_FILE})"
    )
    with pytest.raises(
        ConfigError, match=r"^invalid configuration in the BIOHYBRID__\* variables: search\.sizee"
    ):
        load_settings(environ={"BIOHYBRID__SEARCH__SIZEE": "3"})
