"""A griffe extension for the API pages: our docstrings title their doctests ``Example:``.

Griffe's Google-style parser reads only ``Examples:`` as an examples section (``Example:``
becomes an admonition of plain text, whose ``[...]`` outputs look like Markdown links), so
each docstring's ``Example:`` title is read as ``Examples:``. Only the site sees this.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_TITLE = re.compile(r"^(\s*)Example:\s*$", re.M)


class ExampleSections(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _TITLE.sub(r"\1Examples:", obj.docstring.value)
