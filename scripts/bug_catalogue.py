"""The catalogue of bugs of record: grey-box replay and the statistical audit, bug and fix.

Writes ``docs/bug_catalogue.md``.  For every entry of
``privaudit.suites.bug_catalogue.bugs_of_record()`` and both of its versions (the bug
re-created, and its fix), this script runs

* grey-box replay (``privaudit.auditing.replay.replay``, seed 0) on the entry's
  recorded input: verdict, the first failed check, its call site, the declared and measured
  values, seconds;
* the statistical audit (``privaudit.audit``) of the same pipeline wrapped as a
  ``PipelineMechanism`` against the library's claim, on the entry's pairs, at
  :data:`STAT_CONFIG` (DP-SGD: the ABLQ mechanisms of ``privaudit.suites.dpsgd`` at
  :data:`DPSGD_CONFIG`): verdict, ε lower bound, samples per side, every output drawn,
  seconds; for the floating-point entry also the strict float-image check.

Each entry's rows are saved to ``docs/bug_catalogue_data/<name>.json``; the page is
rendered from the saved files, so entries can be rerun alone.

Usage::

    python scripts/bug_catalogue.py [--bugs NAME,...] [--render-only]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import pathlib
import sys
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout: use its packages
    sys.path.insert(0, str(ROOT))

from privaudit import AuditConfig, audit
from privaudit.auditing import verified_pair
from privaudit.auditing.checks import check_float_image
from privaudit.auditing.replay import PipelineMechanism, replay
from privaudit.spec import PrivauditError
from privaudit.suites import bugs_of_record

DATA = ROOT / "docs" / "bug_catalogue_data"
PAGE = ROOT / "docs" / "bug_catalogue.md"
VERSIONS = ("buggy", "fixed")
#: The statistical audit of the pipelines: 2·10⁴ outputs per side on the entry's pairs, a
#: small pair search (the pairs are given), confidence 0.95, seed 0.  A pipeline runs once
#: per output in Python, so ``CI_STRENGTH`` (5·10⁴ per side, 24 candidate pairs) would
#: take minutes per audit; this keeps each audit under a minute.
STAT_CONFIG = AuditConfig(
    samples=20_000, pilot_samples=1_000, pair_budget=4, pairs_tested=1, claim_budget=50, seed=0
)
#: DP-SGD's ABLQ mechanisms (vectorised samplers) at ``CI_STRENGTH``'s 5·10⁴ outputs per
#: side, half the quality tier's 10⁵ (``tests/quality/test_dpsgd_audits.py``, minutes per
#: audit without pairs), with the paper's pair given and the same small pair search as
#: above, so that each audit fits in about a minute.
DPSGD_CONFIG = STAT_CONFIG.merged({"samples": 50_000})
#: Outputs per input of the strict floating-point image check.
FLOAT_SAMPLES = 20_000


def _site(site: str) -> str:
    path, _, line = site.rpartition(":")
    with contextlib.suppress(ValueError):  # a pipeline outside the checkout: keep it
        path = pathlib.Path(path).resolve().relative_to(ROOT).as_posix()
    return f"{path}:{line}" if line else site


def _number(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    return "inf" if math.isinf(float(value)) else float(value)


def _replay_row(bug: Any, version: str) -> dict[str, Any]:
    started = time.perf_counter()
    report = replay(
        bug.pipeline(version),
        bug.data,
        domain=bug.domain,
        relation=bug.relation,
        neighbours=bug.neighbours,
        rng=0,
    )
    seconds = time.perf_counter() - started
    first = report.first
    row: dict[str, Any] = {
        "violated": report.violated,
        "neighbours": report.neighbours,
        "findings": len(report.findings),
        "epsilon": _number(report.epsilon),
        "delta": report.delta,
        "seconds": seconds,
        "statement": report.statement,
    }
    if first is not None:
        row.update(
            check=first.check,
            site=_site(first.site),
            move=first.move,
            declared=first.declared,
            measured=first.measured,
            message=first.message.replace(str(ROOT) + "/", ""),
            x=first.x,
            y=first.y,
        )
    return row


def _mechanism(bug: Any, version: str) -> Any:
    spec = bug.audit_spec(version)
    if spec is None:
        return bug.statistical_mechanism(version)
    return PipelineMechanism(bug.pipeline(version), spec, statistic=bug.audit_statistic(version))


def _counted(mechanism: Any) -> list[int]:
    """Count every output the audit draws (wraps the instance's sampler)."""
    drawn = [0]
    inner = mechanism._sample

    def sample(data: Any, size: int, rng: Any) -> Any:
        drawn[0] += size
        return inner(data, size, rng)

    mechanism._sample = sample
    return drawn


def _audit_row(bug: Any, version: str) -> dict[str, Any]:
    mechanism = _mechanism(bug, version)
    config = DPSGD_CONFIG if bug.mechanism is not None else STAT_CONFIG
    drawn = _counted(mechanism)
    started = time.perf_counter()
    try:
        report = audit(mechanism, config=config, pairs=bug.pairs)
    except PrivauditError as err:  # e.g. a release that is NaN: an error, not a verdict
        return {
            "verdict": "error",
            "error": f"{type(err).__name__}: {err}",
            "epsilon_lower_bound": None,
            "samples": 0,
            "drawn": drawn[0],
            "seconds": time.perf_counter() - started,
            "config": config.model_dump(exclude_none=True),
        }
    seconds = time.perf_counter() - started
    event = report.worst_event
    row: dict[str, Any] = {
        "verdict": report.verdict,
        "epsilon_lower_bound": _number(report.epsilon_lower_bound),
        "claimed": report.epsilon_claimed,
        "samples": report.samples,
        "drawn": drawn[0],
        "seconds": seconds,
        "event": event.description if event is not None else "",
        "config": config.model_dump(exclude_none=True),
    }
    image = next((c for c in report.checks if c.name == "floating_point.image"), None)
    if image is not None:
        row["float_image_in_audit"] = {
            "status": image.status,
            "leak_found": image.details.get("leak_found"),
        }
    if bug.float_image:
        row["float_image_strict"] = _float_row(bug, mechanism)
    return row


def _float_row(bug: Any, mechanism: Any) -> dict[str, Any]:
    x, y = bug.pairs[0]
    pair = verified_pair(mechanism.spec, x, y, "explicit")
    started = time.perf_counter()
    out = check_float_image(mechanism, [pair], 0, samples=FLOAT_SAMPLES, strict=True)
    directions = out.details.get("directions", [])
    return {
        "status": out.status,
        "witnesses": [d["witnesses"] for d in directions],
        "first_witness": next(
            (d["first_witness"] for d in directions if d["first_witness"] is not None), None
        ),
        "samples": FLOAT_SAMPLES,
        "seconds": time.perf_counter() - started,
    }


def run(bug: Any, say: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": bug.name,
        "library": bug.library,
        "citation": bug.source.citation,
        "url": bug.source.url,
        "claim": bug.claim,
        "claimed_epsilon": bug.claimed_epsilon,
        "true_epsilon": _number(bug.true_epsilon),
        "true_epsilon_exact": bug.true_epsilon_exact,
        "replay_catches": bug.replay_catches,
        "replay_check": bug.replay_check,
        "notes": bug.notes,
    }
    for version in VERSIONS:
        entry[version] = {"replay": _replay_row(bug, version)}
        say(f"{bug.name} [{version}] replay: {entry[version]['replay']['statement'][:110]}")
        entry[version]["statistical"] = _audit_row(bug, version)
        stat = entry[version]["statistical"]
        say(
            f"{bug.name} [{version}] audit: {stat['verdict']}, eps_lb "
            f"{stat['epsilon_lower_bound']}, {stat['seconds']:.0f} s"
        )
    return entry


# -- the page -----------------------------------------------------------------------------
def _eps(value: Any) -> str:
    if value is None:
        return "—"
    return "∞" if value == "inf" else f"{float(value):.3g}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _source(entry: dict[str, Any]) -> str:
    """``owner/repo #N`` for a GitHub report, else the authors of the citation."""
    url = entry["url"]
    parts = url.split("/")
    if "github.com" in url and len(parts) >= 7:
        label = f"{parts[3]}/{parts[4]} #{parts[6]}"
    else:
        label = entry["citation"].split("'")[0].rstrip(", ")
    return f"[{_cell(label)}]({url})"


def _replay_cells(row: dict[str, Any]) -> str:
    if not row["violated"]:
        return f"no | — | passes, composed ε = {_eps(row['epsilon'])} | {row['seconds']:.2f}"
    if row.get("declared") is not None and row.get("measured") is not None:
        what = f"declared {row['declared']:g}, measured {row['measured']:.4g}"
    else:
        what = _cell(row["message"].split(": ", 1)[-1])[:90]
    example = f"`{row['site']}` ({row['move']} neighbour): {what}"
    return f"**yes** | `{row['check']}` | {example} | {row['seconds']:.2f}"


def _caught(stat: dict[str, Any]) -> bool:
    strict = stat.get("float_image_strict")
    return stat["verdict"] == "violation" or (strict is not None and strict["status"] == "violated")


def _stat_cells(stat: dict[str, Any]) -> str:
    if stat["verdict"] == "error":
        return (
            f"no verdict (the audit stops: {_cell(stat['error'])}) | — | — | {stat['seconds']:.0f}"
        )
    caught = "**yes**" if _caught(stat) else "no"
    verdict = "audit: " + stat["verdict"].replace("_", " ")
    if (stat.get("float_image_in_audit") or {}).get("leak_found"):
        verdict += ", float leak found but not counted (idealized numerics)"
    strict = stat.get("float_image_strict")
    if strict is not None:
        verdict += f"; strict float-image check: {strict['status']}, {max(strict['witnesses'])}"
        verdict += f" of {strict['samples']:,} outputs impossible under the neighbour"
    return (
        f"{caught} ({verdict}) | {_eps(stat['epsilon_lower_bound'])} | {stat['samples']:,} | "
        f"{stat['seconds']:.0f}"
    )


def _fixed_cell(entry: dict[str, Any]) -> str:
    fixed = entry["fixed"]
    replay_ok = not fixed["replay"]["violated"]
    stat_ok = not _caught(fixed["statistical"])
    both = "**yes**" if replay_ok and stat_ok else "NO"
    strict = fixed["statistical"].get("float_image_strict")
    extra = f"; strict float-image check {strict['status']}" if strict is not None else ""
    return (
        f"{both} (replay ε = {_eps(fixed['replay']['epsilon'])}; audit "
        f"{fixed['statistical']['verdict'].replace('_', ' ')}, ε_lb "
        f"{_eps(fixed['statistical']['epsilon_lower_bound'])}{extra})"
    )


def _table(entries: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| bug | library | source | claim | replay: caught | check | counterexample | s "
        "| statistical: caught | ε_lb | samples per side | s | fixed: both pass |",
        "|---|---|---|---|---|---|---|---:|---|---:|---:|---:|---|",
    ]
    for e in entries:
        lines.append(
            f"| `{e['name']}` | {_cell(e['library'])} | {_source(e)} | {_cell(e['claim'])} | "
            f"{_replay_cells(e['buggy']['replay'])} | {_stat_cells(e['buggy']['statistical'])} "
            f"| {_fixed_cell(e)} |"
        )
    return lines


def _details(entries: list[dict[str, Any]]) -> list[str]:
    lines = []
    for e in entries:
        stat = e["buggy"]["statistical"]
        true = _eps(e["true_epsilon"]) + ("" if e["true_epsilon_exact"] else " (lower bound)")
        expected = "expected" if e["replay_catches"] else "not expected"
        seen = "caught" if e["buggy"]["replay"]["violated"] else "passed"
        lines += [
            f"### `{e['name']}`",
            "",
            f"*{e['citation']}* — <{e['url']}>",
            "",
            f"Claim: {e['claim']} (ε = {e['claimed_epsilon']:.4g}).  True ε of the bug: "
            f"{true}.  Replay: {expected} to catch it, {seen}"
            + (f" (`{e['buggy']['replay']['check']}`)." if seen == "caught" else "."),
            "",
            e["notes"],
            "",
            f"Statistical audit of the bug: {stat['verdict']}, ε ≥ "
            f"{_eps(stat['epsilon_lower_bound'])} "
            f"({stat.get('event') or stat.get('error') or 'no event'}); "
            f"{stat['samples']:,} outputs per side in the final test, "
            f"{stat['drawn']:,} outputs drawn in all, {stat['seconds']:.1f} s.",
            "",
        ]
        first = e["buggy"]["replay"]
        if first["violated"]:
            lines += [f"Replay's counterexample: `{_cell(first['message'])}`", ""]
    return lines


def render() -> str:
    order = [b.name for b in bugs_of_record()]
    found = {p.stem: json.loads(p.read_text()) for p in DATA.glob("*.json")}
    entries = [found[name] for name in order if name in found]
    text = [
        "# Bugs of record: grey-box replay and the statistical audit",
        "",
        "Generated by `python scripts/bug_catalogue.py` from the catalogue "
        "`privaudit/suites/bug_catalogue.py`: privacy bugs reported against real DP "
        "libraries, each re-created in plain numpy as a replay pipeline "
        "(`docs/replay.md`) beside its fixed version, which is the control.  Grey-box "
        "replay after Cebere, Erb, Desfontaines, Bellet & Fitzsimons (2026).",
        "",
        "*Replay* runs the pipeline on the entry's recorded input and on its neighbours "
        "(the relation's extreme moves, then 16 random ones; seed 0) with every "
        "primitive's noise frozen; the counterexample is its first failure, at the "
        "pipeline's own call site.  *Statistical* is `privaudit.audit` of the same "
        "pipeline run as a mechanism (`PipelineMechanism`) against the library's claim, on "
        "the entry's pairs, at 20,000 outputs per side, confidence 0.95, seed 0, with a "
        "pair search of 4 candidates and 1,000 pilot outputs (a pipeline runs once per "
        "output in Python, so `CI_STRENGTH` would take minutes per audit).  DP-SGD is "
        "audited in the ABLQ model (`privaudit.suites.dpsgd`) at 50,000 outputs per side "
        "(half the quality tier's 100,000, to keep the audit near a minute), with the "
        "paper's pair given.  Seconds are wall-clock "
        "on 2 cores shared with other jobs.",
        "",
        *_table(entries),
        "",
        "A *fixed* version passes when replay finds nothing and the statistical audit does "
        "not refute its claim.  Replay cannot see a bug inside a primitive it trusts (a "
        "local randomizer, the float arithmetic of the noise) nor in an accountant it "
        "never sees; the statistical audit finds those, and replay finds the others in one "
        "deterministic pair of runs.",
        "",
        "## Each bug",
        "",
        *_details(entries),
    ]
    return "\n".join(text).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bugs", default=None, help="comma-separated entry names")
    parser.add_argument("--render-only", action="store_true")
    args = parser.parse_args(argv)
    DATA.mkdir(parents=True, exist_ok=True)
    if not args.render_only:
        wanted = set(args.bugs.split(",")) if args.bugs else None
        catalogue = bugs_of_record()
        unknown = (wanted or set()) - {b.name for b in catalogue}
        if unknown:
            parser.error(f"unknown entries: {sorted(unknown)}")
        for bug in catalogue:
            if wanted is not None and bug.name not in wanted:
                continue
            entry = run(bug, lambda msg: print(msg, flush=True))
            (DATA / f"{bug.name}.json").write_text(json.dumps(entry, indent=1) + "\n")
    PAGE.write_text(render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
