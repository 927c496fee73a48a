"""Unit tests of spec.domains: parameters, serialisation, validation, sampling, enumeration."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from privaudit.spec.domains import (
    Categorical,
    DatasetDomain,
    GraphDomain,
    InputDomain,
    IntegerRange,
    RealInterval,
    RecordDomain,
    ScalarDomain,
    VectorDomain,
)
from privaudit.spec.errors import (
    InvalidGraphError,
    InvalidInputError,
    InvalidParameterError,
    UnsupportedCombinationError,
)

FAST = settings(max_examples=40, deadline=None)

# ----------------------------------------------------------------------------------------
# strategies
# ----------------------------------------------------------------------------------------
finite_floats = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@st.composite
def real_intervals(draw: st.DrawFn) -> RealInterval:
    lo = draw(finite_floats)
    width = draw(st.floats(min_value=1e-3, max_value=1e6))
    side = draw(st.sampled_from(["both", "lo", "hi", "none"]))
    return RealInterval(
        lo=lo if side in ("both", "lo") else None,
        hi=lo + width if side in ("both", "hi") else None,
    )


@st.composite
def integer_ranges(draw: st.DrawFn) -> IntegerRange:
    lo = draw(st.none() | st.integers(-50, 50))
    hi = draw(st.none() | st.integers(-50, 50))
    if lo is not None and hi is not None and lo > hi:
        lo, hi = hi, lo
    return IntegerRange(lo=lo, hi=hi)


categoricals = st.builds(Categorical, size=st.integers(1, 6))
scalar_domains = st.one_of(real_intervals(), integer_ranges(), categoricals)
vector_domains = st.builds(VectorDomain, element=scalar_domains, length=st.integers(1, 4))
record_domains = st.one_of(scalar_domains, vector_domains)


@st.composite
def dataset_domains(draw: st.DrawFn) -> DatasetDomain:
    record = draw(record_domains)
    if draw(st.booleans()):
        return DatasetDomain(record=record, size=draw(st.integers(1, 6)))
    return DatasetDomain(record=record, min_size=draw(st.integers(1, 3)))


graph_domains = st.builds(
    GraphDomain, n_nodes=st.integers(1, 9), max_degree=st.none() | st.integers(0, 5)
)
input_domains = st.one_of(scalar_domains, vector_domains, dataset_domains(), graph_domains)

EXAMPLES = [
    RealInterval(lo=-1.5, hi=2.0),
    RealInterval(),
    RealInterval(hi=0.0),
    IntegerRange(lo=-3, hi=7),
    IntegerRange(lo=0),
    IntegerRange(),
    Categorical(size=4),
    VectorDomain(element=RealInterval(lo=0, hi=1), length=3),
    VectorDomain(element=Categorical(size=2), length=2),
    DatasetDomain(record=RealInterval(lo=0, hi=1), size=10),
    DatasetDomain(record=IntegerRange(lo=0, hi=5)),
    DatasetDomain(record=VectorDomain(element=RealInterval(lo=-1, hi=1), length=2), size=5),
    GraphDomain(n_nodes=5),
    GraphDomain(n_nodes=7, max_degree=2),
]

INPUT_ADAPTER = TypeAdapter(InputDomain)


# ----------------------------------------------------------------------------------------
# serialisation and identity
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("domain", EXAMPLES, ids=lambda d: d.label())
def test_json_round_trip_and_union(domain):
    assert type(domain).from_json(domain.to_json()) == domain
    assert INPUT_ADAPTER.validate_json(domain.to_json()) == domain
    assert INPUT_ADAPTER.validate_python(domain.model_dump()) == domain
    assert type(domain).from_json(domain.to_json()).content_hash == domain.content_hash


@FAST
@given(input_domains)
def test_any_domain_round_trips_with_stable_hash(domain):
    again = INPUT_ADAPTER.validate_json(domain.to_json(indent=None))
    assert again == domain
    assert again.content_hash == domain.content_hash
    assert hash(again) == hash(domain)


def test_scalar_and_record_unions_parse_by_kind():
    assert TypeAdapter(ScalarDomain).validate_python({"kind": "categorical", "size": 3}) == (
        Categorical(size=3)
    )
    vector = {"kind": "vector", "element": {"kind": "real_interval", "lo": 0, "hi": 1}, "length": 2}
    assert isinstance(TypeAdapter(RecordDomain).validate_python(vector), VectorDomain)


@pytest.mark.parametrize(
    ("first", "changed"),
    [
        (RealInterval(lo=0, hi=1), RealInterval(lo=0, hi=1.5)),
        (RealInterval(lo=0, hi=1), RealInterval(lo=-0.5, hi=1)),
        (RealInterval(lo=0), RealInterval(lo=0, hi=1)),
        (RealInterval(), RealInterval(lo=0)),
        (IntegerRange(lo=0, hi=3), IntegerRange(lo=0, hi=4)),
        (IntegerRange(lo=0), IntegerRange(lo=0, hi=10)),
        (Categorical(size=3), Categorical(size=4)),
        (
            VectorDomain(element=Categorical(size=3), length=2),
            VectorDomain(element=Categorical(size=3), length=3),
        ),
        (
            VectorDomain(element=Categorical(size=3), length=2),
            VectorDomain(element=IntegerRange(lo=0, hi=2), length=2),
        ),
        (
            DatasetDomain(record=Categorical(size=2), size=4),
            DatasetDomain(record=Categorical(size=2), size=5),
        ),
        (
            DatasetDomain(record=Categorical(size=2)),
            DatasetDomain(record=Categorical(size=2), min_size=2),
        ),
        (
            DatasetDomain(record=Categorical(size=2)),
            DatasetDomain(record=Categorical(size=3)),
        ),
        (GraphDomain(n_nodes=4), GraphDomain(n_nodes=5)),
        (GraphDomain(n_nodes=4), GraphDomain(n_nodes=4, max_degree=3)),
    ],
)
def test_content_hash_equal_iff_content_equal(first, changed):
    rebuilt = type(first).model_validate(first.model_dump())
    assert rebuilt.content_hash == first.content_hash
    assert changed.content_hash != first.content_hash
    assert changed != first


def test_different_kinds_with_same_values_hash_differently():
    assert IntegerRange(lo=0, hi=2).content_hash != Categorical(size=3).content_hash


# ----------------------------------------------------------------------------------------
# invalid parameters
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "kwargs", "named"),
    [
        (RealInterval, {"lo": 1.0, "hi": 1.0}, "lo=1.0"),
        (RealInterval, {"lo": 2.0, "hi": 1.0}, "hi=1.0"),
        (RealInterval, {"lo": math.nan, "hi": 1.0}, "nan"),
        (RealInterval, {"lo": 0.0, "hi": math.inf}, "inf"),
        (RealInterval, {"lo": True, "hi": 2.0}, "True"),
        (RealInterval, {"lo": "0", "hi": 2.0}, "'0'"),
        (IntegerRange, {"lo": 3, "hi": 2}, "lo=3"),
        (IntegerRange, {"lo": 0.5}, "0.5"),
        (IntegerRange, {"hi": True}, "True"),
        (IntegerRange, {"lo": 2**70}, str(2**70)),
        (Categorical, {"size": 0}, "0"),
        (Categorical, {"size": -2}, "-2"),
        (Categorical, {"size": 2.5}, "2.5"),
        (VectorDomain, {"element": Categorical(size=2), "length": 0}, "length"),
        (VectorDomain, {"element": {"kind": "graph", "n_nodes": 3}, "length": 2}, "element"),
        (DatasetDomain, {"record": Categorical(size=2), "size": 0}, "size"),
        (DatasetDomain, {"record": Categorical(size=2), "size": 2, "min_size": 3}, "min_size=3"),
        (DatasetDomain, {"record": {"kind": "graph", "n_nodes": 3}}, "record"),
        (GraphDomain, {"n_nodes": 0}, "n_nodes"),
        (GraphDomain, {"n_nodes": 3, "max_degree": -1}, "-1"),
        (Categorical, {"size": 2, "colour": "red"}, "colour"),
    ],
)
def test_invalid_parameters_are_refused_by_name(model, kwargs, named):
    with pytest.raises(InvalidParameterError) as info:
        model(**kwargs)
    assert named in str(info.value)


def test_unknown_kind_is_refused():
    with pytest.raises(InvalidParameterError):
        DatasetDomain.model_validate({"kind": "dataset", "record": {"kind": "colour"}})
    with pytest.raises(InvalidParameterError):
        Categorical.model_validate({"kind": "real_interval", "size": 3})


def test_models_are_frozen():
    domain = Categorical(size=3)
    with pytest.raises(ValidationError):
        domain.size = 4  # type: ignore[misc]  # frozen: the assignment must fail


# ----------------------------------------------------------------------------------------
# validation of inputs
# ----------------------------------------------------------------------------------------
UNIT = RealInterval(lo=0, hi=1)
DATA = DatasetDomain(record=UNIT, size=3)
VAR_DATA = DatasetDomain(record=UNIT, min_size=2)
POINTS = DatasetDomain(record=VectorDomain(element=UNIT, length=2))
COUNTS = DatasetDomain(record=IntegerRange(lo=0, hi=10), size=3)


@pytest.mark.parametrize(
    ("domain", "value", "fragment"),
    [
        (UNIT, math.nan, "nan"),
        (UNIT, math.inf, "inf"),
        (UNIT, 1.5, "1.5"),
        (UNIT, [0.5], "shape (1,)"),
        (UNIT, True, "True"),
        (UNIT, "0.5", "0.5"),
        (IntegerRange(lo=0, hi=5), 2.5, "2.5"),
        (IntegerRange(lo=0, hi=5), 6, "6"),
        (IntegerRange(), 2**70, str(2**70)),
        (IntegerRange(), np.uint64(2**63 + 5), str(2**63 + 5)),
        (Categorical(size=3), 3, "3"),
        (Categorical(size=3), -1, "-1"),
        (VectorDomain(element=UNIT, length=2), [0.5, 0.5, 0.5], "shape (3,)"),
        (VectorDomain(element=UNIT, length=2), [0.5, np.nan], "index 1"),
        (DATA, [0.1, np.nan, 0.2], "nan at index 1"),
        (DATA, [0.1, np.inf, 0.2], "inf at index 1"),
        (DATA, [0.1, -np.inf, 0.2], "-inf"),
        (DATA, [0.1, 0.2, 1.7], "1.7 at index 2"),
        (DATA, [0.1, 0.2], "n=2"),
        (DATA, [], "empty"),
        (DATA, [[0.1], [0.2], [0.3]], "shape (3, 1)"),
        (DATA, [True, False, True], "booleans"),
        (DATA, [0.1, "a", 0.2], "a"),
        (DATA, [0.1, None, 0.2], "None"),
        (DATA, [[0.1, 0.2], [0.3]], "cannot read"),
        (VAR_DATA, [0.5], "min_size=2"),
        (POINTS, [0.1, 0.2], "shape (1,)".replace("(1,)", "(2,)")),
        (POINTS, [[0.1, 0.2, 0.3]], "shape (1, 3)"),
        (POINTS, [[0.1, 0.2], [0.3, 4.0]], "index (1, 1)"),
        (POINTS, np.zeros((0, 2)), "empty"),
        (COUNTS, [1, 2, 3.5], "3.5 at index 2"),
        (COUNTS, [1, 2, 11], "11 at index 2"),
    ],
)
def test_bad_input_raises_naming_the_value(domain, value, fragment):
    with pytest.raises(InvalidInputError) as info:
        domain.validate(value)
    assert fragment in str(info.value)
    assert not domain.contains(value)


def test_canonical_values():
    assert UNIT.validate(1) == 1.0 and isinstance(UNIT.validate(1), np.float64)
    assert str(UNIT.validate(-0.0)) == "0.0" and not np.signbit(
        RealInterval(lo=-1, hi=1).validate(-0.0)
    )
    assert isinstance(IntegerRange().validate(3.0), np.int64)
    assert isinstance(Categorical(size=2).validate(np.int8(1)), np.int64)
    data = COUNTS.validate([1.0, 2, np.uint8(3)])
    assert data.dtype == np.int64 and data.tolist() == [1, 2, 3]
    points = POINTS.validate([[0, 1], [1, 0]])
    assert points.dtype == np.float64 and points.shape == (2, 2)
    original = np.array([0.1, 0.2, 0.3])
    validated = DATA.validate(original)
    validated[0] = 0.9
    assert original[0] == 0.1


def test_contains_never_raises_on_garbage():
    garbage = [object(), {"a": 1}, None, "text", [[1, 2], [3]], b"\x00", 1j, [1j]]
    for domain in EXAMPLES:
        for value in garbage:
            assert domain.contains(value) is False


# ----------------------------------------------------------------------------------------
# graphs
# ----------------------------------------------------------------------------------------
GRAPHS = GraphDomain(n_nodes=4, max_degree=2)


def _path4() -> nx.Graph:
    return nx.path_graph(4)


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (nx.DiGraph([(0, 1), (2, 3)]), "directed"),
        (nx.MultiGraph([(0, 1), (2, 3)]), "multigraph"),
        (nx.MultiDiGraph([(0, 1)]), "directed"),
        (nx.Graph([(0, 1), (1, 1), (2, 3)]), "self-loop at node 1"),
        (nx.path_graph(3), "missing nodes [3]"),
        (nx.relabel_nodes(nx.path_graph(4), {3: "x"}), "'x'"),
        (nx.path_graph(5), "unexpected nodes [4]"),
        (nx.star_graph(3), "node 0 has degree 3"),
        (np.eye(4), "self-loop at node 0"),
        (np.triu(np.ones((4, 4)), 1), "not symmetric"),
        (np.full((4, 4), 2) - 2 * np.eye(4, dtype=int), "got 2 at (0, 1)"),
        (np.zeros((3, 3)), "shape (4, 4)"),
        (np.array([[0, np.nan, 0, 0], [np.nan, 0, 0, 0], [0] * 4, [0] * 4]), "nan"),
        (sp.csr_matrix(np.eye(4)), "self-loop at node 0"),
        (sp.csr_matrix(np.triu(np.ones((4, 4)), 1)), "not symmetric"),
        (sp.csr_matrix(np.zeros((5, 5))), "shape (4, 4)"),
        (sp.csr_matrix(3 * nx.to_numpy_array(nx.path_graph(4))), "got 3"),
        ("0-1", "got str"),
    ],
)
def test_bad_graphs_raise_invalid_graph_error(value, fragment):
    with pytest.raises(InvalidGraphError) as info:
        GRAPHS.validate(value)
    assert fragment in str(info.value)
    assert not GRAPHS.contains(value)


def test_adjacency_matrices_are_converted():
    path = _path4()
    dense = nx.to_numpy_array(path)
    expected = {(0, 1), (1, 2), (2, 3)}
    for form in (
        dense,
        dense.astype(bool),
        dense.astype(int).tolist(),
        sp.csr_matrix(dense),
        sp.coo_array(dense.astype(bool)),
    ):
        graph = GRAPHS.validate(form)
        assert isinstance(graph, nx.Graph) and not graph.is_directed()
        assert sorted(graph.nodes) == [0, 1, 2, 3]
        assert {tuple(sorted(e)) for e in graph.edges()} == expected


def test_validated_graph_is_a_fresh_copy_without_attributes():
    path = _path4()
    path.nodes[0]["secret"] = 1
    path.edges[0, 1]["weight"] = 5
    graph = GRAPHS.validate(path)
    assert graph is not path and graph.nodes[0] == {} and graph.edges[0, 1] == {}
    graph.add_edge(0, 3)
    assert not path.has_edge(0, 3)


def _brute_force_graph_count(n: int, bound: int) -> int:
    pairs = list(itertools.combinations(range(n), 2))
    count = 0
    for mask in itertools.product((0, 1), repeat=len(pairs)):
        degrees = [0] * n
        for keep, (u, v) in zip(mask, pairs, strict=True):
            if keep:
                degrees[u] += 1
                degrees[v] += 1
        count += max(degrees, default=0) <= bound
    return count


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("bound", [None, 0, 1, 2, 3])
def test_graph_cardinality_matches_enumeration_and_brute_force(n, bound):
    domain = GraphDomain(n_nodes=n, max_degree=bound)
    graphs = list(domain.enumerate())
    keys = {frozenset(tuple(sorted(e)) for e in g.edges()) for g in graphs}
    assert len(keys) == len(graphs) == domain.cardinality
    assert domain.cardinality == _brute_force_graph_count(n, n - 1 if bound is None else bound)
    assert all(domain.contains(g) for g in graphs)


def test_graph_cardinality_closed_forms():
    assert GraphDomain(n_nodes=10).cardinality == 2**45
    assert GraphDomain(n_nodes=60).cardinality == 2 ** math.comb(60, 2)
    # graphs of maximum degree 1 are matchings: the telephone numbers
    telephone = [1, 1, 2, 4, 10, 26, 76, 232, 764, 2620, 9496]
    assert [GraphDomain(n_nodes=n, max_degree=1).cardinality for n in range(1, 11)] == (
        telephone[1:]
    )
    with pytest.raises(UnsupportedCombinationError):
        _ = GraphDomain(n_nodes=400, max_degree=30).cardinality


@FAST
@given(graph_domains, st.integers(0, 2**32 - 1))
def test_graph_samples_and_extremes_are_valid(domain, seed):
    graph = domain.sample(seed)
    assert domain.contains(graph)
    if domain.max_degree is not None:
        assert max(dict(graph.degree()).values()) <= domain.max_degree
    extremes = domain.extremes()
    assert all(domain.contains(g) for g in extremes)
    assert extremes[0].number_of_edges() == 0
    keys = [frozenset(g.edges()) for g in extremes]
    assert len(set(keys)) == len(keys)


def test_graph_extremes_are_dense_and_star():
    complete, star = GraphDomain(n_nodes=5).extremes()[1:]
    assert complete.number_of_edges() == 10 and dict(star.degree())[0] == 4
    dense = GraphDomain(n_nodes=8, max_degree=3).extremes()[1]
    assert set(dict(dense.degree()).values()) == {3}


# ----------------------------------------------------------------------------------------
# sampling, extremes, enumeration
# ----------------------------------------------------------------------------------------
@FAST
@given(st.one_of(scalar_domains, vector_domains, dataset_domains()), st.integers(0, 2**32 - 1))
def test_samples_and_extremes_are_members(domain, seed):
    value = domain.sample(seed)
    assert domain.contains(value)
    np.testing.assert_array_equal(domain.validate(value), value)
    np.testing.assert_array_equal(domain.sample(seed), value)
    for extreme in domain.extremes():
        assert domain.contains(extreme)
    other = domain.sample_other(value, seed + 1)
    assert domain.contains(other)
    if domain.cardinality != 1 and not (
        isinstance(domain, DatasetDomain) and domain.record.cardinality == 1
    ):
        assert not np.array_equal(np.asarray(other), np.asarray(value))


@FAST
@given(scalar_domains, st.integers(0, 2**32 - 1), st.integers(1, 20))
def test_scalar_sample_with_size_is_an_array(domain, seed, size):
    values = domain.sample(seed, size=size)
    assert isinstance(values, np.ndarray) and values.shape == (size,)
    assert values.dtype == (np.int64 if domain.is_integer_valued else np.float64)
    assert all(domain.contains(v) for v in values)


def test_vector_and_dataset_sample_shapes():
    vectors = VectorDomain(element=UNIT, length=3)
    assert vectors.sample(0).shape == (3,) and vectors.sample(0, size=5).shape == (5, 3)
    assert POINTS.sample(0).shape[1:] == (2,)
    batch = DATA.sample(0, size=4)
    assert len(batch) == 4 and all(DATA.contains(d) for d in batch)


def test_unbounded_real_intervals():
    line = RealInterval()
    assert line.validate(-1e300) == -1e300 and line.value_bounds() == (-math.inf, math.inf)
    assert not line.contains(math.inf) and not line.contains(math.nan)
    half = RealInterval(lo=2.0)
    assert half.validate(1e12) == 1e12 and not half.contains(1.9)
    assert (half.sample(0, size=100) >= 2.0).all()
    assert (RealInterval(hi=-3.0).sample(0, size=100) <= -3.0).all()
    assert [float(v) for v in half.extremes()] == [2.0, 2.0 + 10**6, 2.0 + 10**6 / 2]
    assert RealInterval.from_json(line.to_json()) == line


def test_real_interval_float_shortcut_matches_the_array_checks():
    """Python floats and np.float64 in the interval skip the 0-d array checks: the value
    (bit for bit, -0.0 included) and type are those of the general path, and every value
    the general path refuses is refused with its message."""
    from privaudit.spec.domains import ScalarDomainBase

    rng = np.random.default_rng(8)
    domains = [
        RealInterval(),
        RealInterval(lo=-2.0, hi=3.5),
        RealInterval(lo=0.0),
        RealInterval(hi=-1e-300),
        RealInterval(lo=-1.0, hi=1.0),
    ]
    for domain in domains:
        lo, hi = domain.value_bounds()
        edges = [
            v
            for b in (lo, hi)
            if math.isfinite(b)
            for v in (b, math.nextafter(b, -math.inf), math.nextafter(b, math.inf))
        ]
        values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            5e-324,
            -5e-324,
            1e308,
            -1e308,
            math.inf,
            -math.inf,
            math.nan,
            *edges,
            *rng.normal(0.0, 10 ** rng.uniform(-3, 6, 200)).tolist(),
        ]
        for value in values:
            for x in (float(value), np.float64(value)):
                try:
                    expected = ScalarDomainBase.validate(domain, x)
                except InvalidInputError as err:
                    with pytest.raises(InvalidInputError) as info:
                        domain.validate(x)
                    assert str(info.value) == str(err)
                    continue
                got = domain.validate(x)
                assert type(got) is type(expected) is np.float64
                assert got.tobytes() == expected.tobytes()
    # other types keep the general path
    line = RealInterval()
    assert line.validate(np.float32(0.5)) == 0.5 and line.validate(3) == 3.0
    with pytest.raises(InvalidInputError):
        line.validate(True)
    with pytest.raises(InvalidInputError):
        line.validate(np.array([0.5]))


def test_scalar_extremes():
    assert [float(v) for v in RealInterval(lo=-2, hi=4).extremes()] == [-2.0, 4.0, 1.0, 0.0]
    assert [float(v) for v in RealInterval(lo=1, hi=3).extremes()] == [1.0, 3.0, 2.0]
    assert [int(v) for v in IntegerRange(lo=-3, hi=7).extremes()] == [-3, 7, 0]
    assert [int(v) for v in IntegerRange(lo=5).extremes()] == [5, 5 + 10**6]
    assert [int(v) for v in Categorical(size=5).extremes()] == [0, 4]
    assert [int(v) for v in Categorical(size=1).extremes()] == [0]


def test_dataset_extremes_patterns():
    patterns = {tuple(d.tolist()) for d in DatasetDomain(record=UNIT, size=4).extremes()}
    assert patterns == {
        (0.0, 0.0, 0.0, 0.0),
        (1.0, 1.0, 1.0, 1.0),
        (0.0, 0.0, 1.0, 1.0),
        (0.0, 0.0, 0.0, 1.0),
        (1.0, 1.0, 1.0, 0.0),
    }


@pytest.mark.parametrize(
    ("domain", "expected"),
    [
        (IntegerRange(lo=-2, hi=2), 5),
        (Categorical(size=4), 4),
        (VectorDomain(element=Categorical(size=3), length=3), 27),
        (DatasetDomain(record=Categorical(size=3), size=4), 81),
        (DatasetDomain(record=VectorDomain(element=Categorical(size=2), length=2), size=3), 64),
        (GraphDomain(n_nodes=4), 64),
    ],
)
def test_enumeration_matches_cardinality(domain, expected):
    elements = list(domain.enumerate())
    assert domain.is_finite and domain.cardinality == expected == len(elements)
    assert all(domain.contains(e) for e in elements)
    if not isinstance(domain, GraphDomain):
        assert len({np.asarray(e).tobytes() for e in elements}) == expected


def test_huge_cardinalities_are_exact_python_ints():
    domain = DatasetDomain(record=Categorical(size=10), size=100)
    assert domain.cardinality == 10**100 and isinstance(domain.cardinality, int)
    first = next(domain.enumerate())
    assert first.shape == (100,)


@pytest.mark.parametrize(
    "domain",
    [
        RealInterval(lo=0, hi=1),
        IntegerRange(lo=0),
        IntegerRange(hi=0),
        VectorDomain(element=RealInterval(lo=0, hi=1), length=2),
        DatasetDomain(record=Categorical(size=2)),
        DatasetDomain(record=RealInterval(lo=0, hi=1), size=2),
    ],
)
def test_infinite_domains_refuse_enumeration(domain):
    assert not domain.is_finite and domain.cardinality == math.inf
    with pytest.raises(UnsupportedCombinationError):
        domain.enumerate()


def test_sampling_uses_only_the_injected_generator():
    state = np.random.get_state()[1].copy()
    a = GraphDomain(n_nodes=6, max_degree=2).sample(np.random.default_rng(3))
    b = GraphDomain(n_nodes=6, max_degree=2).sample(np.random.default_rng(3))
    assert set(a.edges()) == set(b.edges())
    assert np.array_equal(np.random.get_state()[1], state)
    with pytest.raises(InvalidParameterError):
        UNIT.sample(np.random.RandomState(0))
