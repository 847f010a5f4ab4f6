"""book/chapters/page_tools.py: the numbers the pages glue into their prose."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "book" / "chapters"))
from page_tools import sci, under  # noqa: E402


def test_sci_writes_powers_of_ten_with_the_digits_asked_for():
    assert sci(3.04e-5) == "3.0 × 10⁻⁵"
    assert sci(2.61e7, 2) == "2.6 × 10⁷"
    assert sci(1e-10, 1) == "10⁻¹⁰"      # a mantissa of exactly 1 is left out
    assert sci(3e-5, 1) == "3 × 10⁻⁵"


def test_under_prints_the_bound_that_was_asserted_not_a_rounder_one():
    assert under(1e-11, 1e-9) == "10⁻⁹"
    assert under(1e-4, 2e-3) == "2 × 10⁻³"     # not "10⁻³", which would claim ten times more
    assert under(1e-4, 2.5e-3) == "2.5 × 10⁻³"
    with pytest.raises(AssertionError):
        under(3e-3, 2e-3)
