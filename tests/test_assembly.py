"""Assembly made visible (KKT system, sparsity) and the model report / comparison."""

import numpy as np
import pytest

from mbdlib.assembly import ModelReport, assemble_system, compare_models, dense_flops, model_report
from mbdlib.catalogue import COORDINATE_SETS, mechanism
from mbdlib.dae import accelerations, cartesian_pendulum
from mbdlib.errors import ModelError, ShapeError


@pytest.mark.parametrize("coords", COORDINATE_SETS)
def test_kkt_blocks_and_solution(coords):
    m = mechanism("fourbar", coordinates=coords, gravity=(0.0, -9.81))
    s = assemble_system(m)
    n, r = s.n, s.m + s.k
    assert s.K.shape == (n + r, n + r) and s.rhs.shape == (n + r,)
    # tolerances, not bitwise: BLAS kernels differ between machines in the last bits
    scale = np.abs(s.K).max()
    np.testing.assert_allclose(s.K, s.K.T, rtol=0, atol=1e-14 * scale)
    np.testing.assert_allclose(s.K[:n, :n], m.M(m.q0), rtol=0, atol=1e-14 * scale)
    np.testing.assert_allclose(s.K[n:, :n], m.phi_q(m.q0), rtol=0, atol=1e-14 * scale)
    np.testing.assert_array_equal(s.K[n:, n:], 0.0)
    # a plain dense solve of K agrees with dae's range-space method
    qdd, lam = s.solve()
    system = m.system()
    qdd2, lam2 = accelerations(system, 0.0, system.q0, system.qd0)
    np.testing.assert_allclose(qdd, qdd2, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(lam, lam2, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(s.Phi_q @ qdd, s.gamma, atol=1e-9)


def test_sparsity_patterns_follow_the_coordinate_choice():
    cart = assemble_system(mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -9.81)))
    rel = assemble_system(mechanism("fourbar", coordinates="relative", gravity=(0.0, -9.81)))
    # Cartesian: M = diag(m, m, J) per body; relative: every body moves with the crank angle: dense
    np.testing.assert_array_equal(cart.patterns["M"], np.eye(9, dtype=bool))
    assert rel.patterns["M"].all()
    for s in (cart, rel):
        assert all(p.dtype == bool for p in s.patterns.values())
        assert s.nnz == {k: int(p.sum()) for k, p in s.patterns.items()}
    # each pin row of the Cartesian model touches x or y and φ of each moving body it joins:
    # 2 ground pins (2 rows × 2 entries) + 2 moving pins (2 rows × 4 entries)
    assert cart.nnz["Phi_q"] == 2 * 2 * 2 + 2 * 2 * 4
    assert "K is 17×17" in str(cart)


def test_the_6r_arm_counts_of_document_001():
    """6 relative coordinates; 42 Cartesian coordinates (7 bodies × 6) with 36 constraints; DOF 6."""
    rel = model_report(mechanism("arm6r", coordinates="relative", gravity=(0, 0, -9.81)), timing=False)
    cart = model_report(mechanism("arm6r", coordinates="cartesian", gravity=(0, 0, -9.81)))
    assert (rel.coordinates, rel.constraints, rel.dof) == (6, 0, 6)
    assert (cart.coordinates_6, cart.constraints_6, cart.dof) == (7 * 6, 6 + 6 * 5, 6)
    assert (cart.coordinates, cart.constraints, cart.rank) == (7 * 7, 6 + 6 * 5 + 7, 43)
    assert cart.nnz_M is None and cart.rhs_time is None and "49 (42)" in str(cart)


@pytest.mark.parametrize("name, dof", [("double_pendulum", 2), ("slider_crank", 1), ("fourbar", 1)])
def test_report_dof_and_rank_for_known_mobility(name, dof):
    table = compare_models({c: mechanism(name, coordinates=c, gravity=(0.0, -9.81)) for c in COORDINATE_SETS},
                           repeats=3)
    for row in table.rows:
        assert row.dof == dof and row.rank == row.constraints == row.coordinates - dof
        assert row.rhs_time > 0
        assert row.flops == dense_flops(row.coordinates, row.constraints)
    cart = mechanism(name, coordinates="cartesian", gravity=(0.0, -9.81)).dof_report()
    assert (table["cartesian"].rank, table["cartesian"].dof) == (cart.rank, cart.dof)


def test_dense_flops_leading_terms():
    assert dense_flops(30, 0) == 9000                       # Cholesky n³/3
    assert dense_flops(0, 30) == 9000
    assert dense_flops(10, 1) == round(1000 / 3 + 2 * 100 * 1 + 2 * 10 * 1 + 1 / 3)   # + 2n²r + 2nr² + r³/3


def test_tables_text_and_html():
    table = compare_models([mechanism("slider_crank", coordinates=c, gravity=(0.0, -9.81))
                            for c in ("cartesian", "relative")],
                           timing=False)
    text = str(table)
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["model", "coordinates", "constraints"]
    assert "PlanarModel" in lines[2] and "RelativeModel" in lines[3] and "—" in lines[2]
    html = table._repr_html_()
    assert html.startswith("<table>") and html.count("<tr>") == 3 and html.count("<th>") == 9
    row = table.rows[0]
    assert isinstance(row, ModelReport) and row._repr_html_().count("<tr>") == 2
    assert row.html_row().count("<td>") == len(ModelReport.COLUMNS)
    with pytest.raises(KeyError, match="no model named"):
        table["fivebar"]


def test_errors():
    from mbdlib.spatial import SpatialModel

    with pytest.raises(ModelError, match="gravity is not set"):     # dynamics needs gravity stated
        assemble_system(SpatialModel())
    with pytest.raises(ModelError, match="expected a model or a ConstrainedSystem, got object"):
        assemble_system(object())
    with pytest.raises(ShapeError, match=r"shape \(2,\)"):
        assemble_system(cartesian_pendulum(), q=[0.0, 1.0, 2.0])
