"""The configuration reference, rendered from the pydantic settings models: every setting's dotted key, type
(with its bounds), default and description, one table per section. The defaults shown are those of the
instance given (the packaged defaults file layered over the models), so the page says what a node really
gets. A field without a description is an error: a new setting cannot ship undocumented."""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from control_plane.docsite.cells import cell, code, json_value
from control_plane.errors import BiohybridError
from control_plane.reports.markdown import markdown_table

LONG_DEFAULT = 100


class UndescribedSettingError(BiohybridError, ValueError):
    """Settings fields without a description (the message lists their dotted keys)."""


@dataclass(frozen=True)
class Section:
    """One model's fields under a dotted prefix; ``instance`` None for the items of a list or map."""

    key: str
    model: type[BaseModel]
    instance: BaseModel | None
    depth: int = 1


def settings_markdown(settings: BaseModel, default_source: str) -> str:
    """One table per section of ``settings``; ``default_source`` names the file a long default is read in."""
    sections = list(_sections(Section("", type(settings), settings, depth=0)))
    missing = [
        _join(section.key, name)
        for section in sections
        for name, field in _leaf_fields(section.model)
        if not (field.description or "").strip()
    ]
    if missing:
        raise UndescribedSettingError(f"settings without a description: {', '.join(missing)}")
    lines: list[str] = []
    for section in sections:
        rows = [_row(section, name, field, default_source) for name, field in _leaf_fields(section.model)]
        if not rows:
            continue
        heading = "#" * min(max(2, 1 + section.depth), 4)
        lines += [f"{heading} {section.key or 'the top level'}", ""]
        doc = vars(section.model).get("__doc__")  # its own, not BaseModel's
        if doc:
            lines += [" ".join(inspect.cleandoc(doc).split()), ""]
        lines += [*markdown_table(["setting", "type", "default", "description"], rows), ""]
    return "\n".join(lines).rstrip() + "\n"


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _sections(section: Section) -> Iterator[Section]:
    """The section, then its nested sections depth first: a model field is a section of its own, and
    the item model of a list or map of models is one under ``key[]`` or ``key.NAME``."""
    yield section
    for name, field in section.model.model_fields.items():
        key = _join(section.key, name)
        annotation = field.annotation
        if _is_model(annotation):
            value = getattr(section.instance, name) if section.instance is not None else None
            instance = value if isinstance(value, BaseModel) else None
            yield from _sections(Section(key, annotation, instance, section.depth + 1))
            continue
        item = _item_model(annotation)
        if item is not None:
            suffix = "[]" if get_origin(annotation) in (list, tuple) else ".NAME"
            yield from _sections(Section(key + suffix, item, None, section.depth + 1))


def _leaf_fields(model: type[BaseModel]) -> Iterator[tuple[str, FieldInfo]]:
    for name, field in model.model_fields.items():
        if not _is_model(field.annotation):
            yield name, field


def _row(section: Section, name: str, field: FieldInfo, default_source: str) -> list[str]:
    return [
        code(_join(section.key, name)),
        cell(type_label(field.annotation, field.metadata)),
        cell(_default(section, name, field, default_source)),
        cell(field.description or ""),
    ]


def _default(section: Section, name: str, field: FieldInfo, default_source: str) -> str:
    if section.instance is not None:
        value: Any = getattr(section.instance, name)
    elif field.default is not PydanticUndefined:
        value = field.default
    elif field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
    else:
        return "required"
    text = json_value(_plain(value))
    return f"see {code(default_source)}" if len(text) > LONG_DEFAULT else code(text)


def _plain(value: Any) -> Any:
    """A default as a settings file would spell it (models as mappings, tuples as lists)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _is_model(annotation: Any) -> TypeGuard[type[BaseModel]]:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _item_model(annotation: Any) -> type[BaseModel] | None:
    """The model of a list, tuple or map of models (``api.keys``), else None."""
    args = [arg for arg in get_args(annotation) if arg is not Ellipsis]
    if get_origin(annotation) in (list, tuple, dict) and args and _is_model(args[-1]):
        model: type[BaseModel] = args[-1]
        return model
    return None


def type_label(annotation: Any, metadata: list[Any] | None = None) -> str:
    """A field's type in words, with its bounds: ``integer > 0``, ``"faiss" or "lucene"``,
    ``list of string``, ``{bm25, splade, dense} or null``."""
    text = _type_words(annotation)
    bounds = _bounds(metadata or [])
    return f"{text}, {bounds}" if bounds else text


_SCALARS = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}


def _type_words(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return " or ".join(code(json_value(arg)) for arg in args)
    if origin in (Union, types.UnionType):
        return " or ".join(_type_words(arg) for arg in args)
    if origin in (list, tuple):
        items = [arg for arg in args if arg is not Ellipsis]
        return f"list of {_type_words(items[0])}" if items else "list"
    if origin is dict:
        return f"map of {_type_words(args[0])} to {_type_words(args[1])}" if args else "map"
    if _is_model(annotation):
        return "{" + ", ".join(annotation.model_fields) + "}"
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    return str(getattr(annotation, "__name__", annotation))


def _bounds(metadata: list[Any]) -> str:
    words = []
    for item in metadata:
        if isinstance(item, annotated_types.Gt):
            words.append(f"> {item.gt}")
        elif isinstance(item, annotated_types.Ge):
            words.append(f"≥ {item.ge}")
        elif isinstance(item, annotated_types.Lt):
            words.append(f"< {item.lt}")
        elif isinstance(item, annotated_types.Le):
            words.append(f"≤ {item.le}")
        elif isinstance(item, annotated_types.MinLen):
            words.append(f"at least {item.min_length} items")
        elif isinstance(item, annotated_types.MaxLen):
            words.append(f"at most {item.max_length} items")
        elif getattr(item, "pattern", None):
            words.append(f"pattern {code(str(item.pattern))}")
    return ", ".join(words)
