"""Which neighbouring pairs get the full distinguishing test, and the test of those chosen.

* :mod:`~privaudit.auditing.choice.scores`: scores that rank pairs from fresh outputs;
* :mod:`~privaudit.auditing.choice.halving`: the pair choice (successive halving, its
  robust near-tie rule and the α share of each chosen pair);
* :mod:`~privaudit.auditing.choice.ranked_law`: the declared law checked at every input of
  the pairs it ranked (``noise_law.ranked_pairs``), before a pair is skipped on its word;
* :mod:`~privaudit.auditing.choice.final_tests`: the distinguishing test of every chosen
  pair, in turn or in forked processes.
"""

from __future__ import annotations

from typing import Any as _Any

from privaudit._lazy import lazy_attribute as _lazy_attribute
from privaudit._lazy import lazy_dir as _lazy_dir

#: Public names, imported on first use (PEP 562): the package stays cheap to import.
_LAZY: dict[str, str] = {
    "halving_first_round": "privaudit.auditing.choice.halving",
    "halving_pool_size": "privaudit.auditing.choice.halving",
    "pair_score": "privaudit.auditing.choice.scores",
}

__all__ = [
    "halving_first_round",
    "halving_pool_size",
    "pair_score",
]


def __getattr__(name: str) -> _Any:
    return _lazy_attribute(globals(), _LAZY, name)


def __dir__() -> list[str]:
    return _lazy_dir(globals(), _LAZY)
