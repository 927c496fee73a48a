"""Every Python snippet of the README and of docs/ runs, and shows what it prints.

The snippets are read by sybil (the ``test`` extra): a ```python block runs as it is, and a
block written as a doctest (``>>>`` lines with the output below them) must print exactly the
output shown (ELLIPSIS and NORMALIZE_WHITESPACE on, so ``...`` stands for digits a page does
not pin).  Each block runs **on its own**, in a fresh namespace, as a reader who copies one
block runs it: a block that needs a name from an earlier one fails.  A block that cannot run
here (a fragment of the package's own source, a running Dask cluster, torch) is marked on its
page with sybil's skip directive and a reason, ``<!-- skip: next "why" -->``, and is
reported as skipped with that reason.

One test per block, named by the page and the line of its opening fence; blocks run in page
order (a page's skip directives apply to the block after them).
"""

from __future__ import annotations

import doctest
import pathlib
import re
import traceback
from dataclasses import dataclass, field
from unittest import SkipTest

import pytest

sybil = pytest.importorskip("sybil", reason="sybil (the test extra) is not installed")
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PARSER = sybil.Sybil(
    parsers=[
        PythonCodeBlockParser(doctest_optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE),
        SkipParser(),
    ]
)
#: A ```python fenced block, possibly indented (inside a list item).
BLOCK = re.compile(r"^([ \t]*)```python[^\n]*\n.*?^\1```[ \t]*$", re.MULTILINE | re.DOTALL)


def _blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of every ```python block of a page."""
    return [(m.start(), m.end()) for m in BLOCK.finditer(text)]


@dataclass
class _Page:
    """A page's blocks, run in order as the tests ask for them."""

    path: pathlib.Path
    spans: list[tuple[int, int]]
    examples: list = field(default_factory=list)
    cursor: int = 0
    outcomes: dict[int, BaseException | None] = field(default_factory=dict)

    def block_of(self, offset: int) -> int | None:
        for index, (start, end) in enumerate(self.spans):
            if start <= offset < end:
                return index
        return None

    def run_through(self, wanted: int) -> BaseException | None:
        """Run the page's examples up to the end of block ``wanted``; its outcome."""
        end = self.spans[wanted][1]
        while self.cursor < len(self.examples) and self.examples[self.cursor].region.start < end:
            example = self.examples[self.cursor]
            self.cursor += 1
            block = self.block_of(example.region.start)
            if block is not None and block not in self.outcomes:  # a block starts
                example.document.namespace.clear()  # each block on its own
                example.document.namespace["__name__"] = "__docs__"
                self.outcomes[block] = None
            if block is not None and self.outcomes[block] is not None:
                continue  # a block stops at its first failure
            try:
                example.evaluate()
            except SkipTest as skipped:
                if block is None:
                    raise
                self.outcomes[block] = skipped
            except Exception as failed:  # reported by the block's own test
                if block is None:
                    raise
                self.outcomes[block] = failed
        return self.outcomes.get(wanted)


_PAGES: dict[pathlib.Path, _Page] = {}


def _page(path: pathlib.Path) -> _Page:
    if path not in _PAGES:
        document = PARSER.parse(path)
        _PAGES[path] = _Page(path, _blocks(document.text), list(document.examples()))
    return _PAGES[path]


def _cases() -> list:
    cases = []
    for path in PAGES:
        text = path.read_text(encoding="utf-8")
        for index, (start, _) in enumerate(_blocks(text)):
            line = text.count("\n", 0, start) + 1
            name = f"{path.relative_to(ROOT).as_posix()}:{line}"
            cases.append(pytest.param(path, index, id=name))
    return cases


@pytest.mark.parametrize(("path", "block"), _cases())
def test_the_snippet_runs_and_shows_its_output(path: pathlib.Path, block: int) -> None:
    outcome = _page(path).run_through(block)
    if isinstance(outcome, SkipTest):
        pytest.skip(str(outcome))
    if outcome is not None:
        detail = "".join(traceback.format_exception(outcome))
        pytest.fail(f"{path.name}, block {block + 1}:\n{detail}", pytrace=False)


def test_every_page_with_python_has_its_snippets_collected() -> None:
    """The block finder and sybil agree: no block is silently left out."""
    for path in PAGES:
        page = _page(path)
        covered = {page.block_of(example.region.start) for example in page.examples}
        assert covered >= set(range(len(page.spans))), path
