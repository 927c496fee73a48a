"""Sampler outputs that do not fit the spec are input errors, never violations (issue 44, 8).

Every draw of an audit enters through :func:`privaudit.auditing.sampler_outputs.draw_outputs`:
a wrong shape or number of outputs, NaN, ±inf where the declared output is finite, and
values that are not numbers raise a :class:`~privaudit.spec.errors.SamplerOutputError`
from ``audit()`` (exit 2 in the CLI, one line), whichever check draws first.  Well-formed
outputs give the same report, to the bit, as with no check at all.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

import privaudit.auditing.sampler_outputs as sampler_outputs
from privaudit import audit
from privaudit.auditing.one_run.audit import one_run_audit
from privaudit.auditing.one_run.canaries import ablq_canaries
from privaudit.auditing.sampler_outputs import check_outputs, draw_outputs
from privaudit.examples.custom_mechanism import build_noisy_histogram
from privaudit.examples.finite_randomizer import build_unary_encoding
from privaudit.examples.group_privacy import build_degrees_laplace
from privaudit.examples.lndp_mechanism import build_probe_partner
from privaudit.execution.forked import ForkedPairsExecutor
from privaudit.mechanisms import (
    LaplaceMechanism,
    Mechanism,
    RandomizedResponseMechanism,
    declare_mechanism,
)
from privaudit.mechanisms.dpsgd import ABLQMechanism
from privaudit.spec import (
    AdditiveNoise,
    DatasetDomain,
    GlobalSensitivity,
    Laplace,
    MechanismSpec,
    PureDP,
    RealInterval,
    SubstituteOne,
)
from privaudit.spec.errors import (
    AuditError,
    InputShapeError,
    InvalidInputError,
    NonFiniteInputError,
    NonFiniteOutputError,
    NonNumericInputError,
    NonNumericOutputError,
    OutputShapeError,
    PrivauditError,
    SamplerOutputError,
)

N, EPS = 100, 1.0
SMALL = {"samples": 4_000, "pilot_samples": 1_000, "pair_budget": 8, "seed": 0}
X = np.full(N, 0.5)


def _spec(*, noise: bool = True, dim: int = 1) -> MechanismSpec:
    return MechanismSpec(
        name="noisy_mean",
        input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N),
        relation=SubstituteOne(),
        statistic="mean of the records" + (f", {dim} times" if dim > 1 else ""),
        output_dimension=dim,
        sensitivity=(GlobalSensitivity(value=1.0 / N, norm="l1"),),
        noise=AdditiveNoise(law=Laplace(scale=dim / (N * EPS))) if noise else None,
        guarantee=PureDP(epsilon=EPS),
    )


class _Sampled(Mechanism):
    """A mechanism whose ``_sample`` returns what ``make(mean, size, rng)`` returns, as is
    (no guard of :class:`~privaudit.mechanisms.FunctionMechanism` in front of the audit)."""

    def __init__(self, spec: MechanismSpec, make: Any) -> None:
        super().__init__(spec)
        self._make = make

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> Any:
        return self._make(float(np.mean(data)), size, rng)

    def statistic(self, data: Any) -> Any:
        mean = float(np.mean(data))
        dim = self.spec.output_dimension
        return mean if dim == 1 else np.full(dim, mean)


def _laplace(mean: float, size: int, rng: np.random.Generator, dim: int = 1) -> np.ndarray:
    shape = (size,) if dim == 1 else (size, dim)
    return mean + rng.laplace(0.0, dim / (N * EPS), shape)


def _with_first(value: float, count: int, dim: int = 1, coordinate: int = 0) -> Any:
    """Laplace outputs whose first ``count`` outputs are ``value`` (in ``coordinate``)."""

    def make(mean: float, size: int, rng: np.random.Generator) -> np.ndarray:
        out = _laplace(mean, size, rng, dim)
        if dim == 1:
            out[:count] = value
        else:
            out[:count, coordinate] = value
        return out

    return make


def _no_object_repr(err: BaseException) -> None:
    assert " at 0x" not in str(err) and "<" not in str(err).replace("<U", "")


# --- the rule -------------------------------------------------------------------------------


def test_a_wrong_shape_for_a_scalar_statistic_is_an_input_error_not_a_violation():
    wide = _Sampled(_spec(), lambda m, size, rng: np.column_stack([_laplace(m, size, rng)] * 3))
    with pytest.raises(OutputShapeError) as err:
        audit(wide, **SMALL)
    assert re.fullmatch(
        r"sampler 'noisy_mean' returned shape \((\d+), 3\) for a scalar output; "
        r"expected \(\1,\)",
        str(err.value),
    ), str(err.value)
    # one hierarchy: an input error, not an auditor failure
    assert isinstance(err.value, InvalidInputError) and isinstance(err.value, InputShapeError)
    assert not isinstance(err.value, AuditError)
    _no_object_repr(err.value)


def test_the_exact_shape_message():
    mech = _Sampled(_spec(), lambda m, size, rng: np.zeros((size, 3)))
    with pytest.raises(OutputShapeError) as err:
        draw_outputs(mech, X, 50_000, np.random.default_rng(0))
    assert str(err.value) == (
        "sampler 'noisy_mean' returned shape (50000, 3) for a scalar output; expected (50000,)"
    )


@pytest.mark.parametrize("value, label", [(np.nan, "NaN"), (np.inf, "+inf"), (-np.inf, "-inf")])
def test_nan_and_infinite_outputs_are_named_and_counted(value, label):
    count = {"NaN": 2, "+inf": 3, "-inf": 4}[label]
    mech = _Sampled(_spec(), _with_first(value, count))
    with pytest.raises(NonFiniteOutputError) as err:
        draw_outputs(mech, X, 50_000, np.random.default_rng(0))
    message = str(err.value)
    assert message.startswith(f"sampler 'noisy_mean': {count} of 50000 outputs are {label}")
    assert "support" not in message
    assert isinstance(err.value, NonFiniteInputError)
    # and through audit(): the error, not a report
    counted = rf"{count} of \d+ outputs are {re.escape(label)}"
    with pytest.raises(NonFiniteOutputError, match=counted):
        audit(mech, **SMALL)


def test_nan_and_both_infinities_together_are_all_named():
    def make(mean: float, size: int, rng: np.random.Generator) -> np.ndarray:
        out = _laplace(mean, size, rng)
        out[:2], out[2:5], out[-1] = np.nan, np.inf, -np.inf
        return out

    with pytest.raises(NonFiniteOutputError) as err:
        draw_outputs(_Sampled(_spec(), make), X, 1000, np.random.default_rng(0))
    assert str(err.value) == (
        "sampler 'noisy_mean': 2 of 1000 outputs are NaN; 3 of 1000 outputs are +inf; "
        "1 of 1000 outputs are -inf (the spec's AdditiveNoise releases finite numbers)"
    )


def test_a_black_box_spec_admits_infinities_but_never_nan():
    """``noise=None`` declares no output space: ±inf are values; NaN is never one."""
    black_box = _spec(noise=False)
    inf_ok = _Sampled(black_box, _with_first(np.inf, 3))
    out = draw_outputs(inf_ok, X, 1000, np.random.default_rng(0))
    assert np.count_nonzero(np.isposinf(out)) == 3
    nan = _Sampled(black_box, _with_first(np.nan, 2))
    with pytest.raises(NonFiniteOutputError, match="2 of 1000 outputs are NaN"):
        draw_outputs(nan, X, 1000, np.random.default_rng(0))
    # no conformance check runs without a declared law: the pair ranking draws first
    with pytest.raises(NonFiniteOutputError, match=r"2 of \d+ outputs are NaN"):
        audit(nan, **SMALL)


def test_a_finite_sum_overflow_is_not_a_non_finite_output():
    mech = _Sampled(_spec(noise=False), lambda m, size, rng: np.full(size, 1e308))
    assert draw_outputs(mech, X, 10, np.random.default_rng(0)).shape == (10,)


@pytest.mark.parametrize(
    "make, needle",
    [
        (lambda m, s, r: np.array([None] + [0.5] * (s - 1), dtype=object), "dtype object"),
        (lambda m, s, r: np.array(["0.5"] * s), "(text)"),
        (lambda m, s, r: _laplace(m, s, r).astype(str), "(text)"),
        (lambda m, s, r: None, "returned None"),
        (lambda m, s, r: {"mean": m}, "returned a dict"),
        (lambda m, s, r: _laplace(m, s, r) + 0j, "dtype complex128; expected real numbers"),
        (lambda m, s, r: [[0.5], [0.5, 0.5]] * (s // 2), "not a rectangular array"),
        (lambda m, s, r: {0.5}, "returned a set"),
    ],
)
def test_outputs_that_are_not_numbers_are_input_errors(make, needle):
    mech = _Sampled(_spec(), make)
    with pytest.raises(NonNumericOutputError) as err:
        draw_outputs(mech, X, 1000, np.random.default_rng(0))
    assert needle in str(err.value) and str(err.value).startswith("sampler 'noisy_mean'")
    assert isinstance(err.value, NonNumericInputError)
    _no_object_repr(err.value)
    with pytest.raises(NonNumericOutputError):
        audit(mech, **SMALL)


def test_an_object_array_names_its_first_non_number():
    def make(mean: float, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.array([0.5, 1, "x"] + [0.5] * (size - 3), dtype=object)

    with pytest.raises(NonNumericOutputError) as err:
        draw_outputs(_Sampled(_spec(), make), X, 10, np.random.default_rng(0))
    assert str(err.value) == (
        "sampler 'noisy_mean': outputs have dtype object (output value 2 is a str); "
        "expected numbers"
    )


def test_the_wrong_number_of_outputs_is_an_input_error():
    short = _Sampled(_spec(), lambda m, size, rng: _laplace(m, size - 1, rng))
    with pytest.raises(OutputShapeError) as err:
        draw_outputs(short, X, 2000, np.random.default_rng(0))
    assert str(err.value) == (
        "sampler 'noisy_mean' returned 1999 outputs for size=2000 (shape (1999,); expected (2000,))"
    )
    with pytest.raises(OutputShapeError, match="outputs for size="):
        audit(short, **SMALL)
    # a declared mechanism's own guard says the same, in the same family
    declared = declare_mechanism(
        _spec(), sampler=lambda x, size, rng: _laplace(x.mean(), size + 1, rng)
    )
    with pytest.raises(OutputShapeError, match=r"returned \d+ outputs for size=\d+"):
        audit(declared, **SMALL)
    for returned, needle in ((None, "returned None"), (0.5, "returned a single number")):
        bad = declare_mechanism(_spec(), sampler=lambda x, size, rng, v=returned: v)
        with pytest.raises(SamplerOutputError, match=needle):
            audit(bad, **SMALL)


def test_a_vector_output_names_its_bad_coordinate():
    mech = _Sampled(_spec(dim=3), _with_first(np.nan, 5, dim=3, coordinate=1))
    with pytest.raises(NonFiniteOutputError) as err:
        draw_outputs(mech, X, 1000, np.random.default_rng(0))
    assert str(err.value) == (
        "sampler 'noisy_mean': 5 of 1000 outputs are NaN (in coordinate 1 of 3)"
    )
    with pytest.raises(NonFiniteOutputError, match=r"5 of \d+ outputs are NaN \(in coordinate 1"):
        audit(mech, **SMALL)
    narrow = _Sampled(_spec(dim=3), lambda m, size, rng: _laplace(m, size, rng, dim=2))
    with pytest.raises(OutputShapeError) as err:
        draw_outputs(narrow, X, 1000, np.random.default_rng(0))
    assert str(err.value) == (
        "sampler 'noisy_mean' returned shape (1000, 2) for a 3-dimensional output; "
        "expected (1000, 3)"
    )
    flat = _Sampled(_spec(dim=3), lambda m, size, rng: _laplace(m, size, rng, dim=3).ravel())
    with pytest.raises(OutputShapeError, match=r"shape \(3000,\) for a 3-dimensional output"):
        draw_outputs(flat, X, 1000, np.random.default_rng(0))


def test_well_formed_outputs_of_every_kind_pass_unchanged():
    """Scalars as (N,) or (N, 1), vectors, integers, categories, finite-randomizer bits,
    local-node messages (a layout) and booleans: returned as drawn, the same array."""
    cases = [
        (LaplaceMechanism(1.0, 1.0), 0.0),
        (RandomizedResponseMechanism(1.0, categories=4), 2),
        (build_noisy_histogram(), np.zeros(200, dtype=np.int64)),
        (build_unary_encoding(), 1),
        (build_probe_partner(), build_probe_partner().spec.input_domain.sample(0)),
        (build_degrees_laplace(), build_degrees_laplace().spec.input_domain.sample(0)),
    ]
    for mech, x in cases:
        drawn = np.asarray(mech.sample(x, 500, np.random.default_rng(5)))
        checked = draw_outputs(mech, x, 500, np.random.default_rng(5))
        assert checked.dtype == drawn.dtype and np.array_equal(checked, drawn), mech.name
    column = _Sampled(_spec(), lambda m, size, rng: _laplace(m, size, rng)[:, None])
    assert draw_outputs(column, X, 7, np.random.default_rng(0)).shape == (7, 1)
    bits = _Sampled(_spec(), lambda m, size, rng: rng.random(size) < 0.5)
    assert draw_outputs(bits, X, 7, np.random.default_rng(0)).dtype == bool
    raw = [0.1, 0.2, 0.3]
    assert check_outputs(LaplaceMechanism(1.0, 1.0), raw, 3).tolist() == raw


def test_the_errors_cross_process_boundaries_with_their_class():
    for cls in (OutputShapeError, NonFiniteOutputError, NonNumericOutputError):
        again = pickle.loads(pickle.dumps(cls("sampler 'm': 2 of 10 outputs are NaN")))
        assert type(again) is cls and str(again) == "sampler 'm': 2 of 10 outputs are NaN"
        assert issubclass(cls, SamplerOutputError) and issubclass(cls, PrivauditError)


# --- every place an audit draws -------------------------------------------------------------


class _GoesBad(Mechanism):
    """``inner`` (its spec and hooks), whose outputs get NaN in one coordinate from the
    ``after``-th call of ``sample`` on (0: every call)."""

    def __init__(self, inner: Mechanism, after: int = 0) -> None:
        super().__init__(inner.spec)
        self._inner, self._after, self.calls = inner, after, 0

    def provides(self, hook: str) -> bool:
        return self._inner.provides(hook)

    def _sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        out = np.array(self._inner.sample(data, size, rng), dtype=np.float64)
        self.calls += 1
        if self.calls > self._after:
            (out[:1] if out.ndim == 1 else out[:1, -1:])[...] = np.nan
        return out

    def statistic(self, data: Any) -> Any:
        return self._inner.statistic(data)

    def output_probabilities(self, data: Any) -> np.ndarray:
        return self._inner.output_probabilities(data)

    def node_exposure(self) -> np.ndarray:
        return self._inner.node_exposure()

    def __getattr__(self, name: str) -> Any:  # rho, layout … of a declared mechanism
        return getattr(self._inner, name)


def test_the_noise_law_check_the_time_budget_pilot_and_a_group_audit_refuse_nan():
    with pytest.raises(NonFiniteOutputError, match="1 of"):  # the noise-law check
        audit(_GoesBad(LaplaceMechanism(1.0, 1.0)), **SMALL)
    with pytest.raises(NonFiniteOutputError, match="1 of 1 outputs are NaN"):  # the pilot
        audit(_GoesBad(LaplaceMechanism(1.0, 1.0)), time_budget=5.0, seed=0)
    with pytest.raises(NonFiniteOutputError):
        audit(_GoesBad(build_degrees_laplace()), group=2, **SMALL)


def test_a_local_node_mechanism_with_a_layout_names_the_bad_message_coordinate():
    inner = build_probe_partner()
    last = inner.spec.output_dimension - 1
    with pytest.raises(NonFiniteOutputError, match=rf"\(in coordinate {last} of {last + 1}\)"):
        audit(_GoesBad(inner), **SMALL)


@pytest.mark.parametrize("executor", [None, "threads"])
def test_a_sampler_that_goes_bad_in_the_distinguishing_test_stops_the_audit(executor):
    """Good outputs for the noise-law check and the pair ranking, NaN afterwards: the
    error comes out of the test split's streamed blocks, not a verdict."""
    inner = build_noisy_histogram()
    probe = _GoesBad(inner, after=10**9)
    audit(probe, **SMALL)
    # the last two calls draw the test split
    with pytest.raises(NonFiniteOutputError, match=r"1 of \d+ outputs are NaN \(in coordinate 4"):
        audit(_GoesBad(inner, after=probe.calls - 2), executor=executor, **SMALL)


def test_a_sampler_that_goes_bad_in_a_forked_child_stops_the_audit():
    """The ``processes`` executor's pair tests run in forked children: the error comes
    back to the parent with its class and message."""
    parent = os.getpid()

    def make(mean: float, size: int, rng: np.random.Generator) -> np.ndarray:
        out = _laplace(mean, size, rng, dim=3)
        if os.getpid() != parent:
            out[:1, 2] = np.nan
        return out

    black_box = _Sampled(_spec(noise=False, dim=3), make)
    with pytest.raises(NonFiniteOutputError, match=r"1 of \d+ outputs are NaN \(in coordinate 2"):
        audit(black_box, executor=ForkedPairsExecutor(2), pairs_tested=2, **SMALL)


def test_the_one_run_canaries_refuse_nan():
    mech = _GoesBad(ABLQMechanism("shuffle", 20, 4, 5, 0.5, dim=20))
    release, score = ablq_canaries(mech)
    with pytest.raises(NonFiniteOutputError, match="1 of 1 outputs are NaN"):
        one_run_audit(release, score, 20, k_plus=2, rng=0)


# --- well-formed outputs: the same reports --------------------------------------------------


def _report(mechanism: Mechanism, **options: Any) -> dict:
    data = json.loads(audit(mechanism, **SMALL, **options).to_json())
    data.pop("runtime_seconds")
    data.pop("versions")
    return data


@pytest.mark.parametrize(
    "build, options",
    [
        (lambda: LaplaceMechanism(1.0, 1.0), {}),
        (lambda: RandomizedResponseMechanism(1.0, categories=4), {}),
        (build_noisy_histogram, {"executor": "threads"}),
        (build_unary_encoding, {}),
        (build_probe_partner, {}),
        (build_degrees_laplace, {"group": 2}),
    ],
)
def test_checked_outputs_leave_the_report_unchanged_to_the_bit(build, options, monkeypatch):
    """The check draws nothing and reorders nothing: the report with it equals the report
    with every output taken as drawn."""
    checked = _report(build(), **options)
    monkeypatch.setattr(sampler_outputs, "check_outputs", lambda m, out, size: np.asarray(out))
    assert _report(build(), **options) == checked


# --- the command line -----------------------------------------------------------------------

TARGETS = """
import numpy as np
from privaudit.mechanisms import declare_mechanism
from privaudit.spec import (AdditiveNoise, DatasetDomain, GlobalSensitivity, Laplace,
                            MechanismSpec, PureDP, RealInterval, SubstituteOne)

N = 100
SPEC = MechanismSpec(
    name="noisy_mean",
    input_domain=DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=N),
    relation=SubstituteOne(), statistic="mean",
    sensitivity=(GlobalSensitivity(value=1.0 / N),),
    noise=AdditiveNoise(law=Laplace(scale=1.0 / N)), guarantee=PureDP(epsilon=1.0))


def _laplace(x, size, rng):
    return x.mean() + rng.laplace(0.0, 1.0 / N, size)


def wide():
    return declare_mechanism(
        SPEC, sampler=lambda x, size, rng: np.column_stack([_laplace(x, size, rng)] * 3),
        statistic=lambda x: x.mean())


def nan():
    def sampler(x, size, rng):
        out = _laplace(x, size, rng)
        out[:2] = np.nan
        return out
    return declare_mechanism(SPEC, sampler=sampler, statistic=lambda x: x.mean())
"""


@pytest.mark.parametrize(
    "target, message",
    [
        (
            "wide",
            r"sampler 'noisy_mean' returned shape \((\d+), 3\) for a scalar output; "
            r"expected \(\1,\)",
        ),
        ("nan", r"sampler 'noisy_mean': 2 of \d+ outputs are NaN"),
    ],
)
def test_the_cli_exits_2_with_one_line(tmp_path, target, message):
    (tmp_path / "targets.py").write_text(textwrap.dedent(TARGETS))
    out = subprocess.run(
        [sys.executable, "-m", "privaudit", "audit", f"targets.py:{target}", "--samples", "20000"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert re.fullmatch(rf"privaudit: error: {message}", lines[0]), lines[0]
    assert "VIOLATION" not in out.stdout


# --- one door -------------------------------------------------------------------------------


def test_no_module_of_the_auditor_calls_a_sampler_but_draw_outputs():
    """Every ``.sample(...)`` call in ``privaudit/auditing`` draws from a declared law or an
    input domain, except :func:`draw_outputs` itself and the group-claim wrapper's
    ``_sample`` (whose outputs its caller's ``draw_outputs`` checks)."""
    import ast
    import pathlib

    root = pathlib.Path(sampler_outputs.__file__).parent
    allowed = {("sampler_outputs.py", "mechanism"), ("group_privacy.py", "self._inner")}
    offenders = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "sample"
            ):
                continue
            receiver = ast.unparse(node.func.value)
            if receiver.endswith(("law", "domain")) or (path.name, receiver) in allowed:
                continue
            offenders.append(f"{path.relative_to(root)}:{node.lineno}: {receiver}.sample(...)")
    assert not offenders, offenders


# -- a sampler that never returns ------------------------------------------------------------
def _hanging(kind: str):
    import time as _time

    from privaudit.mechanisms import LaplaceMechanism, declare_mechanism

    def spin(x, size, rng):
        while True:
            pass

    def sleep(x, size, rng):
        _time.sleep(3600)

    return declare_mechanism(
        LaplaceMechanism(1.0, 1.0).spec, spin if kind == "spin" else sleep, statistic=float
    )


@pytest.mark.parametrize("kind", ["spin", "sleep"])
def test_a_sampler_that_never_returns_stops_the_audit_with_a_named_error(kind):
    import signal

    from privaudit import audit
    from privaudit.spec.errors import SamplerOutputError, SamplerTimeoutError

    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(SamplerTimeoutError, match="did not return .* within 0.5 s") as caught:
        audit(_hanging(kind), sampler_timeout=0.5, samples=1_000)
    assert isinstance(caught.value, SamplerOutputError)  # an input error: exit 2 in the CLI
    assert signal.getsignal(signal.SIGALRM) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_the_time_budget_bounds_every_sampler_call():
    from privaudit import audit
    from privaudit.spec.errors import SamplerTimeoutError

    with pytest.raises(SamplerTimeoutError, match="within 1 s"):
        audit(_hanging("spin"), time_budget=1.0)


def test_the_cli_stops_a_hanging_sampler_with_exit_code_2(tmp_path):
    import subprocess
    import sys

    target = tmp_path / "hang.py"
    target.write_text(
        "from privaudit.mechanisms import LaplaceMechanism, declare_mechanism\n"
        "def spin(x, size, rng):\n"
        "    while True:\n"
        "        pass\n"
        "mech = declare_mechanism(LaplaceMechanism(1.0, 1.0).spec, spin)\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "privaudit", "audit", f"{target}:mech", "--time-budget", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "did not return" in done.stderr and "Traceback" not in done.stderr
