"""``privaudit replay``: grey-box replay of the pipelines that TARGETs name
(:class:`~privaudit.auditing.replay.target.ReplayTarget`, ``docs/replay.md``), one line per
target, the reports as JSON with ``--json`` (:mod:`privaudit.interfaces.cli`).
"""

from __future__ import annotations

import argparse
import inspect
import json
from typing import Any

from privaudit.auditing.replay.result import ReplayReport
from privaudit.auditing.replay.target import ReplayTarget
from privaudit.interfaces._cli_common import (
    EXIT_OK,
    EXIT_USAGE,
    EXIT_VIOLATION,
    _emit_json,
    _Output,
)
from privaudit.interfaces.cli_contract import REPLAY_SCHEMA_VERSION
from privaudit.spec.errors import AuditError, PrivauditError

__all__ = ["load_replay_targets", "replay_line"]


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


def _called(obj: Any, text: str) -> Any:
    """What the zero-argument callable ``obj`` returns (its errors name the target)."""
    try:
        inspect.signature(obj).bind()
    except TypeError:
        raise AuditError(
            f"target {text!r} is a callable that needs arguments; name a ReplayTarget or a "
            "zero-argument callable that returns them"
        ) from None
    except ValueError:  # no signature to read (a builtin): call it and see
        pass
    try:
        return obj()
    except PrivauditError as err:
        raise type(err)(f"target {text!r}: the callable raised {_first_line(err)}") from None
    except Exception as err:  # noqa: BLE001 - a user's callable may raise anything
        raise AuditError(
            f"target {text!r}: the callable raised {type(err).__name__}: {_first_line(err)}"
        ) from None


def load_replay_targets(text: str) -> list[ReplayTarget]:
    """The replay targets a command-line TARGET names: a :class:`ReplayTarget`, or a
    zero-argument callable returning one or an iterable of them.

    The module or file is imported, that is, *executed as Python code*.

    Raises
    ------
    AuditError
        If the target is malformed or cannot be loaded, or gives no replay target.
    """
    from privaudit.trust.targets import target_object

    obj = target_object(text)
    if not isinstance(obj, ReplayTarget) and callable(obj):
        obj = _called(obj, text)
    if isinstance(obj, ReplayTarget):
        return [obj]
    if isinstance(obj, (str, bytes)) or not hasattr(obj, "__iter__"):
        raise AuditError(
            f"target {text!r} gives an object of type {type(obj).__name__}, not a "
            "ReplayTarget or an iterable of them"
        )
    found = list(obj)
    wrong = [type(t).__name__ for t in found if not isinstance(t, ReplayTarget)]
    if wrong or not found:
        what = f"an object of type {wrong[0]}" if wrong else "nothing"
        raise AuditError(f"target {text!r} gives {what} where a ReplayTarget was expected")
    return found


def replay_line(name: str, report: ReplayReport) -> str:
    """One line: the target's name and the report's statement, with the first finding's
    call site when the statement does not already name it."""
    line = f"{name}: {report.statement}"
    first = report.first
    if first is not None and first.site and first.site not in line:
        line += f" (call site {first.site})"
    return line


def _cmd_replay(args: argparse.Namespace) -> int:
    from privaudit.auditing.replay_audit import audit_primitive  # the auditor, on use

    out = _Output(args)
    loaded = [(text, t) for text in args.targets for t in load_replay_targets(text)]
    entries: list[dict[str, Any]] = []
    errors: list[dict[str, str]] = []
    for text, target in loaded:
        try:
            report = target.run(
                args.seed, random_neighbours=args.random_neighbours, isolate=audit_primitive
            )
        except PrivauditError as err:
            message = " ".join(_first_line(err).split())
            errors.append({"target": text, "name": target.name, "error": message})
            out.error(f"privaudit: error: {target.name}: {message}")
            continue
        out.say(replay_line(target.name, report))
        entries.append(
            {
                "target": text,
                "name": target.name,
                "violated": report.violated,
                "report": json.loads(report.model_dump_json()),
            }
        )
    violated = any(e["violated"] for e in entries)
    if args.json:
        payload = {
            "schema_version": REPLAY_SCHEMA_VERSION,
            "seed": args.seed,
            "violated": violated,
            "entries": entries,
            "errors": errors,
        }
        _emit_json(args.json, json.dumps(payload, indent=2), "the JSON replay report")
    if errors:
        return EXIT_USAGE
    return EXIT_VIOLATION if violated else EXIT_OK
