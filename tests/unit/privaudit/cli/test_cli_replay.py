"""``privaudit replay``: a correct pipeline exits 0, a broken one 1 with its call site, a
bad target or a failing pipeline 2 with one line, and ``--json`` holds every report."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from privaudit.auditing.replay.target import ReplayTarget
from privaudit.interfaces.cli import main
from privaudit.interfaces.cli_contract import REPLAY_SCHEMA_VERSION
from privaudit.spec import DatasetDomain, RealInterval, SubstituteOne
from privaudit.spec.errors import InvalidParameterError

PIPELINES = '''
"""Pipelines for the replay command: a correct one, a broken one and bad targets."""
import numpy as np
from privaudit.auditing.replay.target import ReplayTarget
from privaudit.spec import DatasetDomain, RealInterval, SubstituteOne

N = 8
DOMAIN = DatasetDomain(record=RealInterval(lo=0, hi=1), size=N)
X = np.linspace(0.1, 0.9, N)


def clipped_sum(x, noise):
    return noise.laplace(np.clip(x, 0.0, 1.0).sum(), sensitivity=1.0, epsilon=1.0)


def doubled_sum(x, noise):
    return noise.laplace(2 * x.sum(), sensitivity=1.0, epsilon=1.0)  # BROKEN LINE


def leaky(x, noise):
    return noise.laplace(x.sum(), sensitivity=1.0, epsilon=1.0) + x[0]


def raises(x, noise):
    raise RuntimeError("boom")


good = ReplayTarget(clipped_sum, X, DOMAIN, SubstituteOne(), name="clipped_sum")
bad = ReplayTarget(doubled_sum, X, DOMAIN, SubstituteOne(), random_neighbours=2)
failing = ReplayTarget(raises, X, DOMAIN, SubstituteOne())


def both():
    return [good, bad]


def leaks():
    return ReplayTarget(leaky, X, DOMAIN, SubstituteOne(), name="leaky")


def needs_args(k):
    return good


def empty():
    return []


not_a_target = 3
'''


@pytest.fixture
def pipes(tmp_path: Path) -> Iterator[str]:
    """The pipelines file; the modules the CLI loaded from it leave ``sys.modules`` after."""
    path = tmp_path / "cli_replay_pipelines.py"
    path.write_text(textwrap.dedent(PIPELINES), encoding="utf-8")
    yield str(path)
    for name, module in list(sys.modules.items()):
        if getattr(module, "__file__", None) == str(path.resolve()):
            del sys.modules[name]


def _broken_line(path: str) -> int:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, start=1) if "BROKEN LINE" in line)


def test_a_correct_pipeline_exits_0_with_its_statement(pipes, capsys):
    assert main(["replay", f"{pipes}:good"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("clipped_sum: no failure on ") and "composed claim ε = 1" in out
    assert len(out.splitlines()) == 1 and err == ""


def test_a_violation_exits_1_with_the_call_site(pipes, capsys):
    assert main(["replay", f"{pipes}:good", f"{pipes}:bad"]) == 1
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("clipped_sum: no failure")
    assert lines[1].startswith("doubled_sum: VIOLATION: sensitivity: laplace call 0 at ")
    assert f"cli_replay_pipelines.py:{_broken_line(pipes)}" in lines[1]
    assert "exceeds the declared sensitivity 1" in lines[1]


def test_data_reaching_the_release_outside_a_primitive_is_a_violation(pipes, capsys):
    assert main(["replay", f"{pipes}:leaks", "--random-neighbours", "0"]) == 1
    out, _ = capsys.readouterr()
    assert out.startswith("leaky: VIOLATION: unprotected_release")


def test_a_callable_may_return_several_targets_and_json_holds_every_report(pipes, tmp_path, capsys):
    path = tmp_path / "out" / "replay.json"
    code = main(
        ["replay", f"{pipes}:both", "--seed", "5", "--random-neighbours", "3", "--json", str(path)]
    )
    assert code == 1
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["schema_version"] == REPLAY_SCHEMA_VERSION
    assert data["seed"] == 5 and data["violated"] is True and data["errors"] == []
    good, bad = data["entries"]
    assert (good["name"], good["violated"], good["target"]) == (
        "clipped_sum",
        False,
        f"{pipes}:both",
    )
    assert good["report"]["epsilon"] == 1.0 and good["report"]["findings"] == []
    # --random-neighbours replaces the target's own: 8 extreme moves and 3 random ones
    assert good["report"]["neighbours"] == bad["report"]["neighbours"]
    first = bad["report"]["findings"][0]
    assert bad["violated"] and first["check"] == "sensitivity"
    assert first["site"].endswith(f"cli_replay_pipelines.py:{_broken_line(pipes)}")
    assert first["declared"] == 1.0 and first["measured"] > 1.0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_json_to_stdout_sends_the_lines_to_stderr(pipes, capsys):
    assert main(["replay", f"{pipes}:good", "--json", "-"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["entries"][0]["name"] == "clipped_sum"
    assert err.startswith("clipped_sum: no failure")


def test_the_seed_makes_the_replay_reproducible(pipes, tmp_path, capsys):
    reports = []
    for i in (0, 1):
        path = tmp_path / f"{i}.json"
        assert main(["replay", f"{pipes}:good", "--seed", "9", "--json", str(path)]) == 0
        reports.append(json.loads(path.read_text(encoding="utf-8")))
    assert reports[0] == reports[1]


@pytest.mark.parametrize(
    ("attribute", "needle"),
    [
        ("nope", "has no attribute 'nope'"),
        ("not_a_target", "gives an object of type int"),
        ("needs_args", "needs arguments"),
        ("empty", "gives nothing"),
        ("failing", "the pipeline raised RuntimeError"),
    ],
)
def test_bad_targets_exit_2_with_one_line(pipes, capsys, attribute, needle):
    assert main(["replay", f"{pipes}:{attribute}"]) == 2
    out, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and needle in err, err
    assert err.startswith("privaudit: error: ")


def test_a_bad_target_exits_2_before_any_pipeline_runs(pipes, capsys):
    assert main(["replay", f"{pipes}:good", "no_such_module_48:x"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "no module named 'no_such_module_48'" in err


def test_argument_errors_are_one_line_without_a_traceback(pipes):
    for argv in (["replay"], ["replay", f"{pipes}:good", "--random-neighbours", "-1"]):
        done = subprocess.run(
            [sys.executable, "-m", "privaudit", *argv], capture_output=True, text=True
        )
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_replay_target_validates_and_runs():
    domain = DatasetDomain(record=RealInterval(lo=0, hi=1), size=4)

    def total(x, noise):
        return noise.laplace(x.sum(), sensitivity=1.0, epsilon=1.0)

    target = ReplayTarget(total, np.full(4, 0.5), domain, SubstituteOne(), neighbours=[])
    assert target.name.endswith("total") and target.neighbours == ()
    assert target.run(1).epsilon == 1.0
    assert target.run(1, random_neighbours=0).neighbours < target.run(1).neighbours
    with pytest.raises(InvalidParameterError, match="callable"):
        ReplayTarget(3, np.full(4, 0.5), domain, SubstituteOne())
    with pytest.raises(InvalidParameterError, match="random_neighbours"):
        ReplayTarget(total, np.full(4, 0.5), domain, SubstituteOne(), random_neighbours=-1)
    with pytest.raises(InvalidParameterError, match="random_neighbours"):
        target.run(random_neighbours=True)
