from typing import Literal

import pytest
from pydantic import BaseModel, Field

from control_plane.docsite.settings_page import UndescribedSettingError, settings_markdown, type_label


class Weights(BaseModel):
    """Fusion weights."""

    a: float = Field(0.5, ge=0, le=1, description="first")
    b: float = Field(0.5, ge=0, le=1, description="second")


class Key(BaseModel):
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="the hash")
    role: Literal["search", "admin"] = Field("search", description="what it may do")


class Inner(BaseModel):
    """The inner section."""

    engine: Literal["x", "y"] = Field("x", description="which <engine>")
    weights: Weights = Weights()
    by_type: Weights | None = Field(None, description="per type")


class Top(BaseModel):
    inner: Inner = Inner()
    keys: tuple[Key, ...] = Field((), description="the keys")
    named: dict[str, Weights] = Field(default_factory=dict, description="named weights")
    depth: int = Field(100, gt=0, le=1000, description="how deep")
    tags: list[str] = Field(default_factory=lambda: ["a" * 60, "b" * 60], description="long default")


def test_one_table_per_section_depth_first_with_item_models() -> None:
    page = settings_markdown(Top(), "defaults.yaml")
    headings = [line for line in page.splitlines() if line.startswith("#")]
    assert headings == ["## the top level", "## inner", "### inner.weights", "## keys[]", "## named.NAME"]


def test_rows_carry_key_type_with_bounds_default_and_description() -> None:
    page = settings_markdown(Top(), "defaults.yaml")
    assert "| `depth` | integer, &gt; 0, ≤ 1000 | `100` | how deep |" in page
    assert '| `inner.engine` | `"x"` or `"y"` | `"x"` | which &lt;engine&gt; |' in page
    assert "| `inner.by_type` | {a, b} or null | `null` | per type |" in page
    assert "| `keys[].sha256` | string, pattern `^[0-9a-f]{64}$` | required | the hash |" in page
    assert "| `named` | map of string to {a, b} | `{}` | named weights |" in page
    assert "| `tags` | list of string | see `defaults.yaml` | long default |" in page
    assert "## inner\n\nThe inner section.\n\n| setting |" in page


def test_defaults_come_from_the_instance_given() -> None:
    page = settings_markdown(Top(depth=7, inner=Inner(engine="y")), "d.yaml")
    assert "| `depth` | integer, &gt; 0, ≤ 1000 | `7` |" in page
    assert '| `inner.engine` | `"x"` or `"y"` | `"y"` |' in page


def test_a_setting_without_a_description_fails_the_page() -> None:
    class Bare(BaseModel):
        inner: Inner = Inner()
        port: int = 8600

    with pytest.raises(UndescribedSettingError, match="settings without a description: port"):
        settings_markdown(Bare(), "d.yaml")


def test_type_label_of_scalars_and_collections() -> None:
    assert type_label(bool) == "boolean"
    assert type_label(str | None) == "string or null"
    assert type_label(tuple[Literal["dense", "sparse"], ...]) == 'list of `"dense"` or `"sparse"`'
    assert type_label(dict[str, int]) == "map of string to integer"
