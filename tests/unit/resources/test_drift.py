from control_plane.resources.drift import diff, normalise


def test_settings_echoed_as_strings_without_index_prefix_are_not_drift() -> None:
    ours = {
        "template": {
            "settings": {"index": {"knn": True, "number_of_shards": 1, "similarity": {"s": {"k1": 1.2}}}}
        }
    }
    theirs = {
        "template": {
            "settings": {
                "index": {"similarity": {"s": {"k1": "1.2"}}, "number_of_shards": "1", "knn": "true"}
            }
        }
    }
    assert diff(ours, theirs) == []


def test_top_level_settings_without_index_key_normalise_alike() -> None:
    assert normalise({"settings": {"number_of_shards": 1}}) == normalise(
        {"settings": {"index": {"number_of_shards": "1"}}}
    )


def test_changed_weight_is_reported_with_its_path() -> None:
    ours = {"p": [{"n": {"weights": [0.3, 0.35, 0.35]}}]}
    theirs = {"p": [{"n": {"weights": [0.5, 0.25, 0.25]}}]}
    [difference] = diff(ours, theirs)
    assert difference.path == "p"
    assert "0.35" in difference.expected and "0.25" in difference.actual


def test_extra_and_missing_keys_are_drift() -> None:
    differences = diff({"a": 1, "b": 2}, {"a": 1, "c": 3})
    assert [(d.path, d.expected, d.actual) for d in differences] == [
        ("b", "2", "<absent>"),
        ("c", "<absent>", "3"),
    ]


def test_absent_resource_is_one_difference() -> None:
    [difference] = diff({"a": 1}, None)
    assert difference.actual == "missing"


def test_mapping_key_order_is_irrelevant_but_values_are_not() -> None:
    assert (
        diff(
            {"m": {"x": {"type": "keyword"}, "y": {"type": "text"}}},
            {"m": {"y": {"type": "text"}, "x": {"type": "keyword"}}},
        )
        == []
    )
    assert diff({"m": {"engine": "faiss"}}, {"m": {"engine": "lucene"}})[0].path == "m.engine"
