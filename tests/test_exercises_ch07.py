"""Chapter 7 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: Rodrigues' formula for the turn (7.1); the angular velocity from a finite
difference of A(p(t)) (7.2); the kinetic energy ½ ω′ᵀ J′ ω′ at random rates and the null vector p (7.3);
the rank of a finite-difference Jacobian of Φ (7.4, 7.5, 7.7a); a simulation of the top measuring its
precession (7.6); sympy's Kane equations of the rolling disk — the steady lean equation (7.7b) and the
pushed disk integrated with solve_ivp in Kane's independent speeds (7.7c); the chapter's PlanarModel
sleigh with its knife edge, simulated until it slides straight (7.8).
"""

import json
import math
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from exercise_helpers import (
    VARIANT_SEEDS,
    Exploding,
    assert_correct,
    assert_hint,
    assert_keys_differ,
    assert_never_crashes_never_correct,
    assert_variant_correct,
    assert_variant_hint,
    judged,
    variants,
)
from oracles import rolling_disk_kanes_method
from scipy.integrate import solve_ivp

from mbdlib import PlanarModel, Projection, simulate
from mbdlib.exercises import evaluate, exercises, get
from mbdlib.exercises.ch07 import bricard, chain, disk_on_circle, lean_of
from mbdlib.exercises.core import judge
from mbdlib.exercises.grade import _judge_value, execute, records_in
from mbdlib.rotations import dcm_from_quat
from mbdlib.spatial import SpatialModel

ROOT = Path(__file__).resolve().parents[1]
G = 9.81


def fd_rank(phi, q, h=1e-7, tol=1e-6):
    J = np.column_stack([(phi(q + h * e) - phi(q - h * e)) / (2 * h) for e in np.eye(len(q))])
    return J, np.linalg.matrix_rank(J, tol=tol)


def test_chapter_7_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(7)
    assert len(exs) >= 6
    numbered = [re.fullmatch(r"7\.(\d+)([a-z]?)", x.id) for x in exs]
    assert all(numbered), [x.id for x in exs]
    numbers = [int(m[1]) for m in numbered]
    assert sorted(set(numbers)) == list(range(1, max(numbers) + 1)) and numbers == sorted(numbers)
    for n in set(numbers):
        parts = [m[2] for m in numbered if int(m[1]) == n]
        assert parts == [""] or parts == [chr(ord("a") + i) for i in range(len(parts))], (n, parts)
    for x in exs:
        assert 1 <= x.points <= 3 and len(x.mistakes) >= 2, x.id
    assert any(x.is_function for x in exs) and any(m[2] for m in numbered)


# ---------------------------------------------------------------- 7.1 Euler parameters of a turn
def rodrigues(axis, angle):
    u = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    K = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def test_7_1_key_turns_like_rodrigues_and_mistakes():
    for p in [get("7.1").params] + variants("7.1"):
        key = get("7.1").key(params=p)
        np.testing.assert_allclose(dcm_from_quat(key), rodrigues(p["axis"], math.radians(p["angle_deg"])),
                                   atol=1e-12)
        assert judged("7.1", -key, p).verdict == "correct"
        assert_variant_hint("7.1", np.r_[key[1:], key[0]], p, "scalar-first")
        assert_variant_hint("7.1", np.r_[key[0], -key[1:]], p, "inverse turn")
    assert_keys_differ("7.1", variants("7.1"))
    u = np.array([1.0, 2.0, 2.0])
    assert_correct("7.1", np.r_[math.cos(math.pi / 6), math.sin(math.pi / 6) * u / 3])
    assert_hint("7.1", np.r_[math.cos(math.pi / 3), math.sin(math.pi / 3) * u / 3], "HALF")
    assert_hint("7.1", np.r_[math.cos(math.pi / 6), math.sin(math.pi / 6) * u], "unit vector")
    assert_hint("7.1", np.r_[math.cos(30.0), math.sin(30.0) * u / 3], "degrees")
    assert "p^T p = 1" in get("7.1").sanity(np.r_[1.0, u], **get("7.1").params)


# ---------------------------------------------------------------- 7.2 angular velocity
def omega_by_differences(p, pd, h=1e-6):
    """ω′ from Aᵀ Ȧ, Ȧ by a central difference along p(t) = (p + t ṗ)/|p + t ṗ|."""
    def A(t):
        x = np.asarray(p) + t * np.asarray(pd)
        return dcm_from_quat(x / np.linalg.norm(x))

    W = A(0.0).T @ (A(h) - A(-h)) / (2 * h)
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


def test_7_2_key_by_finite_differences_and_mistakes():
    ex = get("7.2")
    for p in [ex.params] + variants("7.2"):
        key = ex.key(params=p)
        np.testing.assert_allclose(key, omega_by_differences(p["p"], p["pd"]), atol=1e-7)
        A = dcm_from_quat(p["p"])
        assert_variant_hint("7.2", key / 2, p, "factor of 2")
        assert_variant_hint("7.2", A @ key, p, "GLOBAL")
        assert_variant_hint("7.2", -key, p, "sign")
    assert_keys_differ("7.2", variants("7.2"))
    assert_correct("7.2", [3.0, -1.0, 5.0])


# ---------------------------------------------------------------- 7.3 the rotational mass block
def tilde(e):
    return np.array([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])


def student_block(p, J):
    e0, e = p[0], np.asarray(p[1:], dtype=float)
    L = np.column_stack([-e, -tilde(e) + e0 * np.eye(3)])
    return 4 * L.T @ np.asarray(J) @ L


def test_7_3_reference_is_the_kinetic_energy_and_singular_along_p():
    ex = get("7.3")
    rng = np.random.default_rng(11)
    cases = ex.grading_cases(None) + ex.grading_cases(np.random.default_rng(1))
    for p, J in cases:
        M = ex.key(p, J)
        np.testing.assert_allclose(M, M.T, atol=1e-14)
        np.testing.assert_allclose(M @ p, 0.0, atol=1e-13)
        assert np.linalg.matrix_rank(M, tol=1e-10) == 3
        for _ in range(3):
            pd = rng.normal(size=4)
            pd -= (pd @ p) * p  # a rate that keeps p^T p = 1
            h = 1e-6
            A0 = dcm_from_quat(p)
            Ah = dcm_from_quat((p + h * pd) / np.linalg.norm(p + h * pd))
            Am = dcm_from_quat((p - h * pd) / np.linalg.norm(p - h * pd))
            W = A0.T @ (Ah - Am) / (2 * h)
            w = np.array([W[2, 1], W[0, 2], W[1, 0]])
            assert 0.5 * pd @ M @ pd == pytest.approx(0.5 * w @ J @ w, rel=1e-7)
    assert_correct("7.3", student_block)
    assert_correct("7.3", lambda p, J: sp.Matrix(student_block(p, J)))


def test_7_3_mistakes_on_public_and_hidden_cases():
    ex = get("7.3")

    def global_G(p, J):
        e0, e = p[0], np.asarray(p[1:])
        Gm = np.column_stack([-e, tilde(e) + e0 * np.eye(3)])
        return 4 * Gm.T @ J @ Gm

    def lopsided(p, J):
        M = student_block(p, J)
        M[0, 1] += 0.1
        return M

    expect = [(lambda p, J: student_block(p, J) / 4, "factor 4 is missing"),
              (lambda p, J: student_block(p, J) / 2, "not 2"),
              (global_G, "global frame"),
              (lambda p, J: student_block(p, J) + 4 * np.trace(J) / 3 * np.outer(p, p), "shift"),
              (lambda p, J: student_block(np.r_[p[3], p[:3]], J), "scalar-first"),
              (lambda p, J: np.eye(3), "3 x 3"),
              (lopsided, "not symmetric")]
    for wrong, words in expect:
        assert_hint("7.3", wrong, words)
        for seed in VARIANT_SEEDS:
            cases = ex.grading_cases(np.random.default_rng(seed))
            v = judge(ex, [wrong(*c) for c in cases], cases, {})
            assert v.verdict == "wrong" and words in v.hint, (seed, words, v)
    err = evaluate("7.3", lambda p, J: J[5, 5])
    assert err.verdict == "error" and "IndexError" in err.hint
    assert evaluate("7.3", lambda p, J: None).verdict == "unanswered"


def test_7_3_right_only_on_the_public_cases_is_wrong_on_hidden_ones():
    ex = get("7.3")
    table = [(p, J, ex.key(p, J)) for p, J in ex.grading_cases(None)]

    def lookup(p, J):
        for q, K, M in table:
            if np.allclose(p, q) and np.allclose(J, K):
                return M
        return np.zeros((4, 4))

    assert_correct("7.3", lookup)
    for seed in VARIANT_SEEDS:
        cases = ex.grading_cases(np.random.default_rng(seed))
        assert judge(ex, [lookup(*c) for c in cases], cases, {}).verdict == "wrong"
        assert judge(ex, [student_block(*c) for c in cases], cases, {}).verdict == "correct"


# ---------------------------------------------------------------- 7.4 counting a spatial chain
ROWS = {"spherical": 3, "universal": 4, "revolute": 5, "cylindrical": 4, "prismatic": 5}


def test_7_4_counts_by_finite_difference_rank_and_mistakes():
    for p in [get("7.4").params] + variants("7.4"):
        joints = p["joints"]
        assert set(joints) == set(ROWS) and len(joints) in (5, 7)
        model = chain(joints)
        q = model.assemble().q0
        J, rank = fd_rank(model.phi, q)
        n, m = J.shape[1], J.shape[0]
        nb = len(joints) + 1
        assert (n, m) == (7 * nb, 6 + sum(ROWS[k] for k in joints) + nb) and rank == m  # open: independent
        assert n - rank == sum(6 - ROWS[k] for k in joints)
        assert judged("7.4", [n, m, n - rank], p).verdict == "correct"
        assert_variant_hint("7.4", [n, m - nb, n - m + nb], p, "normalization rows are missing")
        assert_variant_hint("7.4", [6 * nb, m - nb, n - m], p, "7 coordinates")
        assert_variant_hint("7.4", [n - 7, m - 7, n - m], p, "base is a body")
        assert_variant_hint("7.4", [n, m, n - m + 1], p, "coordinates and equations are right")
        n_u_c = sum(k in ("universal", "cylindrical") for k in joints)
        assert_variant_hint("7.4", [n, m + n_u_c, n - m - n_u_c], p, "row too many")
    assert_keys_differ("7.4", variants("7.4")[:2])


# ---------------------------------------------------------------- 7.5 Bricard
def test_7_5_rank_by_finite_differences_and_mistakes():
    model = bricard()
    q = model.assemble().q0
    J, rank = fd_rank(model.phi, q)
    assert J.shape == (42, 42) and rank == 41
    grubler = 6 * 5 - 6 * 5
    assert_correct("7.5", [grubler, rank, 42 - rank])
    assert_hint("7.5", [6, rank, 1], "not a moving body")
    assert_hint("7.5", [5, rank, 1], "six revolute joints")
    assert_hint("7.5", [0, 42, 1], "independent ones")
    assert_hint("7.5", [0, 36, 1], "normalization")
    assert_hint("7.5", [0, 41, 0], "does move")


def test_value_exercises_without_variants_are_the_same_for_all():
    for eid in ("7.5", "7.7a"):
        assert get(eid).variant is None and not get(eid).has_variants, eid


# ---------------------------------------------------------------- 7.6 the heavy top
def simulated_precession(m, l, A_c, C, theta_deg, w3, t_end=0.4):
    """Start the top in steady precession at the key's rate; measure the azimuth rate of its axis."""
    rate = get("7.6").key(params=dict(m=m, l=l, A_c=A_c, C=C, theta_deg=theta_deg, w3=w3))
    th = math.radians(theta_deg)
    p = np.array([math.cos(th / 2), math.sin(th / 2), 0.0, 0.0])
    axis = dcm_from_quat(p) @ [0.0, 0.0, 1.0]
    r = l * axis
    spin = w3 - rate * math.cos(th)  # relative to the precessing frame
    omega = rate * np.array([0.0, 0.0, 1.0]) + spin * axis
    model = SpatialModel(gravity=(0.0, 0.0, -G))
    model.add_body("base", inertia=np.eye(3))
    model.fix("base")
    model.add_body("top", r, p, mass=m, inertia=[A_c, A_c, C], velocity=np.cross(omega, r),
                   angular_velocity=omega)
    model.add_spherical("base", "top", (0, 0, 0), (0, 0, -l))
    res = simulate(model.system(), t_end, Projection(rtol=1e-10, atol=1e-10),
                   t_eval=np.linspace(0, t_end, 41))
    tips = np.array([dcm_from_quat(q[10:14] / np.linalg.norm(q[10:14])) @ [0, 0, 1.0] for q in res.q])
    az = np.unwrap(np.arctan2(tips[:, 1], tips[:, 0]))
    return rate, (az[-1] - az[0]) / t_end, np.ptp(np.arccos(tips[:, 2]))


def test_7_6_steady_precession_by_simulation_and_mistakes():
    p = get("7.6").params
    rate, measured, tilt_change = simulated_precession(**p)
    assert measured == pytest.approx(rate, rel=1e-6) and tilt_change < 1e-7
    assert_correct("7.6", rate)
    assert_hint("7.6", p["m"] * G * p["l"] / (p["C"] * p["w3"]), "fast-top estimate")
    assert_hint("7.6", rate / (2 * math.pi), "revolutions")
    for q in variants("7.6"):
        A_cos = (q["A_c"] + q["m"] * q["l"] ** 2) * math.cos(math.radians(q["theta_deg"]))
        slow, fast = np.sort(np.roots([A_cos, -q["C"] * q["w3"], q["m"] * G * q["l"]]).real)
        assert judged("7.6", slow, q).verdict == "correct"
        assert_variant_hint("7.6", fast, q, "FAST root")
        assert q["C"] * q["w3"] > 0 and fast > 3 * slow  # a fast top: the two roots well apart
    assert_keys_differ("7.6", variants("7.6"))


@pytest.mark.slow
def test_7_6_variant_precession_by_simulation():
    rate, measured, _ = simulated_precession(**variants("7.6")[0], t_end=0.2)
    assert measured == pytest.approx(rate, rel=1e-5)


# ---------------------------------------------------------------- 7.7 the rolling disk
def test_7_7a_counts_by_rank_and_mistakes():
    model = disk_on_circle(0.3, 0.4, 1.0, 1.2)
    q = model.q_guess()
    J, rank = fd_rank(model.phi, q)
    B = model.B(q)
    assert J.shape == (2, 7) and rank == 2 and B.shape == (2, 7)
    assert np.linalg.matrix_rank(np.vstack([J, B])) == 4
    assert_correct("7.7a", [7, 2, 2, 5, 3])
    assert_hint("7.7a", [7, 1, 2, 6, 4], "normalization row")
    assert_hint("7.7a", [6, 1, 2, 5, 3], "7 coordinates")
    assert_hint("7.7a", [7, 2, 3, 5, 2], "two nonholonomic rows")
    assert_hint("7.7a", [7, 2, 2, 3, 3], "velocities only")
    assert_hint("7.7a", [7, 2, 2, 5, 5], "velocity DOF are fewer")


@pytest.fixture(scope="module")
def kane_disk():
    """The rolling disk by sympy's KanesMethod (as in the chapter), lambdified with m = 1, R and g free."""
    R, g = sp.symbols("R g", positive=True)
    disk = rolling_disk_kanes_method(R, 1, g)
    KM, (q1, q2, q3), (u1, u2, u3) = disk["KM"], disk["q"], disk["u"]
    s, th, Om = sp.symbols("s theta Omega", real=True)
    steady = {u1: 0, u2: s + Om * sp.sin(q2), u3: Om * sp.cos(q2)}
    lean_eq = KM.forcing[0].subs(KM.kindiffdict()).subs(steady).subs(q2, th)
    qs, us = [q1, q2, q3], [u1, u2, u3]
    args = [R, g] + qs + us
    kd = KM.kindiffdict()
    return {"lean": sp.lambdify([R, g, th, Om, s], lean_eq),
            "MM": sp.lambdify(args, KM.mass_matrix), "F": sp.lambdify(args, KM.forcing),
            "qd": sp.lambdify(args, [kd[sp.diff(x)] for x in qs])}


def test_7_7b_steady_radius_from_kanes_lean_equation_and_mistakes(kane_disk):
    from scipy.optimize import brentq

    for p in [get("7.7b").params] + variants("7.7b"):
        R, v, th = p["radius"], p["speed"], math.radians(p["lean_deg"])

        def lean_residual(rho, R=R, v=v, th=th):  # the chapter's lean q2 = theta: Omega v < 0
            Om = -v / rho
            return kane_disk["lean"](R, G, th, Om, v / R - Om * math.sin(th))

        rho = brentq(lean_residual, 0.01, 100.0, xtol=1e-14)
        assert judged("7.7b", rho, p).verdict == "correct", (p, rho)
        assert_variant_hint("7.7b", 3 * v * v / (2 * G * math.tan(th)), p, "small disk")
        assert_variant_hint("7.7b", v * v / (G * math.tan(th)), p, "point mass")
        assert_variant_hint("7.7b", rho + R * math.sin(th), p, "contact point")
        assert get("7.7b").sanity(rho, **p) is None and get("7.7b").sanity(-rho, **p)
    assert_keys_differ("7.7b", variants("7.7b"))
    assert_correct("7.7b", 0.962035388416134)


def kane_lean_after(kane_disk, radius, speed, lean_deg, lean_rate, t_end):
    """The pushed disk of 7.7c in Kane's coordinates (q2 = -lean) and independent speeds, by solve_ivp."""
    th = math.radians(lean_deg)
    rho = get("7.7b").key(params={"radius": radius, "speed": speed, "lean_deg": lean_deg})
    Om = speed / rho
    spin = speed / radius + Om * math.sin(th)
    # omega = Omega z + spin a - lean_rate x, with x = L.x, a = L.y, up = L.z at q2 = -lean
    y0 = [0.0, -th, 0.0, -lean_rate, spin - Om * math.sin(th), Om * math.cos(th)]

    def rhs(_, y):
        a = [radius, G, *y]
        MM, F = np.asarray(kane_disk["MM"](*a), float), np.asarray(kane_disk["F"](*a), float).ravel()
        ud = np.linalg.solve(MM, F)
        return np.r_[np.asarray(kane_disk["qd"](*a), float).ravel(), ud]

    sol = solve_ivp(rhs, (0.0, t_end), y0, method="DOP853", rtol=1e-11, atol=1e-11)
    return -sol.y[1, -1]


def test_7_7c_simulation_agrees_with_kanes_equations_and_mistakes(kane_disk):
    for p in [get("7.7c").params] + variants("7.7c")[:2]:
        lean = kane_lean_after(kane_disk, **{k: p[k] for k in ("radius", "speed", "lean_deg", "lean_rate",
                                                                 "t_end")})
        assert judged("7.7c", lean, p).verdict == "correct", (p, lean)
        assert abs(lean - math.radians(p["lean_deg"])) > 1e-3  # the push changed the lean
        assert_variant_hint("7.7c", math.degrees(lean), p, "radians")
        assert_variant_hint("7.7c", math.radians(p["lean_deg"]), p, "at the start")
        assert_variant_hint("7.7c", math.pi / 2 - lean, p, "from the vertical")
        assert get("7.7c").sanity(lean, **p) is None and get("7.7c").sanity(math.degrees(lean), **p)
    assert_keys_differ("7.7c", variants("7.7c"))


def test_disk_on_circle_is_a_steady_circle_and_lean_of_reads_its_lean():
    lean, v = math.radians(25.0), 2.0
    rho = get("7.7b").key(params={"radius": 0.25, "speed": v, "lean_deg": 25.0})
    model = disk_on_circle(0.25, lean, v, v / rho)
    assert lean_of(model.q_guess()) == pytest.approx(lean, abs=1e-14)
    run = simulate(model.system(), 0.5, Projection(rtol=1e-10, atol=1e-10), t_eval=np.linspace(0, 0.5, 11))
    assert max(abs(lean_of(q) - lean) for q in run.q) < 1e-7
    speeds = np.linalg.norm(run.qd[:, :3], axis=1)
    assert np.ptp(speeds) < 1e-7 and speeds[0] == pytest.approx(v, rel=1e-12)


# ---------------------------------------------------------------- 7.8 the Chaplygin sleigh
def test_7_8_final_speed_by_the_planar_model_and_mistakes():
    p = get("7.8").params
    m, I, a, v0, w0 = (p[k] for k in ("m", "I", "a", "v0", "w0"))
    sleigh = PlanarModel(gravity=(0.0, 0.0))
    sleigh.add_body("sleigh", m, I, position=(0.0, 0.0), angle=0.0, velocity=(v0, -a * w0),
                    angular_velocity=w0)
    sleigh.add_knife_edge("sleigh", point=(a, 0.0), axis=(1.0, 0.0))
    run = simulate(sleigh.system(), 30.0, Projection(rtol=1e-10, atol=1e-10), t_eval=[0.0, 30.0])
    th = run.q[-1, 2]
    v_end = run.qd[-1, :2] @ [math.cos(th), math.sin(th)]
    assert abs(run.qd[-1, 2]) < 1e-8
    assert_correct("7.8", v_end)
    v = get("7.8").key()
    assert_hint("7.8", -v, "BACKWARDS")
    assert_hint("7.8", -math.sqrt(v0**2 + I * w0**2 / m), "I + m a^2")
    assert_hint("7.8", -v0, "turning energy ends up")
    for q in variants("7.8"):
        key = get("7.8").key(params=q)
        energy = 0.5 * q["m"] * q["v0"] ** 2 + 0.5 * (q["I"] + q["m"] * q["a"] ** 2) * q["w0"] ** 2
        assert key < 0 and 0.5 * q["m"] * key**2 == pytest.approx(energy, rel=1e-12)
        assert_variant_hint("7.8", -key, q, "BACKWARDS")
    assert_keys_differ("7.8", variants("7.8"))


# ---------------------------------------------------------------- 7.9 the sleigh's total turn
def _sleigh_turn_by_simulation(m, I, a, v0, w0):
    """The heading turned, from the chapter's PlanarModel sleigh (multipliers), run until the yaw rate has
    died out (it decays like exp(-k t) with k = a m V / J)."""
    sleigh = PlanarModel(gravity=(0.0, 0.0))
    sleigh.add_body("sleigh", m, I, position=(0.0, 0.0), angle=0.0, velocity=(v0, -a * w0),
                    angular_velocity=w0)
    sleigh.add_knife_edge("sleigh", point=(a, 0.0), axis=(1.0, 0.0))
    J = I + m * a * a
    k = a * m * math.sqrt(v0**2 + J * w0**2 / m) / J
    t_end = 30.0 / k + 2.0 * abs(math.atanh(v0 / math.sqrt(v0**2 + J * w0**2 / m))) / k
    run = simulate(sleigh.system(), t_end, Projection(rtol=1e-11, atol=1e-11), t_eval=[0.0, t_end])
    assert abs(run.qd[-1, 2]) < 1e-9 * abs(w0)
    return run.q[-1, 2] - run.q[0, 2]


def test_7_9_total_turn_by_the_planar_model_and_mistakes():
    ex = get("7.9")
    for q in [ex.params] + variants("7.9")[:3]:
        turn = _sleigh_turn_by_simulation(**q)
        assert ex.key(params=q) == pytest.approx(turn, rel=1e-7), q
        assert_variant_correct("7.9", turn, q)
        assert_variant_hint("7.9", -turn, q, "the way it started")
        assert_variant_hint("7.9", math.degrees(turn), q, "radians")
    m, I, a, v0, w0 = (ex.params[k] for k in ("m", "I", "a", "v0", "w0"))
    J = I + m * a * a
    assert_hint("7.9", math.sqrt(J / m) / a * math.pi / 2, "gd(kappa t0)")
    assert_hint("7.9", math.sqrt(I / m) / a * (math.pi / 2 + math.atan(math.sinh(
        math.atanh(v0 / math.sqrt(v0**2 + I * w0**2 / m))))), "blade point")
    assert_keys_differ("7.9", variants("7.9"))


def test_7_9_a_sleigh_started_backwards_turns_less():
    """Started backwards (v0 < 0) the yaw rate only decays: the turn is below (√(J/m)/a) π/2."""
    q = dict(get("7.9").params, v0=-0.5)
    turn = _sleigh_turn_by_simulation(**q)
    J = q["I"] + q["m"] * q["a"] ** 2
    assert 0 < turn < math.sqrt(J / q["m"]) / q["a"] * math.pi / 2
    assert get("7.9").key(params=q) == pytest.approx(turn, rel=1e-7)


# ---------------------------------------------------------------- 7.10 the rolling rows (a function)
def rows_by_motion(q, qd, radius, h=1e-6):
    """The two rolling rows from the motion itself: the disk's material point at the contact, kept in body
    coordinates and carried by a central difference of the body's pose; its velocity times |w| in x, y."""
    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    A = dcm_from_quat(q[3:7])
    a = A @ [0.0, 1.0, 0.0]
    w = np.array([0.0, 0.0, 1.0]) - a[2] * a
    s_body = A.T @ (-radius * w / np.linalg.norm(w))  # the contact point in body coordinates

    def point(step):
        p = q[3:7] + step * qd[3:7]
        return q[:3] + step * qd[:3] + dcm_from_quat(p / np.linalg.norm(p)) @ s_body

    v = (point(h) - point(-h)) / (2 * h)
    return np.linalg.norm(w) * v[:2]


def test_7_10_reference_is_the_contact_points_velocity_and_rolling_gives_zero():
    ex = get("7.10")
    for seed in (None, *VARIANT_SEEDS):
        for q, qd, radius in ex.grading_cases(None if seed is None else np.random.default_rng(seed)):
            np.testing.assert_allclose(ex.key(q, qd, radius), rows_by_motion(q, qd, radius), atol=1e-8)
    m = disk_on_circle(0.3, 0.35, 1.5, 1.5)  # a disk that rolls: both rows vanish
    q, qd = m.q_guess(), m.qd_guess()
    np.testing.assert_allclose(ex.key(q, qd, 0.3), 0.0, atol=1e-12)
    assert_correct("7.10", rows_by_motion)


def test_7_10_mistakes_on_public_and_hidden_cases():
    from mbdlib.exercises import ch07

    ex = get("7.10")
    expect = [({"scale": False}, "times |w|"), ({"frame": "body"}, "BODY"),
              ({"side": 1.0}, "top of the disk"), ({"turn": False}, "rotation moves")]
    for kw, words in expect:
        def wrong(q, qd, radius, kw=kw):
            return ch07._rows(q, qd, radius, **kw)

        assert_hint("7.10", wrong, words)
        for seed in VARIANT_SEEDS:
            cases = ex.grading_cases(np.random.default_rng(seed))
            v = judge(ex, [wrong(*c) for c in cases], cases, {})
            assert v.verdict == "wrong" and words in v.hint, (seed, words, v)
    assert_hint("7.10", lambda q, qd, radius: np.zeros(3), "two rows")
    assert evaluate("7.10", lambda q, qd, radius: None).verdict == "unanswered"
    table = [(c, ex.key(*c)) for c in ex.grading_cases(None)]

    def lookup(q, qd, radius):  # right on the public cases only
        return next((k for c, k in table if np.allclose(c[0], q) and np.allclose(c[1], qd)), np.zeros(2))

    assert_correct("7.10", lookup)
    cases = ex.grading_cases(np.random.default_rng(VARIANT_SEEDS[0]))
    assert judge(ex, [lookup(*c) for c in cases], cases, {}).verdict == "wrong"


def test_7_hints_print_no_expected_value():
    for ex in exercises(7):
        for mistake in ex.mistakes:
            text = re.sub(r"\b7\.\d+[a-z]?\b", "", mistake.hint)  # another exercise's id is no value
            assert not re.search(r"\d\.\d", text), (ex.id, mistake.hint)


# ---------------------------------------------------------------- never crash, never accept junk
JUNK = [None, math.nan, [math.nan] * 3, "answer", True, [True, True], np.zeros((2, 2)), np.full(3, np.inf),
        {"a": 1}, Exploding(), lambda *a: 1 / 0, sp.Symbol("zz"), sp.zeros(2, 1), sp.nan, np.zeros(0)]


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_never_crashes_never_correct(answer):
    assert_never_crashes_never_correct(7, answer)


# ---------------------------------------------------------------- the notebooks
def test_exercise_notebook_handed_out_says_not_answered_everywhere():
    nb = nbformat.read(ROOT / "exercises" / "ch07_spatial.ipynb", as_version=4)
    assert execute(nb, ROOT / "exercises", timeout=240) == ("ok", "")
    records = records_in(nb)
    assert sorted(records) == sorted(x.id for x in exercises(7))
    for ex in [x.id for x in exercises(7) if x.is_function]:
        assert records.pop(ex).get("function") == get(ex).function_name, ex
    for ex, rec in records.items():
        json.dumps(rec)
        assert _judge_value(get(ex), rec, get(ex).params).verdict == "unanswered", ex


def test_solution_notebook_says_every_answer_is_correct():
    """The stored outputs (nbval in `make test` re-executes the notebook and compares them: they are what it
    prints): every check line says correct, and every recorded value is judged correct."""
    nb = nbformat.read(ROOT / "solutions" / "ch07_spatial.ipynb", as_version=4)
    assert nb.metadata["mbdlib"]["chapter"] == 7
    records = records_in(nb)
    assert sorted(records) == sorted(x.id for x in exercises(7))
    for ex in exercises(7):
        cell = next(c for c in nb.cells if c.cell_type == "code" and f'check("{ex.id}"' in c.source)
        texts = [o.get("data", {}).get("text/plain", "") for o in cell.outputs]
        assert any(f"✓ {ex.id} correct" in t for t in texts), (ex.id, texts)
        if not ex.is_function:
            assert _judge_value(ex, records[ex.id], ex.params).verdict == "correct", ex.id


@pytest.mark.slow
def test_released_chapter_7_graded_for_two_students(tmp_path):
    """Release the solution notebook for two students and grade: every exercise correct for both, the
    function 7.3 on each one's hidden cases; the keys of the variant exercises differ between them."""
    import csv

    from mbdlib.exercises.grade import grade, read_secret, student_params
    from mbdlib.exercises.release import release_variants

    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,file\ns1,Ann,ann.ipynb\ns2,Bo,bo.ipynb\n")
    secret = tmp_path / "secret"
    secret.write_bytes(b"chapter-7-secret-for-the-tests-0123456789")
    release_variants(ROOT / "solutions" / "ch07_spatial.ipynb", roster, secret, tmp_path / "rel",
                     allow_solutions=True)
    out = tmp_path / "grades.csv"
    grade([tmp_path / "rel"], out, timeout=120, workers=2, roster=roster, secret_file=secret,
          log=lambda *a: None)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 2 * len(exercises(7))
    assert all(r["verdict"] == "correct" for r in rows), [r for r in rows if r["verdict"] != "correct"]
    key = read_secret(secret)
    changed = [ex.id for ex in exercises(7) if ex.variant is not None and not np.allclose(
        *(np.asarray(ex.key(params=student_params(ex, s, key)), dtype=float) for s in ("s1", "s2")))]
    assert {"7.1", "7.2", "7.6", "7.7b", "7.7c", "7.8", "7.9"} <= set(changed)


# ---------------------------------------------------------------- practice inside the pages (7.P1-7.P5)
PRACTICE = ["7.P1", "7.P2", "7.P3", "7.P4", "7.P5", "7.P6", "7.P7", "7.P8"]


def _practice_right(exercise_id):
    """Each practice answer rebuilt another way than its key, as the page (or a reader) computes it."""
    from mbdlib.exercises import ch07

    if exercise_id == "7.P1":  # the energy in global components: 1/2 w^T (A J' A^T) w
        A = dcm_from_quat(ch07.PAGE_P)
        return 0.5 * ch07.PAGE_OMEGA @ (A @ ch07.PAGE_J @ A.T) @ ch07.PAGE_OMEGA
    if exercise_id == "7.P2":
        r = _door().dof_report()
        return [r.coordinates, r.constraints, r.dof]
    if exercise_id == "7.P3":
        r = _bricard_universal_j1().dof_report()
        return [r.grubler, r.rank, r.dof]
    if exercise_id == "7.P4":  # the root of Kane's lean equation (the oracle), numerically
        from scipy.optimize import brentq

        return brentq(lambda s: _kane_lean(s, ch07.PAGE_LEAN, ch07.PAGE_TURN), -100.0, 100.0)
    if exercise_id == "7.P6":  # the contact point's velocity from the body's motion (central difference)
        m = ch07.page_slipping_disk()
        return rows_by_motion(m.q_guess(), m.qd_guess(), ch07.PAGE_ROLL["radius"])
    if exercise_id == "7.P7":  # the peak of the simulated yaw rate: where v (its derivative's sign) is zero
        return _sleigh_peak_by_simulation(**ch07.PAGE_SLEIGH)
    if exercise_id == "7.P8":  # d v_O / d u2 of the oracle's disk, whose speeds roll by construction
        disk = rolling_disk_kanes_method(ch07.PAGE_KANE["radius"], 2.0, G)
        v2 = me.partial_velocity([disk["centre"].vel(disk["N"])], [disk["u"][1]], disk["N"])[0][0]
        v2 = v2.to_matrix(disk["N"]).subs({disk["q"][0]: ch07.PAGE_KANE["heading"], disk["q"][1]: 0.3})
        return np.array(v2, dtype=float).ravel()
    t = ch07.PAGE_TOP  # 7.P5: where the quadratic's two real roots meet (bisection on real roots)
    A = t["A_c"] + t["m"] * t["l"] ** 2

    def real_roots(w3):
        return np.isreal(np.roots([A * math.cos(t["theta"]), -t["C"] * w3, t["m"] * G * t["l"]])).all()

    lo, hi = 1.0, 200.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if real_roots(mid) else (mid, hi)
    return hi


def _sleigh_peak_by_simulation(m, I, a, v0, w0):
    """[t, ω] where the simulated sleigh turns fastest: ω̇ ∝ v ω, so the peak is where the blade's speed v
    crosses zero (a root of the dense solution of the Newton–Euler equations with the blade's force)."""
    from scipy.optimize import brentq

    def rhs(_, y):  # x, y, phi, their rates: m r_G'' = lam u2, I phi'' = a lam, with (r_P)' . u2 = 0
        phi, vx, vy, w = y[2], y[3], y[4], y[5]
        u1, u2 = np.array([math.cos(phi), math.sin(phi)]), np.array([-math.sin(phi), math.cos(phi)])
        v = np.array([vx, vy]) @ u1
        lam = m * I * v * w / (I + m * a * a)  # from d/dt (r_G' . u2 + a w) = 0
        acc = lam / m * u2
        return [vx, vy, w, acc[0], acc[1], a * lam / I]

    sol = solve_ivp(rhs, (0.0, 3.0), [0.0, 0.0, 0.0, v0, -a * w0, w0], method="DOP853", rtol=1e-12,
                    atol=1e-12, dense_output=True)

    def blade(t):
        y = sol.sol(t)
        return y[3] * math.cos(y[2]) + y[4] * math.sin(y[2])

    t_peak = brentq(blade, 0.0, 3.0, xtol=1e-14)
    return np.array([t_peak, sol.sol(t_peak)[5]])


def _door():
    m = SpatialModel(gravity=(0.0, 0.0, -G))
    m.add_body("ground", inertia=np.eye(3))
    m.fix("ground")
    m.add_body("door", (0.5, 0.0, 1.0), inertia=[0.5, 0.4, 0.1])
    m.add_cylindrical("ground", "door", (0.0, 0.0, 1.0), (-0.5, 0.0, 0.0), axis_i=(0, 0, 1))
    m.add_distance("ground", "door", (1.0, 0.5, 0.0), (0.5, 0.0, -0.5))
    return m


def _bricard_universal_j1():
    """The chapter's Bricard linkage with J1 a universal joint whose cross is g_i = -x on link 0 and y on
    link 1 (the revolute's row "axis g"; the row "axis f", the redundant one, left out)."""
    V = np.array([(1, 1, 0), (0, 1, 0), (0, 1, 1), (0, 0, 1), (1, 0, 1), (1, 0, 0)], dtype=float)
    axes = [(0, 0, 1), (0, 1, 0), (1, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)]
    mid = [(V[k] + V[(k + 1) % 6]) / 2 for k in range(6)]
    m = SpatialModel()
    for k in range(6):
        m.add_body(f"link{k}", mid[k])
    m.fix("link0")
    for k in range(6):
        ends = (f"link{(k - 1) % 6}", f"link{k}", V[k] - mid[k - 1], V[k] - mid[k])
        if k == 1:
            m.add_universal(*ends, axis_i=(-1.0, 0.0, 0.0), axis_j=axes[1], name="J1")
        else:
            m.add_revolute(*ends, axis_i=axes[k], name=f"J{k}")
    return m


def _kane_lean(spin, lean, turn):
    """Kane's lean equation (the oracle's forcing term of u1) at steady turning, the page's disk."""
    from mbdlib.exercises import ch07

    disk = rolling_disk_kanes_method(ch07.PAGE_DISK_R, 2.0, G)
    KM, (q1, q2, q3), (u1, u2, u3) = disk["KM"], disk["q"], disk["u"]
    steady = {u1: 0, u2: spin + turn * sp.sin(lean), u3: turn * sp.cos(lean)}
    return float(KM.forcing[0].subs(KM.kindiffdict()).subs(steady).subs({q1: 0, q2: lean, q3: 0}))


@pytest.mark.parametrize("exercise_id", PRACTICE)
def test_practice_right_answer_is_correct(exercise_id):
    ex = get(exercise_id)
    assert ex.practice and ex.points == 0 and ex.mistakes
    assert evaluate(exercise_id, _practice_right(exercise_id)).verdict == "correct"


@pytest.mark.parametrize("exercise_id", PRACTICE)
def test_practice_each_mistake_gives_its_hint(exercise_id):
    ex = get(exercise_id)
    wrong = {"7.P3": {"[0, None, None]": [0, 41, 1], "[None, 40, None]": [1, 40, 1],
                      "[None, 42, None]": [1, 42, 1], "[1, 35, 1]": [1, 35, 1],
                      "[None, None, 0]": [1, 41, 0], "[None, None, 2]": [1, 41, 2]}}
    answers = list(wrong[exercise_id].values()) if exercise_id in wrong else \
        [mistake.answer() for mistake in ex.mistakes]
    assert len(answers) == len(ex.mistakes)
    for mistake, answer in zip(ex.mistakes, answers, strict=True):
        v = evaluate(exercise_id, answer)
        assert v.verdict == "wrong" and v.hint == mistake.hint, (exercise_id, mistake.hint, v)


@pytest.mark.parametrize("exercise_id", PRACTICE)
@pytest.mark.parametrize("junk", [None, "x", float("nan"), [1, 2], {"a": 1}, np.ones((3, 3)), Exploding()])
def test_practice_junk_never_crashes(exercise_id, junk):
    assert evaluate(exercise_id, junk).verdict in ("wrong", "unanswered", "error")


def test_practice_numbers_are_the_pages():
    """The keys use the numbers of the chapter's pages; the block's energy is also the SpatialModel's."""
    from mbdlib.exercises import ch07

    free = SpatialModel(gravity=(0.0, 0.0, 0.0))
    free.add_body("block", (0.0, 0.0, 1.0), ch07.PAGE_P, mass=2.0, inertia=ch07.PAGE_J,
                  angular_velocity=ch07.PAGE_OMEGA)
    q, qd = free.q_guess(), free.qd_guess()
    assert np.allclose(qd[3:7], ch07.page_rates(), atol=1e-12)
    assert free.energy(q, qd) == pytest.approx(get("7.P1").key(), rel=1e-12)
    assert _bricard_universal_j1().dof_report().redundant == []
    assert "axis f" in bricard().dof_report().redundant[0]  # the row the universal joint leaves out
    assert _kane_lean(get("7.P4").key(), ch07.PAGE_LEAN, ch07.PAGE_TURN) == pytest.approx(0.0, abs=1e-9)
