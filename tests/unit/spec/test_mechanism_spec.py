"""MechanismSpec: JSON round-trip, hashing, and refusal of contradictory claims."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from privaudit.spec import (
    AdditiveNoise,
    ApproxDP,
    Categorical,
    DatasetDomain,
    DiscreteLaplace,
    EdgeNeighbouring,
    Exponential,
    Gaussian,
    GaussianDP,
    GlobalSensitivity,
    Gumbel,
    InconsistentSpecError,
    InverseQuartic,
    Laplace,
    LocalRelation,
    MechanismSpec,
    NoisyArgmax,
    NonMonotoneRelationError,
    PureDP,
    QueryDistance,
    RandomizedResponse,
    RandomizedResponseLaw,
    RealInterval,
    Reference,
    RenyiDP,
    SmoothSensitivityBound,
    SmoothSensitivityNoise,
    SubstituteOne,
    UnsupportedCombinationError,
    VectorDomain,
    ZeroConcentratedDP,
)

DATA = DatasetDomain(record=RealInterval(lo=0.0, hi=1.0), size=10)
SCORES = VectorDomain(element=RealInterval(lo=-100.0, hi=100.0), length=4)


def additive(law, guarantee, delta_f=1.0, norm="l1", dim=1, **kw):
    return MechanismSpec(
        name="m",
        input_domain=DATA,
        relation=SubstituteOne(),
        output_dimension=dim,
        sensitivity=(GlobalSensitivity(value=delta_f, norm=norm),),
        noise=AdditiveNoise(law=law, **kw),
        guarantee=guarantee,
    )


def smooth(law, alpha, beta, guarantee, **kw):
    return MechanismSpec(
        name="s",
        input_domain=DATA,
        relation=SubstituteOne(),
        sensitivity=(SmoothSensitivityBound(beta=beta),),
        noise=SmoothSensitivityNoise(law=law, alpha=alpha),
        guarantee=guarantee,
        **kw,
    )


def argmax(law, guarantee, delta_f=1.0, monotone=False, monotone_relation=None):
    one_way = monotone if monotone_relation is None else monotone_relation
    return MechanismSpec(
        name="a",
        input_domain=SCORES,
        relation=QueryDistance(norm="linf", radius=delta_f, monotone=one_way),
        sensitivity=(GlobalSensitivity(value=delta_f, norm="linf"),),
        noise=NoisyArgmax(law=law, monotone=monotone),
        guarantee=guarantee,
    )


def full_spec() -> MechanismSpec:
    return MechanismSpec(
        name="laplace_mean",
        version="2",
        summary="mean plus Laplace noise",
        references=(Reference(citation="Dwork et al. 2006", locator="Prop. 1"),),
        input_domain=DATA,
        relation=SubstituteOne(),
        statistic="mean",
        sensitivity=(GlobalSensitivity(value=0.1),),
        noise=AdditiveNoise(law=Laplace(scale=0.1)),
        guarantee=PureDP(epsilon=1.0),
        notes="textbook",
    )


# ---- serialisation ------------------------------------------------------------------------
def test_full_spec_round_trips_and_hashes_stably():
    s = full_spec()
    back = MechanismSpec.from_json(s.to_json())
    assert back == s and back.content_hash == s.content_hash
    assert s.content_hash.startswith("sha256:") and len(s.content_hash) == 71


@pytest.mark.parametrize(
    "update",
    [
        {"version": "3"},
        {"statistic": "median"},
        {"guarantee": PureDP(epsilon=1.5)},
        {"noise": AdditiveNoise(law=Laplace(scale=0.2))},
        {"numerics": "idealized", "notes": "x"},
    ],
)
def test_any_change_of_a_claim_changes_the_hash(update):
    s = full_spec()
    changed = MechanismSpec.model_validate(
        {
            **s.model_dump(),
            **{k: (v.model_dump() if hasattr(v, "model_dump") else v) for k, v in update.items()},
        }
    )
    assert changed.content_hash != s.content_hash


def test_describe_lists_the_claims():
    text = full_spec().describe()
    for needle in (
        "laplace_mean",
        "pure_dp(epsilon=1.0)",
        "substitute_one",
        "global(value=0.1",
        "laplace(scale=0.1)",
        "Dwork et al. 2006",
        "sha256:",
    ):
        assert needle in text, needle


# ---- additive noise -----------------------------------------------------------------------
@given(
    eps=st.floats(min_value=1e-3, max_value=20), delta_f=st.floats(min_value=1e-6, max_value=1e3)
)
def test_laplace_at_exactly_delta_over_epsilon_is_accepted(eps, delta_f):
    additive(Laplace(scale=delta_f / eps), PureDP(epsilon=eps), delta_f=delta_f)


@given(eps=st.floats(min_value=1e-3, max_value=20), shrink=st.floats(min_value=1e-6, max_value=0.9))
def test_laplace_below_delta_over_epsilon_is_refused(eps, shrink):
    with pytest.raises(InconsistentSpecError, match="more than the claimed"):
        additive(Laplace(scale=(1 - shrink) / eps), PureDP(epsilon=eps))


def test_gaussian_cannot_claim_pure_dp():
    with pytest.raises(UnsupportedCombinationError, match="not pure DP"):
        additive(Gaussian(sigma=10.0), PureDP(epsilon=1.0), norm="l2")


def test_analytic_gaussian_checked_against_the_exact_profile():
    # Balle & Wang 2018: σ ≈ 3.7305 for (ε, δ) = (1, 1e-5), Δ = 1.
    additive(
        Gaussian(sigma=3.731), ApproxDP(epsilon=1.0, delta=1e-5), norm="l2", calibration="analytic"
    )
    with pytest.raises(InconsistentSpecError, match=r"delta\(1\)"):
        additive(Gaussian(sigma=3.70), ApproxDP(epsilon=1.0, delta=1e-5), norm="l2")


def test_classical_gaussian_calibration_only_below_epsilon_one():
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5
    additive(
        Gaussian(sigma=sigma), ApproxDP(epsilon=0.5, delta=1e-5), norm="l2", calibration="classical"
    )
    with pytest.raises(UnsupportedCombinationError, match="epsilon < 1"):
        big = math.sqrt(2 * math.log(1.25 / 1e-5)) / 1.5
        additive(
            Gaussian(sigma=big * 3),
            ApproxDP(epsilon=1.5, delta=1e-5),
            norm="l2",
            calibration="classical",
        )
    with pytest.raises(InconsistentSpecError, match="sigma >="):
        additive(
            Gaussian(sigma=sigma * 0.99 + 1e-9),
            ApproxDP(epsilon=0.5, delta=1e-5),
            norm="l2",
            calibration="classical",
        )


def test_gaussian_in_zcdp_gdp_and_renyi_currencies():
    additive(Gaussian(sigma=2.0), ZeroConcentratedDP(rho=1 / 8), norm="l2")
    with pytest.raises(InconsistentSpecError):
        additive(Gaussian(sigma=2.0), ZeroConcentratedDP(rho=1 / 9), norm="l2")
    additive(Gaussian(sigma=2.0), GaussianDP(mu=0.5), norm="l2")
    with pytest.raises(InconsistentSpecError):
        additive(Gaussian(sigma=2.0), GaussianDP(mu=0.49), norm="l2")
    additive(Gaussian(sigma=2.0), RenyiDP(alpha=4.0, epsilon=0.5), norm="l2")
    with pytest.raises(InconsistentSpecError):
        additive(Gaussian(sigma=2.0), RenyiDP(alpha=4.0, epsilon=0.49), norm="l2")
    with pytest.raises(UnsupportedCombinationError):
        additive(Laplace(scale=1.0), GaussianDP(mu=1.0))


def test_laplace_renyi_curve_is_mironovs():
    lam, a = 1.0, 2.0
    expected = math.log(
        a / (2 * a - 1) * math.exp((a - 1) * lam) + (a - 1) / (2 * a - 1) * math.exp(-a * lam)
    ) / (a - 1)
    additive(Laplace(scale=1.0), RenyiDP(alpha=a, epsilon=expected))
    with pytest.raises(InconsistentSpecError):
        additive(Laplace(scale=1.0), RenyiDP(alpha=a, epsilon=expected * 0.999))


def test_l1_l2_confusion_is_refused_on_vector_outputs():
    with pytest.raises(UnsupportedCombinationError, match="needs an l1"):
        additive(Laplace(scale=1.0), PureDP(epsilon=1.0), norm="l2", dim=3)
    additive(Laplace(scale=1.0), PureDP(epsilon=1.0), norm="l1", dim=3)
    with pytest.raises(UnsupportedCombinationError):
        additive(Gaussian(sigma=5.0), ApproxDP(epsilon=1.0, delta=1e-5), norm="linf", dim=3)


def test_discrete_laws_need_integer_sensitivity():
    with pytest.raises(InconsistentSpecError, match="integer sensitivity"):
        additive(DiscreteLaplace(scale=2.0), PureDP(epsilon=1.0), delta_f=0.5)
    additive(DiscreteLaplace(scale=2.0), PureDP(epsilon=0.5), delta_f=1.0)


def test_exact_numerics_need_a_discrete_law():
    with pytest.raises(InconsistentSpecError, match="idealized"):
        MechanismSpec(
            name="x",
            input_domain=DATA,
            relation=SubstituteOne(),
            sensitivity=(GlobalSensitivity(value=1.0),),
            noise=AdditiveNoise(law=Laplace(scale=1.0)),
            guarantee=PureDP(epsilon=1.0),
            numerics="exact",
        )


def test_additive_noise_needs_a_global_claim():
    with pytest.raises(InconsistentSpecError, match="global sensitivity"):
        MechanismSpec(
            name="x",
            input_domain=DATA,
            relation=SubstituteOne(),
            noise=AdditiveNoise(law=Laplace(scale=1.0)),
            guarantee=PureDP(epsilon=1.0),
        )


def test_duplicate_claims_and_unproven_without_notes_are_refused():
    with pytest.raises(InconsistentSpecError, match="more than one"):
        MechanismSpec(
            name="x",
            input_domain=DATA,
            relation=SubstituteOne(),
            sensitivity=(GlobalSensitivity(value=1.0), GlobalSensitivity(value=2.0)),
            guarantee=PureDP(epsilon=1.0),
        )
    with pytest.raises(InconsistentSpecError, match="notes"):
        MechanismSpec(
            name="x",
            input_domain=DATA,
            relation=SubstituteOne(),
            guarantee=PureDP(epsilon=1.0),
            proof_status="unproven",
        )


def test_relation_must_fit_the_domain():
    with pytest.raises(UnsupportedCombinationError, match="not defined"):
        MechanismSpec(
            name="x", input_domain=DATA, relation=EdgeNeighbouring(), guarantee=PureDP(epsilon=1.0)
        )


# ---- smooth sensitivity -----------------------------------------------------------------------
@pytest.mark.parametrize("eps,delta", [(1.0, 1e-6), (0.5, 1e-3), (2.0, 1e-9)])
def test_smooth_laplace_constants(eps, delta):
    beta = eps / (2 * math.log(2 / delta))
    smooth(Laplace(scale=1.0), eps / 2, beta, ApproxDP(epsilon=eps, delta=delta))
    with pytest.raises(InconsistentSpecError, match="beta <="):
        smooth(Laplace(scale=1.0), eps / 2, beta * 1.01, ApproxDP(epsilon=eps, delta=delta))
    with pytest.raises(InconsistentSpecError, match="a <="):
        smooth(Laplace(scale=1.0), eps / 2 * 1.01, beta, ApproxDP(epsilon=eps, delta=delta))
    with pytest.raises(UnsupportedCombinationError):
        smooth(Laplace(scale=1.0), eps / 2, beta, PureDP(epsilon=eps))


def test_smooth_inverse_quartic_constants():
    e = 0.3
    # The paper (Chaudhuri et al. 2024, Lemma 2 read as 10ε) with a = β = ε: accepted.
    smooth(InverseQuartic(scale=1.0), e, e, PureDP(epsilon=10 * e))
    # The tight constant (3 + 3^{3/4})ε ≈ 5.2795ε: accepted; anything below: refused.
    smooth(InverseQuartic(scale=1.0), e, e, PureDP(epsilon=(3 + 3**0.75) * e))
    with pytest.raises(InconsistentSpecError, match="more than the claimed"):
        smooth(InverseQuartic(scale=1.0), e, e, PureDP(epsilon=5.2 * e))
    with pytest.raises(InconsistentSpecError, match="standardised"):
        smooth(InverseQuartic(scale=2.0), e, e, PureDP(epsilon=10 * e))
    with pytest.raises(UnsupportedCombinationError):
        smooth(Gaussian(sigma=1.0), e, e, ApproxDP(epsilon=10 * e, delta=1e-5))


def test_unproven_claims_are_marked():
    s = smooth(
        InverseQuartic(scale=1.0),
        1.0,
        1.0,
        PureDP(epsilon=10.0),
        proof_status="unproven",
        notes="paper-mode smooth bound is not a valid local-sensitivity bound",
    )
    assert s.proof_status == "unproven" and "unproven" in s.describe()


# ---- selection and randomized response ----------------------------------------------------------
def test_noisy_argmax_constants():
    eps = 1.0
    argmax(Gumbel(scale=2.0 / eps), PureDP(epsilon=eps))
    argmax(Gumbel(scale=1.0 / eps), PureDP(epsilon=eps), monotone=True)
    with pytest.raises(InconsistentSpecError):
        argmax(Gumbel(scale=1.0 / eps), PureDP(epsilon=eps))
    # a non-monotone mechanism is private under the (smaller) monotone relation too
    argmax(Gumbel(scale=2.0 / eps), PureDP(epsilon=eps), monotone_relation=True)
    # bounded range: the exponential mechanism is ε²/8-zCDP (Cesar & Rogers 2021) ...
    argmax(Gumbel(scale=2.0 / eps), ZeroConcentratedDP(rho=eps**2 / 8))
    # ... but permute-and-flip (exponential noise) is not: the OpenDP #2911 bug class.
    with pytest.raises(InconsistentSpecError, match="rho"):
        argmax(Exponential(scale=2.0 / eps), ZeroConcentratedDP(rho=eps**2 / 8))
    argmax(Laplace(scale=2.0 / eps), PureDP(epsilon=eps))


@pytest.mark.parametrize("law", [Gumbel(scale=1.0), Laplace(scale=1.0), Exponential(scale=1.0)])
def test_monotone_argmax_is_refused_under_a_two_sided_relation(law):
    """Issue 28: the halved noise of a monotone argmax is only 2ε-DP when scores may move
    both ways, so the claim must be declared on the relation."""
    with pytest.raises(NonMonotoneRelationError, match="one score may rise while another falls"):
        argmax(law, PureDP(epsilon=1.0), monotone=True, monotone_relation=False)
    assert issubclass(NonMonotoneRelationError, InconsistentSpecError)


def test_randomized_response_constants():
    dom, rel = Categorical(size=3), LocalRelation()
    law = RandomizedResponseLaw.from_epsilon(1.0, 3)
    MechanismSpec(
        name="rr",
        input_domain=dom,
        relation=rel,
        noise=RandomizedResponse(law=law),
        guarantee=PureDP(epsilon=1.0),
    )
    with pytest.raises(InconsistentSpecError):
        MechanismSpec(
            name="rr",
            input_domain=dom,
            relation=rel,
            noise=RandomizedResponse(law=law),
            guarantee=PureDP(epsilon=0.9),
        )
    with pytest.raises(InconsistentSpecError, match="categories"):
        MechanismSpec(
            name="rr",
            input_domain=Categorical(size=4),
            relation=rel,
            noise=RandomizedResponse(law=law),
            guarantee=PureDP(epsilon=1.0),
        )
