"""The side-by-side examples of docs/accounting.md (privaudit, dp_accounting, OpenDP): the
code on the page is the code that runs, and the numbers agree where the methods agree."""

from __future__ import annotations

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
for path in (ROOT / "scripts", ROOT / "examples"):
    sys.path.insert(0, str(path))

pytest.importorskip("opendp")

import accounting_side_by_side as page  # scripts/; it imports examples/accounting_peers.py

examples = page.examples


@pytest.fixture(scope="module")
def numbers():
    """ε of every row of every example, by (function name, sorted kwargs)."""
    found = {}
    for _, rows in examples.EXAMPLES:
        for _, _, fn, kwargs in rows:
            found[(fn.__name__, tuple(sorted(kwargs.items())))] = fn(**kwargs)
    return found


def _get(numbers, name, **kwargs):
    return numbers[(name, tuple(sorted(kwargs.items())))]


def test_privaudit_agrees_with_dp_accounting_under_both_relations(numbers):
    for relation in ("add_remove_one", "substitute_one"):
        ours = _get(numbers, "privaudit_subsampled", relation=relation)
        theirs = _get(numbers, "dp_accounting_subsampled", relation=relation)
        assert theirs <= ours <= theirs * (1 + 1e-4)
    assert _get(numbers, "privaudit_subsampled", relation="substitute_one") > _get(
        numbers, "privaudit_subsampled", relation="add_remove_one"
    )


def test_privaudit_agrees_with_dp_accounting_and_opendp(numbers):
    assert _get(numbers, "privaudit_gaussians", accountant="pld") == pytest.approx(
        _get(numbers, "dp_accounting_gaussians"), rel=1e-4
    )
    assert _get(numbers, "privaudit_gaussians", accountant="zcdp") == pytest.approx(
        _get(numbers, "opendp_gaussians"), rel=1e-6
    )
    assert _get(numbers, "privaudit_laplaces") == pytest.approx(0.6, abs=1e-4)
    assert _get(numbers, "opendp_laplaces") == pytest.approx(0.6, rel=1e-9)


def test_the_page_shows_the_code_that_runs():
    text = page.DOC.read_text(encoding="utf-8")
    start, end = text.index(page.START), text.index(page.END)
    shown = text[start:end]
    import inspect
    import textwrap

    for _, rows in examples.EXAMPLES:
        for _, _, fn, _ in rows:
            assert textwrap.dedent(inspect.getsource(fn)).rstrip() in shown, fn.__name__
