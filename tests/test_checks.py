"""Tests of mbdlib.checks: the modelling checklist (document 001, §5) as a report.

Each item is proven both ways: a correct model passes, a model with one planted mistake triggers that
item (and no other warning or failure) with a fix naming the body/joint.  Numbers in the report are
cross-checked against independent computations (Grübler's count by hand, numpy's condition number of a
mass matrix written down by hand, the energy recomputed from the trajectory).
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mbdlib import ODE, Baumgarte, Chain, PlanarModel, Projection, RigidBody, fourbar_arm, mechanism, simulate
from mbdlib.chain import Joint
from mbdlib.checks import CheckItem, CheckReport, check_model, check_simulation
from mbdlib.errors import ModelError, ShapeError
from mbdlib.urdf import data_path, load_urdf

GOOD = ("pass", "info")
G = (0.0, -9.81)


def bad_items(report):
    return {i.key: i.status for i in report.items if i.status not in GOOD}


def pendulum(inertia=1 / 12, gravity=G, cls=PlanarModel):
    """A uniform 1 kg, 1 m rod pinned at one end, released horizontally."""
    m = cls(gravity=gravity)
    rod = m.add_body("rod", mass=1.0, inertia=inertia, position=(0.5, 0.0))
    m.add_revolute(m.ground, rod, (0.0, 0.0), (-0.5, 0.0), name="pin")
    return m


def double_pendulum(second_pin=True):
    m = PlanarModel(gravity=G)
    a = m.add_body("upper", 2.0, 2.0 / 12, position=(0.5, 0.0))
    b = m.add_body("lower", 1.0, 1.0 / 12, position=(1.5, 0.0))
    m.add_revolute(m.ground, a, (0, 0), (-0.5, 0), name="O")
    if second_pin:
        m.add_revolute(a, b, (0.5, 0), (-0.5, 0), name="E")
    return m


def parallelogram(extra_link=True):
    """Cranks of 1 m at x = 0 and x = 2 (and an extra one at x = 1), coupler 3 m long on top."""
    m = PlanarModel(gravity=G)
    th = 1.0
    up = np.array([np.cos(th), np.sin(th)])
    coupler = m.add_body("coupler", 3.0, 3.0 * 9 / 12, position=(1.0 + up[0], up[1]))
    for k, x in enumerate((0.0, 2.0, 1.0) if extra_link else (0.0, 2.0)):
        crank = m.add_body(f"crank{k + 1}", 1.0, 1 / 12, position=(x + 0.5 * up[0], 0.5 * up[1]), angle=th)
        m.add_revolute(m.ground, crank, (x, 0.0), (-0.5, 0.0), name=f"ground pin {k + 1}")
        m.add_revolute(crank, coupler, (0.5, 0.0), (x - 1.0, 0.0), name=f"coupler pin {k + 1}")
    return m


# ----------------------------------------------------------------- correct models pass
@pytest.mark.parametrize("name, grubler", [("slider_crank", 3 * 3 - 2 * 4), ("fourbar", 3 * 3 - 2 * 4)])
def test_correct_planar_mechanisms_pass_and_dof_is_grueblers_count(name, grubler):
    # Grübler by hand: 3 moving bodies × 3 coordinates − 4 joints × 2 equations (revolutes, a prismatic)
    model = mechanism(name, coordinates="cartesian", gravity=(0.0, -9.81))
    report = check_model(model, expected_dof=grubler)
    assert report.ok and not report.warnings, str(report)
    assert report["dof"].status == "pass"
    assert report["dof"].values["dof"] == grubler == report["dof"].values["grubler"]
    assert report["redundant"].status == "pass"


def test_relative_coordinates_system_protocol_passes():
    report = check_model(mechanism("fourbar", coordinates="relative", gravity=(0.0, -9.81)), expected_dof=1)
    assert report.ok and not report.warnings, str(report)
    assert report["dof"].values == dict(coordinates=3, constraints=2, rank=2, dof=1, grubler=1, expected=1)


def test_planar_chain_with_gravity_passes():
    report = check_model(Chain.planar([1.0, 0.5]), gravity=(0.0, -9.81, 0.0), expected_dof=2)
    assert report.ok and not report.warnings, str(report)
    assert report["statics"].status == "pass"


def test_ur5_with_gravity_passes():
    ur5 = load_urdf(data_path("ur5"))
    report = check_model(ur5, [0.1, -0.8, 1.0, -0.5, 0.3, 0.2], gravity=(0.0, 0.0, -9.81), expected_dof=6)
    assert report.ok and not report.warnings, str(report)
    assert report["small_displacement"].status == "pass"


def test_fourbar_arm_passes_with_dof_two():
    # planar Grübler by hand: 4 moving links × 3 − 5 revolutes × 2 = 2
    report = check_model(fourbar_arm(), expected_dof=2)
    assert report.ok and not report.warnings, str(report)
    assert report["dof"].values["dof"] == 4 * 3 - 5 * 2


# ----------------------------------------------------------------- planted mistakes, each its item
def test_inertia_about_the_end_warns():
    assert not bad_items(check_model(pendulum(1 / 12), expected_dof=1))
    report = check_model(pendulum(1 / 3), expected_dof=1)              # m L²/3: about the pin
    assert bad_items(report) == {"inertia_plausibility": "warn"}
    item = report["inertia_plausibility"]
    assert "'rod'" in item.fix and "centre of mass" in item.fix
    assert item.values["radius"] == pytest.approx(np.sqrt(1 / 3))          # k = sqrt(I / m)
    assert item.values["extent"] == pytest.approx(0.5)


def rod_chain(axis):
    """A 1 m rod (a thin cylinder) hanging from a revolute about y; its long axis is x."""
    chain = Chain(name="rod arm")
    body = RigidBody.cylinder(2.0, 0.02, 1.0, axis=axis, com=(0.5, 0.0, 0.0), name="rod")
    chain.add_link("rod", Joint("hinge", "revolute", (0, 1, 0)), body)
    return chain


def test_3d_rod_inertia_in_a_rotated_frame_warns():
    g = (0.0, 0.0, -9.81)
    assert not bad_items(check_model(rod_chain("x"), gravity=g, expected_dof=1))
    report = check_model(rod_chain("y"), gravity=g, expected_dof=1)    # long axis given along y
    assert bad_items(report) == {"inertia_plausibility": "warn"}
    assert "'rod'" in report["inertia_plausibility"].fix
    assert report["inertia_plausibility"].values["angle"] == pytest.approx(90.0)


def test_missing_revolute_floating_body():
    assert not bad_items(check_model(double_pendulum(), expected_dof=2))
    report = check_model(double_pendulum(second_pin=False), expected_dof=2)
    assert bad_items(report) == {"connectivity": "warn", "dof": "fail"}
    assert "'lower'" in report["connectivity"].fix and "missing" in report["connectivity"].fix
    assert "a constraint is missing" in report["dof"].detail and "lower" in report["dof"].fix
    assert report["dof"].values["dof"] == 2 * 3 - 2 == 4


def test_free_body_in_relative_coordinates_is_not_connected():
    from mbdlib.coordinates import RelativeModel

    m = RelativeModel(gravity=G)
    m.add_body("arm", 1.0, 1 / 12, parent="ground", joint="revolute", point_child=(-0.5, 0.0))
    m.add_body("loose", 1.0, 1 / 12, parent="ground", joint="free", q=[2.0, 0.0, 0.0])   # x, y, φ
    report = check_model(m, expected_dof=1, small_displacement=False)
    assert bad_items(report) == {"connectivity": "warn", "dof": "fail"}
    assert "'loose'" in report["connectivity"].fix and report["dof"].values["dof"] == 1 + 3


def test_same_revolute_twice_is_redundant():
    m = pendulum()
    m.add_revolute(m.ground, "rod", (0.0, 0.0), (-0.5, 0.0), name="pin again")
    report = check_model(m)
    assert bad_items(report) == {"redundant": "fail"}
    assert "'pin again'" in report["redundant"].fix
    assert report["small_displacement"].status == "info"                  # skipped, not crashed


def test_parallelogram_with_extra_link_is_redundant():
    ok = check_model(parallelogram(extra_link=False), expected_dof=1)
    assert ok.ok and not ok.warnings, str(ok)
    report = check_model(parallelogram(extra_link=True))
    assert bad_items(report) == {"redundant": "fail"}
    # Grübler by hand: 4 bodies × 3 − 6 revolutes × 2 = 0, yet the mechanism moves: DOF 1 by rank
    assert report["dof"].values["grubler"] == 0 and report["dof"].values["dof"] == 1
    assert "'coupler pin 3'" in report["redundant"].fix
    assert "coupler pin 3" in report["redundant"].values["involved"]


def test_chain_without_gravity_fails_and_upward_gravity_warns():
    arm = Chain.planar([1.0, 0.5])
    report = check_model(arm)
    assert bad_items(report) == {"gravity": "fail"}
    assert "gravity=" in report["gravity"].fix
    assert not report.ok and report.failed == [report["gravity"]]
    up = check_model(arm, gravity=(0.0, 0.0, 9.81))
    assert bad_items(up) == {"gravity": "warn"}
    assert "points up" in up["gravity"].fix
    assert bad_items(check_model(pendulum(gravity=(0.0, 9.81)))) == {"gravity": "warn"}


def test_gravity_in_millimetres_warns_units():
    report = check_model(pendulum(gravity=(0.0, -9810.0)), small_displacement=False)
    assert bad_items(report) == {"units": "warn"}
    assert "millimetres" in report["units"].detail
    assert not bad_items(check_model(pendulum(gravity=(0.0, -9810.0)), units="mm, kg, s",
                                     small_displacement=False))


class FlippedGravity(PlanarModel):
    """A model whose Q pulls up while its energy says gravity pulls down."""

    def Q(self, t, q, qd):
        Q = super().Q(t, q, qd)
        for b in self.bodies:
            Q[3 * b.index: 3 * b.index + 2] -= 2.0 * b.mass * self.gravity
        return Q


def test_force_of_the_wrong_sign_fails_statics():
    report = check_model(pendulum(cls=FlippedGravity), expected_dof=1)
    assert bad_items(report) == {"statics": "fail"}
    assert "sign of gravity or of a force?" in report["statics"].fix
    assert report["statics"].values["dV"] > 0 > check_model(pendulum())["statics"].values["dV"]


def test_drift_without_stabilization_fails_violation():
    m = pendulum()
    drift = simulate(m.system(), 8.0, ODE(rtol=1e-06, atol=1e-06))
    report = check_simulation(m, drift)
    assert bad_items(report) == {"violation": "fail"}
    assert "Projection()" in report["violation"].fix
    fixed = check_simulation(m, simulate(m.system(), 8.0, Projection(rtol=1e-06, atol=1e-06)))
    assert not bad_items(fixed)
    # the reported numbers are the trajectory's
    assert report["violation"].values["violation"] == pytest.approx(max(
        np.linalg.norm(m.phi(q)) for q in drift.q))


def test_baumgarte_gains_too_stiff_for_rk45():
    m = pendulum()
    good = simulate(m.system(), 0.5, Baumgarte(alpha=10.0, beta=10.0, solver="RK45", rtol=1e-8, atol=1e-8))
    report = check_model(m, result=good, small_displacement=False)
    assert not bad_items(report), str(report)
    assert report["stabilization"].status == "pass" and report["solver_effort"].status == "pass"
    stiff = simulate(m.system(), 0.05, Baumgarte(alpha=1e4, beta=1e4, solver="RK45", rtol=1e-8, atol=1e-8))
    report = check_model(m, result=stiff, small_displacement=False)
    assert bad_items(report) == {"stabilization": "warn", "solver_effort": "warn"}
    assert report["solver_effort"].values["ratio"] >= 10
    # the poles are the roots of s² + 2αs + β² = (s + 1e4)²
    assert report["stabilization"].values["s_max"] == pytest.approx(1e4, rel=1e-6)
    # without a result: judged against the mechanism's own rate (pendulum: ~ sqrt(3g / 2L) = 3.8 rad/s)
    alone = check_model(m, alpha=1e4, beta=1e4, small_displacement=False)
    assert alone["stabilization"].status == "warn"
    assert 1.0 < alone["stabilization"].values["omega"] < 10.0


class PhantomForce(PlanarModel):
    """No gravity, springs or loads, yet Q pushes body 1 along y (across the rod)."""

    def Q(self, t, q, qd):
        return super().Q(t, q, qd) + np.eye(self.n)[1]


def test_statics_without_forces_needs_zero_acceleration():
    report = check_model(pendulum(gravity=(0.0, 0.0)), expected_dof=1)
    assert not bad_items(report) and "no applied forces" in report["statics"].detail
    report = check_model(pendulum(gravity=(0.0, 0.0), cls=PhantomForce), small_displacement=False)
    assert bad_items(report) == {"statics": "fail"}


def test_gravity_argument_that_contradicts_the_model_warns():
    report = check_model(pendulum(), gravity=(0.0, -1.62), small_displacement=False)
    assert bad_items(report) == {"gravity": "warn"} and "differs" in report["gravity"].detail


# ----------------------------------------------------------------- independent cross-checks of numbers
def test_condition_number_is_numpys():
    model = mechanism("slider_crank", coordinates="cartesian", gravity=(0.0, -9.81))
    item = check_model(model, small_displacement=False)["mass_matrix"]
    # M by hand: diag(m, m, m r²/12 ...) of crank (1 kg, 0.3 m), rod (2 kg, 1 m), slider (1.5 kg, 0.01)
    M = np.diag([1.0, 1.0, 0.09 / 12, 2.0, 2.0, 2.0 / 12, 1.5, 1.5, 0.01])
    assert item.values["cond"] == pytest.approx(np.linalg.cond(M), rel=1e-12)
    assert f"condition number {item.values['cond']:.3g}" in item.detail


def test_energy_error_recomputed_from_the_trajectory():
    m = mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -9.81))
    result = simulate(m.system(), 1.0, ODE(rtol=1e-06, atol=1e-06))
    report = check_simulation(m, result)
    E = np.array([m.energy(q, qd) for q, qd in zip(result.q, result.qd, strict=True)])
    T = max(0.5 * qd @ m.M() @ qd for qd in result.qd)
    expected = np.max(np.abs(E - E[0])) / max(abs(E[0]), T)
    assert report["energy"].values["energy_error"] == pytest.approx(expected)


def test_fourbar_arm_simulation_energy():
    arm = fourbar_arm()
    sim = simulate(arm.system(compiled=False), 0.3, ODE(rtol=1e-9, atol=1e-9), q0=[0.2, 1.5])
    report = check_simulation(arm, sim)
    assert not bad_items(report), str(report)
    err = np.max(np.abs(sim.energy - sim.energy[0])) / abs(sim.energy[0])
    assert report["energy"].values["energy_error"] <= err + 1e-15


# ----------------------------------------------------------------- property: random valid chains pass
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(0.2, 2.0), st.floats(0.1, 5.0), st.floats(-3.0, 3.0)), min_size=1,
                max_size=4))
def test_random_planar_chains_pass(links):
    m = PlanarModel(gravity=G)
    parent, tip, point = m.ground, np.zeros(2), (0.0, 0.0)
    for k, (L, mass, phi) in enumerate(links):
        e = np.array([np.cos(phi), np.sin(phi)])
        body = m.add_body(f"link{k}", mass, mass * L**2 / 12, position=tip + 0.5 * L * e, angle=phi)
        m.add_revolute(parent, body, point, (-0.5 * L, 0.0), name=f"pin{k}")
        parent, tip, point = body, tip + L * e, (0.5 * L, 0.0)
    report = check_model(m, expected_dof=len(links), small_displacement=len(links) <= 2)
    assert report.ok, str(report)
    assert report["mass_matrix"].status == "pass"
    assert report["inertia_plausibility"].status == "pass"


# ----------------------------------------------------------------- output and bad arguments
def test_text_and_html_are_deterministic_and_aligned():
    model = pendulum(1 / 3)
    a, b = check_model(model), check_model(model)
    assert str(a) == str(b) and a._repr_html_() == b._repr_html_()
    assert "0x" not in str(a) and "0x" not in a._repr_html_() and "<script" not in a._repr_html_()
    lines = str(a).splitlines()
    col = lines[1].index("status")
    rows = [ln for ln in lines[:-1] if re.match(r"^\d ", ln)]
    assert len(rows) == len(a.items)
    assert all(ln[col:].split()[0] in ("pass", "warn", "fail", "info") for ln in rows)
    detail = lines[1].index("detail")
    assert all(ln[:detail].strip() == "" for ln in lines[2:-1] if not re.match(r"^(\d |-+$)", ln))
    n_pass = sum(i.status == "pass" for i in a.items)
    assert lines[-1] == a.verdict() == f"{n_pass} passed, 1 warning, 0 failed"
    assert "-> fix: body 'rod'" in str(a)
    assert "class='mbd-status mbd-warn'" in a._repr_html_()
    assert a.to_rows()[0] == dict(step=1, key="units", title=a.items[0].title, status="info",
                                  detail=a.items[0].detail, fix="")


def test_html_draws_the_dot_of_phi_dot_above_the_letter():
    """A combining dot on a capital (Φ̇) vanishes inside the letter in a browser's text font: the HTML
    table draws it as a positioned accent instead; the plain text keeps the combining character."""
    model = pendulum()
    res = simulate(model.system(), 0.2, Projection(rtol=1e-8, atol=1e-10))
    report = check_simulation(model, res)
    assert "‖Φ̇‖" in str(report)
    page = report._repr_html_()
    assert "\u0307" not in page.replace("title='Φ\u0307'", "")
    assert "‖<span class='mbd-acc mbd-dot mbd-tall' title='Φ\u0307'>Φ</span>‖" in page
    assert '.mbd-dot::after{content:"\\02D9"}' in page


def test_report_access_and_raise_if_failed():
    report = check_model(Chain.planar([1.0]))
    with pytest.raises(KeyError, match="the checks are"):
        report["nonsense"]
    with pytest.raises(ModelError, match="gravity"):
        report.raise_if_failed()
    check_model(pendulum(), small_displacement=False).raise_if_failed()
    assert isinstance(report, CheckReport) and all(isinstance(i, CheckItem) for i in report)
    with pytest.raises(ModelError, match="status"):
        CheckItem("x", 1, "x", "maybe", "")


def test_bad_arguments():
    with pytest.raises(ShapeError, match=r"shape \(3,\)"):
        check_model(pendulum(), q=[0.0, 1.0])
    with pytest.raises(ShapeError, match="gravity"):
        check_model(Chain.planar([1.0]), gravity=(0.0, -9.81))
    with pytest.raises(ModelError, match="unsupported model type dict.*PlanarModel"):
        check_model({"M": 1})
    with pytest.raises(ModelError, match="expected_dof"):
        check_model(pendulum(), expected_dof=-1)
    with pytest.raises(ModelError, match="SimulationResult"):
        check_simulation(pendulum(), result=[1, 2, 3])
