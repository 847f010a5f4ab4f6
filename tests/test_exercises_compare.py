"""Answer comparison and generic hints (mbdlib.exercises.compare)."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mbdlib.exercises.compare import AnswerTypeError, diagnose, normalize, same

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
matrices = arrays(np.float64, st.tuples(st.integers(2, 4), st.integers(2, 4)), elements=finite)


@given(matrices)
def test_an_answer_equals_itself_and_its_list_form(a):
    assert same(normalize(a.tolist()), normalize(a))


@given(matrices, st.integers(0, 15), st.integers(0, 15))
def test_one_entry_off_is_named_without_giving_the_expected_value(a, i, j):
    i, j = i % a.shape[0], j % a.shape[1]
    b = a.copy()
    b[i, j] += 1.0 + abs(a[i, j])  # clearly off
    if np.allclose(b, -a) or (a.shape[0] == a.shape[1] and np.allclose(b, a.T)):
        return  # a different (correct) diagnosis applies
    hint = diagnose(normalize(b), normalize(a))
    assert not same(normalize(b), normalize(a))
    if "times the expected" not in hint and "multiple" not in hint:
        assert f"entry [{i}, {j}] " in hint
    assert "expected" not in hint.replace("the expected one", "")  # no expected value is ever printed
    assert f"{a[i, j]:.4g}" not in hint or f"{a[i, j]:.4g}" in f"[{i}, {j}]"


@given(arrays(np.float64, (3, 3), elements=st.floats(0.5, 10.0)))
def test_sign_flip_and_transpose_are_recognised(a):
    assert "sign" in diagnose(normalize(-a), normalize(a))
    if not np.allclose(a, a.T, rtol=1e-3):
        assert "transpose" in diagnose(normalize(a.T), normalize(a))


@settings(max_examples=30)
@given(st.lists(st.floats(0.1, 5.0), min_size=2, max_size=5), st.sampled_from([2.0, 0.5]))
def test_factor_two_is_recognised(v, factor):
    hint = diagnose(normalize(np.array(v) * factor), normalize(v))
    assert ("2 times" in hint) if factor == 2.0 else ("1/2 times" in hint)


def test_vectors_accept_row_column_and_flat_forms():
    v = [1.0, 2.0, 3.0]
    for form in (np.array(v), np.array([v]), np.array([v]).T, sp.Matrix(v), sp.Matrix([v])):
        assert same(normalize(form), normalize(v))


def test_shape_mismatch_says_both_shapes():
    assert diagnose(normalize(np.eye(2)), normalize(np.eye(3))) == (
        "your answer has shape (2, 2), expected shape (3, 3)"
    )
    assert "single number" in diagnose(normalize(1.0), normalize([1.0, 2.0]))


def test_nan_is_reported_with_its_entry():
    a = np.eye(3)
    a[1, 2] = np.nan
    hint = diagnose(normalize(a), normalize(np.eye(3)))
    assert "NaN" in hint and "[1, 2]" in hint
    assert not same(normalize(a), normalize(a))  # NaN never counts as correct


def test_formulas_equal_after_simplification_are_accepted():
    x, y = sp.symbols("x y", real=True)
    assert same(normalize(sp.sin(x) ** 2 + sp.cos(x) ** 2), normalize(1))
    assert same(
        normalize(sp.Matrix([sp.sin(2 * x), 0])), normalize(sp.Matrix([2 * sp.sin(x) * sp.cos(x), 0]))
    )
    assert not same(normalize(sp.sin(x) * y), normalize(sp.cos(x) * y))


def test_symbols_are_matched_by_name_not_assumptions():
    assert same(normalize(sp.Symbol("q") ** 2), normalize(sp.Symbol("q", real=True) ** 2))


def test_formula_diagnosis_names_extra_symbols_and_numbers_given_for_formulas():
    x, t = sp.symbols("x t")
    assert "t" in diagnose(normalize(x * t), normalize(x))
    assert "formula in x" in diagnose(normalize(2.0), normalize(x))
    hint = diagnose(
        normalize(sp.Matrix([sp.sin(x), sp.cos(x)])), normalize(sp.Matrix([sp.sin(x), -sp.cos(x)]))
    )
    assert "entry [1]" in hint and "at x =" in hint


def test_sympy_numbers_count_as_numbers():
    assert same(normalize(sp.pi / 2), normalize(np.pi / 2))
    assert same(normalize(sp.Matrix([[sp.sqrt(2) / 2]])), normalize([[0.7071067811865476]]))


@pytest.mark.parametrize(
    ("answer", "match"),
    [
        ("0.5", "string"),
        (True, "True/False"),
        ({"a": 1}, "dict"),
        (1 + 2j, "complex"),
        ([[1, 2], [3]], "could not be read|not a number"),
        (print, "function"),
        (object(), "object"),
        (np.array(["a", "b"]), "not numbers"),
    ],
)
def test_answers_that_are_not_numbers_raise_a_hint(answer, match):
    with pytest.raises(AnswerTypeError, match=match):
        normalize(answer)
