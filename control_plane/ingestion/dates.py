"""Lenient date parsing for the many ways registries and journals write dates.

Partial dates are anchored to the first day of the period (``"August 2005"`` -> 2005-08-01) because the
index stores a single ``date``; callers that care about precision keep the raw string in metadata.
"""

from __future__ import annotations

import datetime as dt
import re

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_ISO = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")
_YEAR = re.compile(r"\b(1[6-9]\d{2}|2\d{3})\b")
_WORD = re.compile(r"[A-Za-z]+")
_DAY = re.compile(r"(?<![\d:])(\d{1,2})(?![\d:])")


def month_number(text: str | None) -> int | None:
    """``"Feb"``, ``"february"``, ``"02"`` or ``"Summer"`` -> a month number; anything else -> None."""
    if not text:
        return None
    text = text.strip().lower()
    if text.isdigit():
        number = int(text)
        return number if 1 <= number <= 12 else None
    return _MONTHS.get(text) or _MONTHS.get(text[:3]) or _SEASONS.get(text)


def date_from_parts(year: str | None, month: str | None = None, day: str | None = None) -> dt.date | None:
    """Build a date from separately tagged parts; a missing or invalid part falls back to the period start."""
    if not year or not year.strip().isdigit():
        return None
    month_value = month_number(month) or 1
    day_value = int(day) if day and day.strip().isdigit() else 1
    try:
        return dt.date(int(year), month_value, day_value)
    except ValueError:
        try:
            return dt.date(int(year), month_value, 1)
        except ValueError:
            return None


def parse_loose_date(text: str | None) -> dt.date | None:
    """Parse ``2014-08-05``, ``2020-04``, ``June 8, 2015``, ``Aug 2005``, ``1998 Dec-1999 Jan``, ``2001``."""
    if not text:
        return None
    text = text.strip()
    iso = _ISO.match(text)
    if iso:
        return date_from_parts(*iso.groups())
    year = _YEAR.search(text)
    if not year:
        return None
    month = next((word for word in _WORD.findall(text) if month_number(word)), None)
    day = _DAY.search(text.replace(year.group(1), " "))
    return date_from_parts(year.group(1), month, day.group(1) if day and month else None)
