"""The pytest plugin: the ``privacy_audit`` fixture, its options, messages and seeds.

Each test writes a small test module into a temporary project with ``pytester`` and runs
pytest on it in-process; the plugin is picked up through its ``pytest11`` entry point
(or with ``-p`` when privaudit is not installed with its metadata).
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from importlib import metadata

import pytest

# Imported here, before any in-process run: pytester restores ``sys.modules`` after each
# run, and numpy's and scipy's extension modules cannot be loaded twice in one process, so
# everything the inner runs import must already be loaded in the outer one.
import privaudit.auditing.auditor  # noqa: F401
import privaudit.auditing.replay  # noqa: F401
import privaudit.mechanisms  # noqa: F401
import privaudit.spec  # noqa: F401
from privaudit.interfaces.pytest_plugin import seed_for_nodeid

pytest_plugins = ["pytester"]

_ENTRY_POINT = "privaudit.interfaces.pytest_plugin"


def _registered() -> bool:
    return any(ep.value == _ENTRY_POINT for ep in metadata.entry_points(group="pytest11"))


def _args(*extra: str) -> list[str]:
    """Command-line arguments for the inner run (load the plugin by hand if needed)."""
    base = ["-p", "no:cacheprovider"]
    if not _registered():  # pragma: no cover - only without an installed entry point
        base += ["-p", _ENTRY_POINT]
    return [*base, *extra]


MECHANISMS = '''
import json
from pathlib import Path

from privaudit.mechanisms import LaplaceMechanism, declare_mechanism
from privaudit.spec import (AdditiveNoise, DatasetDomain, GlobalSensitivity, Laplace, MechanismSpec,
                  PureDP, RealInterval, SubstituteOne)

N = 8


def broken_sum():
    """Claims sensitivity 1, but one record in [0, 2] moves the sum by 2."""
    spec = MechanismSpec(
        name="broken_sum",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=2.0), size=N),
        relation=SubstituteOne(), statistic="sum",
        sensitivity=(GlobalSensitivity(value=1.0),),
        noise=AdditiveNoise(law=Laplace(scale=1.0)), guarantee=PureDP(epsilon=1.0))
    return declare_mechanism(spec, sampler=lambda x, size, rng: x.sum() + rng.laplace(0, 1.0, size),
                             statistic=lambda x: float(x.sum()))


def correct():
    return LaplaceMechanism(epsilon=1.0, sensitivity=1.0)


def dump(outcome, name):
    data = outcome.report.model_dump(mode="json", exclude={"runtime_seconds"})
    Path(name).write_text(json.dumps({"report": data, "seed": outcome.seed,
                                      "source": outcome.seed_source}))
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A temporary project with the helper module ``mechs``."""
    pytester.makepyfile(mechs=MECHANISMS)
    pytester.syspathinsert()
    return pytester


def _load(pytester: pytest.Pytester, name: str) -> dict:
    return json.loads((pytester.path / name).read_text())


def test_the_plugin_is_registered_through_the_pytest11_entry_point():
    assert _registered(), (
        "pip install -e . registers privaudit.interfaces.pytest_plugin under pytest11"
    )


def test_importing_the_plugin_imports_nothing_beyond_the_package():
    code = (
        "import sys, pytest, privaudit; before = set(sys.modules); "
        "import privaudit.interfaces.pytest_plugin; "
        "print(sorted(set(sys.modules) - before))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    new = set(eval(out.stdout.strip()))  # noqa: S307 - a list literal printed by the child
    # the two rooms' packages are docstrings only, and the limits standard library only
    assert {m for m in new if m.startswith("privaudit")} == {
        "privaudit.interfaces",
        "privaudit.interfaces.pytest_plugin",
        "privaudit.auditing",
        "privaudit.auditing.limits",
        "privaudit.interfaces.argument_types",
    }
    heavy = {"numpy", "scipy", "pydantic", "networkx", "hypothesis"}
    assert not {m.split(".")[0] for m in new} & heavy
    assert not {".".join(m.split(".")[:2]) for m in new} & {
        "privaudit.spec",
        "privaudit.mechanisms",
    }


def test_a_correct_mechanism_passes_at_ci_strength(project):
    project.makepyfile(
        test_ok="""
        from privaudit import CI_STRENGTH
        from privaudit.interfaces.pytest_plugin import seed_for_nodeid
        from mechs import correct

        def test_laplace(privacy_audit, request):
            outcome = privacy_audit(correct()).assert_no_violation()
            assert outcome.verdict == "no_violation"
            assert outcome.report.samples == CI_STRENGTH.samples
            assert outcome.report.config.pair_budget == CI_STRENGTH.pair_budget
            assert outcome.seed == seed_for_nodeid(request.node.nodeid)
            assert outcome.seed_source == "node id"
    """
    )
    result = project.runpytest(*_args())
    result.assert_outcomes(passed=1)


def test_a_violation_fails_with_counterexample_bound_and_seed(project):
    project.makepyfile(
        test_bad="""
        from mechs import broken_sum

        def test_broken(privacy_audit):
            privacy_audit(broken_sum()).assert_no_violation()
    """
    )
    result = project.runpytest(*_args())
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    seed = seed_for_nodeid("test_bad.py::test_broken")
    assert "AssertionError" in out
    assert "privacy audit of 'broken_sum': VIOLATION FOUND" in out
    result.stdout.fnmatch_lines(
        [
            "*ε lower bound * > claimed ε = 1 at δ = 0*",
            "*violated checks:*",
            "*sensitivity.global:*exceeds the claimed global sensitivity 1*",
            "*counterexample (found by *",
            "*x = [[]*",
            "*y = [[]*",
            "*f(x) = *",
            "*distinguishability:*",
            (
                f"*seed {seed} (derived from the test's node id); reproduce with "
                f"pytest test_bad.py::test_broken --privaudit-seed {seed}"
            ),
        ]
    )


def test_assert_violation_passes_on_broken_and_fails_on_correct(project):
    project.makepyfile(
        test_quality="""
        from mechs import broken_sum, correct

        def test_caught(privacy_audit):
            outcome = privacy_audit(broken_sum()).assert_violation()
            assert outcome.violated

        def test_not_caught(privacy_audit):
            privacy_audit(correct()).assert_violation()
    """
    )
    result = project.runpytest(*_args())
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*expected a violation, found none*", "*power: *"])


def test_command_line_options_are_respected(project):
    project.makepyfile(
        test_opts="""
        def test_opts(privacy_audit):
            from mechs import correct
            outcome = privacy_audit(correct())
            assert outcome.report.samples == 3000
            assert outcome.report.confidence == 0.9
            assert outcome.seed == 17 and outcome.report.seed == 17
            assert outcome.seed_source == "--privaudit-seed"
            # keyword overrides beat the command line
            again = privacy_audit(correct(), samples=2000, seed=5)
            assert (again.report.samples, again.seed, again.seed_source) == (2000, 5, "test")
            assert "fixed by the test" in again.reproduce_hint()
    """
    )
    result = project.runpytest(
        *_args(
            "--privaudit-samples", "3000", "--privaudit-seed", "17", "--privaudit-confidence", "0.9"
        )
    )
    result.assert_outcomes(passed=1)


def test_ini_option_sets_samples_and_the_command_line_beats_it(project):
    project.makeini("[pytest]\nprivaudit_samples = 4000\n")
    project.makepyfile(
        test_ini="""
        import pytest

        def test_ini(privacy_audit, pytestconfig):
            from mechs import correct
            expected = pytestconfig.getoption("privaudit_samples") or 4000
            assert privacy_audit(correct()).report.samples == expected
    """
    )
    project.runpytest(*_args()).assert_outcomes(passed=1)
    project.runpytest(*_args("--privaudit-samples", "2500")).assert_outcomes(passed=1)


def test_time_budget_option_ini_and_keyword(project):
    project.makeini("[pytest]\nprivaudit_time_budget = 40\n")
    project.makepyfile(
        test_budget="""
        def test_budget(privacy_audit, pytestconfig):
            from mechs import correct
            expected = pytestconfig.getoption("privaudit_time_budget") or 40
            outcome = privacy_audit(correct(), samples=3000)
            assert outcome.report.budget.time_budget == expected
            assert outcome.report.config.time_budget is None
            again = privacy_audit(correct(), samples=3000, time_budget=25)
            assert again.report.budget.time_budget == 25
    """
    )
    project.runpytest(*_args()).assert_outcomes(passed=1)
    project.runpytest(*_args("--privaudit-time-budget", "35")).assert_outcomes(passed=1)


def test_sequential_option_ini_and_keyword(project):
    project.makepyfile(
        test_sequential="""
        def test_sequential(privacy_audit, pytestconfig):
            from mechs import broken_sum, correct
            on = bool(pytestconfig.getoption("privaudit_sequential")) or bool(
                pytestconfig.getini("privaudit_sequential"))
            outcome = privacy_audit(correct(), samples=4000)
            assert (outcome.report.sequential is not None) == on
            if on:
                assert outcome.report.sequential.stopping_reason == "sample budget"
                assert outcome.report.config.sequential
            caught = privacy_audit(broken_sum(), samples=4000, sequential=True)
            assert caught.violated and caught.report.sequential.stopping_reason == "violation"
            assert len(caught.report.sequential.looks) == 1
            off = privacy_audit(correct(), samples=4000, sequential=False)
            assert off.report.sequential is None
    """
    )
    project.runpytest(*_args()).assert_outcomes(passed=1)
    project.runpytest(*_args("--privaudit-sequential")).assert_outcomes(passed=1)
    project.makeini("[pytest]\nprivaudit_sequential = true\n")
    project.runpytest(*_args()).assert_outcomes(passed=1)


@pytest.mark.parametrize(
    "option, value",
    [
        ("--privaudit-samples", "0"),
        ("--privaudit-seed", "-1"),
        ("--privaudit-confidence", "1.5"),
        ("--privaudit-confidence", "high"),
        ("--privaudit-time-budget", "0"),
    ],
)
def test_invalid_options_are_usage_errors(project, option, value):
    project.makepyfile(test_x="def test_x(): pass")
    result = project.runpytest(*_args(option, value))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{option}*"])


@pytest.mark.parametrize(
    "options",
    [
        ("--privaudit-scheduler", "tcp://127.0.0.1:8786"),
        ("--privaudit-workers", "2"),
        (
            "--privaudit-executor",
            "dask",
            "--privaudit-workers",
            "2",
            "--privaudit-scheduler",
            "tcp://127.0.0.1:8786",
        ),
    ],
)
def test_dask_options_without_dask_or_together_are_usage_errors(project, options):
    project.makepyfile(test_x="def test_x(): pass")
    result = project.runpytest(*_args(*options))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--privaudit-*"])


WHERE = """
import json

def test_where(privacy_audit, privaudit_executor, pytestconfig):
    from mechs import correct
    kind = pytestconfig.getoption("privaudit_executor")
    assert type(privaudit_executor).__name__ == {
        "dask": "DaskExecutor", "threads": "ThreadExecutor",
        "processes": "ForkedPairsExecutor"}.get(kind, "SerialExecutor")
    report = json.loads(privacy_audit(correct(), samples=300_000, seed=4).report.to_json())
    report.pop("runtime_seconds")
    with open(f"{kind}.json", "w") as handle:
        json.dump(report, handle)
"""


def test_audits_on_dask_give_the_in_process_reports(project, monkeypatch):
    """``--privaudit-executor dask``: one cluster for the session (worker threads here: a
    worker process takes seconds to start), reports equal to the in-process ones."""
    pytest.importorskip("distributed")
    from privaudit.execution import distributed as dist

    monkeypatch.setattr(dist, "DaskExecutor", functools.partial(dist.DaskExecutor, processes=False))
    project.makepyfile(test_where=WHERE)
    project.runpytest(*_args()).assert_outcomes(passed=1)
    project.runpytest(
        *_args("--privaudit-executor", "dask", "--privaudit-workers", "2")
    ).assert_outcomes(passed=1)
    assert _load(project, "dask.json") == _load(project, "serial.json")


def test_audits_on_threads_give_the_in_process_reports(project):
    """``--privaudit-executor threads --privaudit-workers 2``: one pool for the session,
    reports equal to the serial ones."""
    project.makepyfile(test_where=WHERE)
    project.runpytest(*_args()).assert_outcomes(passed=1)
    project.runpytest(
        *_args("--privaudit-executor", "threads", "--privaudit-workers", "2")
    ).assert_outcomes(passed=1)
    assert _load(project, "threads.json") == _load(project, "serial.json")


def test_audits_on_processes_give_the_in_process_reports(project):
    """``--privaudit-executor processes --privaudit-workers 2``: the pair tests in forked
    processes, reports equal to the serial ones."""
    from privaudit.execution.forked import fork_available

    if not fork_available():
        pytest.skip("forked workers need Linux")
    project.makepyfile(test_where=WHERE)
    project.runpytest(*_args()).assert_outcomes(passed=1)
    project.runpytest(
        *_args("--privaudit-executor", "processes", "--privaudit-workers", "2")
    ).assert_outcomes(passed=1)
    assert _load(project, "processes.json") == _load(project, "serial.json")


def test_invalid_ini_samples_is_a_usage_error(project):
    project.makeini("[pytest]\nprivaudit_samples = many\n")
    project.makepyfile(test_x="def test_x(): pass")
    result = project.runpytest(*_args())
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*privaudit_samples*"])


SEEDED = """
from mechs import correct, dump

def test_first(privacy_audit):
    dump(privacy_audit(correct(), samples=4000), "first.json")

def test_second(privacy_audit):
    dump(privacy_audit(correct(), samples=4000), "second.json")
"""


def test_seeds_are_derived_from_the_node_id_and_reproducible(project):
    project.makepyfile(test_seeded=SEEDED)
    project.runpytest(*_args()).assert_outcomes(passed=2)
    first, second = _load(project, "first.json"), _load(project, "second.json")
    assert first["seed"] == seed_for_nodeid("test_seeded.py::test_first")
    assert second["seed"] == seed_for_nodeid("test_seeded.py::test_second")
    assert first["seed"] != second["seed"]

    # a second run draws exactly the same samples
    project.runpytest(*_args()).assert_outcomes(passed=2)
    assert _load(project, "first.json") == first

    # --privaudit-seed replays the first test's audit inside the second test
    project.runpytest(*_args("--privaudit-seed", str(first["seed"]), "-k", "second"))
    replay = _load(project, "second.json")
    assert replay["report"] == first["report"]
    assert replay["source"] == "--privaudit-seed"


def test_seed_for_nodeid_is_stable_and_32_bit():
    assert seed_for_nodeid("tests/test_x.py::test_y") == seed_for_nodeid("tests/test_x.py::test_y")
    seeds = {seed_for_nodeid(f"t.py::test[{i}]") for i in range(200)}
    assert len(seeds) == 200 and all(0 <= s < 2**32 for s in seeds)
    # pinned: a change here changes every user's audit draws
    assert seed_for_nodeid("") == 0xE3B0C442


def test_the_privacy_marker_is_registered_and_applied(project):
    project.makepyfile(
        test_marks="""
        import pytest
        from mechs import correct

        def test_audit(privacy_audit):
            privacy_audit(correct(), samples=2000)

        @pytest.mark.privacy
        def test_marked_by_hand():
            pass

        def test_plain():
            pass
    """
    )
    result = project.runpytest(*_args("--strict-markers", "-m", "privacy"))
    result.assert_outcomes(passed=2, deselected=1)
    result = project.runpytest(*_args("--markers"))
    result.stdout.fnmatch_lines(["*@pytest.mark.privacy: the test runs a privacy audit*"])


PIPELINES = """
import numpy as np
from privaudit.auditing.replay.target import ReplayTarget
from privaudit.spec import DatasetDomain, RealInterval, SubstituteOne

DOMAIN = DatasetDomain(record=RealInterval(lo=0, hi=1), size=8)
X = np.linspace(0.1, 0.9, 8)


def clipped_sum(x, noise):
    return noise.laplace(np.clip(x, 0.0, 1.0).sum(), sensitivity=1.0, epsilon=1.0)


def doubled_sum(x, noise):
    return noise.laplace(2 * x.sum(), sensitivity=1.0, epsilon=1.0)


target = ReplayTarget(clipped_sum, X, DOMAIN, SubstituteOne(), name="clipped")
"""


def test_privacy_replay_returns_the_report_of_a_correct_pipeline(project):
    project.makepyfile(replay_plugin_pipelines=PIPELINES)
    project.makepyfile(
        test_replay_ok="""
        import pytest
        from privaudit.interfaces.pytest_plugin import seed_for_nodeid
        from privaudit.spec import SubstituteOne
        from privaudit.spec.errors import InvalidParameterError
        from replay_plugin_pipelines import DOMAIN, X, clipped_sum, target

        def test_pipeline(privacy_replay, request):
            report = privacy_replay(clipped_sum, X, domain=DOMAIN, relation=SubstituteOne())
            assert not report.violated and report.epsilon == 1.0
            again = target.run(seed_for_nodeid(request.node.nodeid))
            assert again.model_dump() == report.model_dump()
            assert privacy_replay.reports == [report]

        def test_target(privacy_replay):
            assert privacy_replay(target, random_neighbours=0, seed=3).epsilon == 1.0

        def test_misuse(privacy_replay):
            with pytest.raises(InvalidParameterError, match="not both"):
                privacy_replay(target, X)
            with pytest.raises(InvalidParameterError, match="needs a pipeline"):
                privacy_replay(clipped_sum, X, domain=DOMAIN)
    """
    )
    result = project.runpytest(*_args("--strict-markers", "-m", "privacy"))
    result.assert_outcomes(passed=3)


def test_privacy_replay_fails_with_the_first_finding_and_its_call_site(project):
    project.makepyfile(replay_plugin_pipelines=PIPELINES)
    project.makepyfile(
        test_replay_bad="""
        from privaudit.spec import SubstituteOne
        from replay_plugin_pipelines import DOMAIN, X, doubled_sum

        def test_broken(privacy_replay):
            privacy_replay(doubled_sum, X, domain=DOMAIN, relation=SubstituteOne())
    """
    )
    result = project.runpytest(*_args())
    result.assert_outcomes(failed=1)
    lines = (project.path / "replay_plugin_pipelines.py").read_text().splitlines()
    line = lines.index("def doubled_sum(x, noise):") + 2
    seed = seed_for_nodeid("test_replay_bad.py::test_broken")
    result.stdout.fnmatch_lines(
        [
            "*privacy replay of 'doubled_sum': VIOLATION: sensitivity: laplace call 0 at *"
            f"replay_plugin_pipelines.py:{line}: *exceeds the declared sensitivity 1",
            f"*call site: *replay_plugin_pipelines.py:{line}",
            "*check: sensitivity (declared 1, measured 1.8)",
            "*x = [[]0.1, *",
            "*y = [[]*(neighbour made by: *)",
            "*finding(s) on * neighbours",
            f"*seed {seed} (derived from the test's node id); reproduce with "
            f"pytest test_replay_bad.py::test_broken --privaudit-seed {seed}",
        ]
    )
