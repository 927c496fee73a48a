"""A griffe extension for the API reference: Sphinx roles in docstrings become code spans.

The docstrings are numpydoc, written for Sphinx: they cross-reference with roles such as
``:func:`~privaudit.audit``` or ``:mod:`privaudit.auditing.distinguish.pair```.  mkdocstrings
renders docstrings as Markdown, where a role would show as the literal text ``:func:``
before a code span.  This extension rewrites every role to the code span a Sphinx build
would show: the target, or its last component after ``~``, or the explicit title of
``:role:`title <target>```.  The docstrings in the code stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

#: ``:role:`target``` with an optional domain (``:py:func:``) and ``~`` shortening.
ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`(~?)([^`<]+?)(?:\s*<([^`>]+)>)?`")


def rewrite(text: str) -> str:
    """``text`` with every Sphinx role replaced by the code span Sphinx would show."""

    def span(match: re.Match[str]) -> str:
        short, target, explicit = match.group(1), match.group(2).strip(), match.group(3)
        if explicit is not None:  # :role:`title <target>`: the title
            return f"`{target}`"
        return f"`{target.rsplit('.', 1)[-1] if short else target}`"

    return ROLE.sub(span, text)


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles of every docstring once the object tree is built."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """The top package itself (``on_object`` sees only what it holds)."""
        self.on_object(obj=pkg, loader=loader)
