"""Chapter 9 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: for 9.1, the impulse from the full KKT system solved by numpy (not the library's
range-space ``delassus``) and the page's pinned rod built as a PlanarModel; the bouncing ball's impact times
and accumulation point from the event-driven simulation (9.2, 9.P2); Newton's cradle by both laws as small
complementarity problems solved by enumerating the pushing contacts (9.3); the rocking block's amplitude
and a non-uniform cabinet's ratio from the event-driven simulation (9.4, 9.P3); the bowling ball's
slip-to-roll time, speed and energy from the simulated sphere (9.5a-c) and a disk with backspin (9.P4);
Painlevé's limit from the Delassus matrix of a PlanarModel rod and from the scheme's refusal just above it
(9.6); the clearance joint's first impact from time stepping (9.7); the rod landing on its end from
``impact`` on a free PlanarModel rod (9.P1).
"""

import itertools
import math
import re

import numpy as np
import pytest
from exercise_helpers import (
    Exploding,
    assert_correct,
    assert_hint,
    assert_keys_differ,
    assert_never_crashes_never_correct,
    assert_variant_correct,
    assert_variant_hint,
    variants,
)

from mbdlib import EventDriven, MbdError, PlanarModel, TimeStepping, impact, simulate
from mbdlib.contact import delassus
from mbdlib.contact_examples import (
    bouncing_ball,
    bowling_ball,
    clearance_slider_crank,
    rocking_block,
    sliding_disk,
)
from mbdlib.exercises import evaluate, exercises, get, practice_exercises
from mbdlib.exercises.ch09 import IMPULSE_CASES, P1, P2, P3, P4
from mbdlib.exercises.core import judge

G = 9.81


def test_chapter_9_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(9)
    assert len(exs) >= 6
    numbered = [re.fullmatch(r"9\.(\d+)([a-z]?)", x.id) for x in exs]
    assert all(numbered), [x.id for x in exs]
    for x in exs:
        assert 1 <= x.points <= 3 and len(x.mistakes) >= 2, x.id
        assert x.has_variants, x.id
    assert any(x.is_function for x in exs) and any(m[2] for m in numbered)
    practice = practice_exercises(9)
    assert [p.id for p in practice] == [f"9.P{k}" for k in range(1, 5)]
    assert all(p.points == 0 and len(p.mistakes) >= 2 for p in practice)


# ---------------------------------------------------------------- 9.1 the impulse through M and the joints
def per_unit_impulse(M, J, w):
    """The velocity jump per unit impulse along wᵀ, by the full KKT system [[M, Jᵀ], [J, 0]] (numpy's
    solve, not the library's range-space ``delassus``)."""
    M, w = np.asarray(M, dtype=float), np.asarray(w, dtype=float)
    J = np.asarray(J, dtype=float).reshape(-1, len(w))
    K = np.block([[M, J.T], [J, np.zeros((len(J), len(J)))]])
    return np.linalg.solve(K, np.concatenate([w, np.zeros(len(J))]))[:len(w)]


def kkt_impulse(M, J, w, qd, e):
    """Newton's impulse −(1 + e) u⁻ / W with W = w N wᵀ from :func:`per_unit_impulse`."""
    return -(1 + e) * (w @ qd) / (w @ per_unit_impulse(M, J, w))


def hidden(seed):
    return get("9.1").grading_cases(np.random.default_rng(seed))


def judged_fn(fn, cases):
    return judge(get("9.1"), [fn(*c) for c in cases], cases)


def test_9_1_key_is_the_kkt_impulse_and_the_pages_rod():
    ex = get("9.1")
    for seed in range(8):
        cases = ex.grading_cases(None) + hidden(seed)
        for M, J, w, qd, e in cases:
            key = ex.key(M, J, w, qd, e)
            assert key == pytest.approx(kkt_impulse(M, J, w, qd, e), rel=1e-10)
            assert key > 0
            # Newton's law and the joints after the impact: u+ = -e u-, J qd+ = 0
            qd_plus = qd + key * per_unit_impulse(M, J, w)
            assert w @ qd_plus == pytest.approx(-e * (w @ qd), abs=1e-10)
            assert np.allclose(np.reshape(J, (-1, len(w))) @ qd_plus, 0.0, atol=1e-10)
    # the page's pinned rod: IMPULSE_CASES[1] is its M, pin rows, stop row and velocities
    m, L = 2.0, 0.8
    model = PlanarModel(gravity=(0.0, -G))
    rod = model.add_body("rod", m, m * L * L / 12, position=(0.0, -L / 2), angle=-np.pi / 2,
                         velocity=(3.0 * L / 2, 0.0), angular_velocity=3.0)
    model.add_revolute(model.ground, rod, (0.0, 0.0), (-L / 2, 0.0))
    model.add_point_line(rod, (L / 2, 0.0), line_point=(0.0, -L), normal=(-1.0, 0.0), restitution=0.5,
                         friction=0.0, name="stop")
    s = model.system()
    assert np.allclose(s.phi_q(s.q0), -IMPULSE_CASES[1][1], atol=1e-15)          # the same rows (sign)
    assert np.allclose(s.contacts[0].kinematics(s.q0).Wn, IMPULSE_CASES[1][2])
    assert ex.key(*IMPULSE_CASES[1]) == pytest.approx(impact(s, s.q0, s.qd0).normal[0], rel=1e-12)
    assert ex.key(*IMPULSE_CASES[1]) == pytest.approx(2.4, rel=1e-12)                # (1 + e) l w / (3 / m)


def test_9_1_hidden_cases_vary_and_include_both_ends_of_e():
    cases = hidden(4)
    assert len(cases) == 6 and {c[4] for c in cases[:2]} == {0.0, 1.0}
    assert len({c[0].shape[0] for c in hidden(1) + hidden(2) + hidden(3)}) >= 3
    assert {len(c[1]) for c in hidden(1) + hidden(2) + hidden(3)} == {0, 1, 2}
    assert all(-2.0 - 1e-9 <= c[2] @ c[3] <= -0.5 + 1e-9 for c in cases)
    assert hidden(4)[3][0].tolist() == cases[3][0].tolist()                       # the same for a seed
    assert hidden(5)[3][0].tolist() != cases[3][0].tolist()


def test_9_1_a_right_function_passes_public_and_hidden_cases():
    assert_correct("9.1", kkt_impulse)
    for seed in (0, 1, 2):
        assert judged_fn(kkt_impulse, hidden(seed)).verdict == "correct"


def test_9_1_a_function_right_only_on_the_public_cases_fails_at_grading():
    public = {id(c[0]): get("9.1").key(*c) for c in IMPULSE_CASES}

    def memorised(M, J, w, qd, e):
        return public.get(id(M), 1.0)

    assert_correct("9.1", memorised)
    v = judged_fn(memorised, hidden(0))
    assert v.verdict == "wrong" and "for input" in v.hint


def _minv_only(M, J, w, qd, e):
    return -(1 + e) * (w @ qd) / (w @ np.linalg.solve(M, w))


def _mass_not_inverse(M, J, w, qd, e):
    M, w = np.asarray(M, dtype=float), np.asarray(w, dtype=float)
    J = np.asarray(J, dtype=float).reshape(-1, len(w))
    N = M - M @ J.T @ np.linalg.solve(J @ M @ J.T, J @ M) if len(J) else M
    return -(1 + e) * (w @ qd) / (w @ N @ w)


@pytest.mark.parametrize("seed", [None, 0, 3])
def test_9_1_each_mistake_gets_its_hint_on_public_and_hidden_cases(seed):
    cases = get("9.1").grading_cases(None) if seed is None else hidden(seed)
    assert any(len(c[1]) for c in cases) and not all(len(c[1]) for c in cases)   # joints in some cases
    ratio = lambda M, J, w, qd, e: kkt_impulse(M, J, w, qd, e) / (1 + e)         # noqa: E731
    for fn, word in (
        (lambda *c: -kkt_impulse(*c), "only pushes"),
        (ratio, "only stops the approach"),
        (lambda M, J, w, qd, e: ratio(M, J, w, qd, e) * e, "(1 + e), not e"),
        (_mass_not_inverse, "INVERSE of the mass matrix"),
        (_minv_only, "the joints take part"),
        (lambda M, J, w, qd, e: -(1 + e) * (w @ qd) * (w @ per_unit_impulse(M, J, w)), "multiplied by W"),
        (lambda M, J, w, qd, e: -(1 + e) * (w @ qd), "jump of the normal velocity"),
    ):
        v = judged_fn(fn, cases)
        assert v.verdict == "wrong" and word in v.hint, (word, v)


def test_9_1_junk_gets_a_clear_message():
    cases = {
        None: "replace None", "impulse": "expected a function", 3.0: "expected a function",
        (lambda *a: 1 / 0): "ZeroDivisionError", (lambda *a: "x"): "your function's result",
        (lambda *a: np.ones(2)): "shape", (lambda *a: float("nan")): "NaN",
        (lambda *a: None): "returns None",
    }
    for junk, words in cases.items():
        v = evaluate("9.1", junk)
        assert v.verdict in ("wrong", "unanswered", "error") and v.points == 0, (junk, v)
        assert words in v.hint, (words, v.hint)


# ---------------------------------------------------------------- 9.2 the k-th impact of a ball
def simulated_impact_time(h0, e, k):
    run = simulate(bouncing_ball(height=h0, restitution=e).system(), 5.0, EventDriven())
    return run.impacts[k - 1].t


def test_9_2_key_is_the_simulated_impact_and_mistakes():
    for p in [get("9.2").params] + variants("9.2")[:3]:
        key = get("9.2").key(params=p)
        assert key == pytest.approx(simulated_impact_time(**p), abs=1e-8)
        assert_variant_correct("9.2", key, p)
        h0, e, k = p["h0"], p["e"], p["k"]
        assert_variant_hint("9.2", simulated_impact_time(h0, e, k + 1), p, "one impact too many")
        assert_variant_hint("9.2", simulated_impact_time(h0, e, k - 1), p, "one impact too few")
        t1 = math.sqrt(2 * h0 / G)
        assert_variant_hint("9.2", key - t1, p, "first fall")
        assert_variant_hint("9.2", t1 + sum(2 * e ** (2 * j) * t1 for j in range(1, k)), p, "by e^2")
        assert_variant_hint("9.2", t1 + sum(e**j * t1 for j in range(1, k)), p, "up and comes down")
    assert_keys_differ("9.2", variants("9.2"))


# ---------------------------------------------------------------- 9.3 Newton's cradle by both laws
def enumerated_lcp(W, b):
    """The P ≥ 0 with W P + b ≥ 0, complementary, found by trying every set of pushing contacts."""
    found = []
    for pushing in itertools.product([False, True], repeat=len(b)):
        a = np.array(pushing)
        P = np.zeros(len(b))
        if a.any():
            P[a] = np.linalg.solve(W[np.ix_(a, a)], -b[a])
        if (P >= -1e-12).all() and (W @ P + b >= -1e-12).all():
            found.append(P)
    assert found and all(np.allclose(f, found[0]) for f in found)   # unique (W is positive definite)
    return found[0]


def cradle_by_hand(e12, e23, v):
    H = np.array([[-1.0, 1.0, 0.0], [0.0, -1.0, 1.0]])   # u_n of the two contacts, unit masses
    W, e, before = H @ H.T, np.array([e12, e23]), np.array([v, 0.0, 0.0])
    u = H @ before
    newton = before + H.T @ enumerated_lcp(W, u + e * np.minimum(u, 0.0))
    Pc = enumerated_lcp(W, u)
    x = enumerated_lcp(W, u + W @ ((1 + e) * Pc))
    return np.vstack([newton, before + H.T @ ((1 + e) * Pc + x)])


def test_9_3_key_is_the_enumerated_complementarity_problems_and_mistakes():
    np.testing.assert_allclose(cradle_by_hand(0.0, 1.0, 1.0), [[1 / 3] * 3, [1 / 6, 1 / 6, 2 / 3]])  # page
    for p in [get("9.3").params] + variants("9.3")[:3]:
        key = get("9.3").key(params=p)
        np.testing.assert_allclose(key, cradle_by_hand(**p), atol=1e-12)
        np.testing.assert_allclose(key.sum(axis=1), p["v"])                     # momentum kept
        assert_variant_correct("9.3", key, p)
        assert_variant_hint("9.3", key[::-1], p, "other way round")
        assert_variant_hint("9.3", key[[0, 0]], p, "repeats Newton")
        assert_variant_hint("9.3", key[[1, 1]], p, "first row is Poisson")
        assert_variant_hint("9.3", [[0.0, 0.0, p["v"]]] * 2, p, "desk toy")
        assert_variant_hint("9.3", key[0], p, "shape")
    assert_keys_differ("9.3", variants("9.3"))


# ---------------------------------------------------------------- 9.4 the rocking block's amplitude
def simulated_amplitude(b, h, tilt):
    """The block's tilt at the top of its swing on the left corner: by symmetry, halfway between the first
    two impacts of the event-driven simulation."""
    s = rocking_block(half_width=b, half_height=h, tilt=tilt).system()
    hits = simulate(s, 2.0, EventDriven()).impacts
    t_top = 0.5 * (hits[0].t + hits[1].t)
    return abs(simulate(s, t_top, EventDriven(), t_eval=[t_top]).q[-1, 2])


def test_9_4_key_is_the_simulated_amplitude_and_mistakes():
    for p in [get("9.4").params] + variants("9.4")[:2]:
        key = get("9.4").key(params=p)
        assert key == pytest.approx(simulated_amplitude(**p), abs=1e-8)
        assert_variant_correct("9.4", key, p)
        alpha = math.atan2(p["b"], p["h"])
        r = 1 - 1.5 * math.sin(alpha) ** 2
        assert_variant_hint("9.4", r * r * p["tilt"], p, "not r^2 times the tilt")
        assert_variant_hint("9.4", r * p["tilt"], p, "not r times the tilt")
        assert_variant_hint("9.4", p["tilt"], p, "loses energy")
        assert_variant_hint("9.4", math.degrees(key), p, "degrees")
        once = alpha - math.acos(math.cos(alpha) + r * (math.cos(alpha - p["tilt"]) - math.cos(alpha)))
        assert_variant_hint("9.4", once, p, "VELOCITY")
    assert_keys_differ("9.4", variants("9.4"))


# ---------------------------------------------------------------- 9.5 the bowling ball
@pytest.fixture(scope="module")
def lanes():
    """For the public and two students' balls: the simulated sphere at 0, 0.9 t_s and 1.1 t_s."""
    out = []
    for p in [get("9.5a").params] + variants("9.5a")[:2]:
        t_s = get("9.5a").key(params=p)
        ball = bowling_ball(radius=p["R"], speed=p["v0"], friction=p["mu"], mass=p["m"])
        out.append((p, simulate(ball.system(), 1.1 * t_s, EventDriven(), t_eval=[0.0, 0.9 * t_s, 1.1 * t_s])))
    return out


def test_9_5_keys_are_the_simulated_ball_and_mistakes(lanes):
    for p, run in lanes:
        t_s, v_s, loss = (get(x).key(params=p) for x in ("9.5a", "9.5b", "9.5c"))
        omega = bowling_ball(radius=p["R"]).angular_velocities(run.q[-1], run.qd[-1])[0]
        assert run.qd[1, 0] == pytest.approx(p["v0"] - p["mu"] * G * 0.9 * t_s, abs=1e-7)   # sliding
        assert run.qd[2, 0] == pytest.approx(v_s, abs=1e-6)                              # rolling
        assert p["R"] * omega[1] == pytest.approx(v_s, abs=1e-6)
        assert run.energy[0] - run.energy[2] == pytest.approx(loss, abs=1e-5)
        for part, key in (("9.5a", t_s), ("9.5b", v_s), ("9.5c", loss)):
            assert_variant_correct(part, key, p)
        m, v0, mu = p["m"], p["v0"], p["mu"]
        assert_variant_hint("9.5a", v0 / (3 * mu * G), p, "disk's")
        assert_variant_hint("9.5a", v0 / (mu * G), p, "spins the ball up")
        assert_variant_hint("9.5a", v0 / (2 * mu * G), p, "ring's")
        assert_variant_hint("9.5b", 2 * v0 / 3, p, "disk's")
        assert_variant_hint("9.5b", v0, p, "slows the ball")
        assert_variant_hint("9.5c", 0.5 * m * (v0**2 - v_s**2), p, "translational energy alone")
        assert_variant_hint("9.5c", 0.5 * m * v0**2 / 3, p, "disk's")
        assert_variant_hint("9.5c", 0.5 * m * v0**2, p, "all the kinetic energy")
    for part in ("9.5a", "9.5b", "9.5c"):
        assert_keys_differ(part, variants(part))


# ---------------------------------------------------------------- 9.6 Painlevé's limit
def leaning_rod(p, mu):
    th = math.radians(p["theta_deg"])
    model = PlanarModel(gravity=(0.0, -G))
    rod = model.add_body("rod", p["m"], p["I_G"], angle=th, velocity=(-1.0, 0.0),
                         position=(p["L"] / 2 * math.cos(th), p["L"] / 2 * math.sin(th)))
    model.add_point_line(rod, (-p["L"] / 2, 0.0), restitution=0.0, friction=mu, name="end")
    return model.system()


def test_9_6_key_is_where_the_delassus_coefficient_vanishes_and_the_scheme_refuses():
    for p in [get("9.6").params] + variants("9.6")[:2]:
        key = get("9.6").key(params=p)
        s = leaning_rod(p, 0.5)
        kin = s.contacts[0].kinematics(s.q0, s.qd0)
        _, W = delassus(s, s.q0, np.vstack([kin.Wn, kin.Wt]))
        sliding = np.sign(kin.Wt[0] @ s.qd0)
        assert W[0, 0] - key * sliding * W[0, 1] == pytest.approx(0.0, abs=1e-12)
        with pytest.raises(MbdError, match="Painlevé"):
            simulate(leaning_rod(p, 1.05 * key), 0.05, EventDriven())
        assert simulate(leaning_rod(p, 0.95 * key), 0.05, EventDriven()).t[-1] == 0.05
        assert_variant_correct("9.6", key, p)
        th, kappa = math.radians(p["theta_deg"]), p["m"] * (p["L"] / 2) ** 2 / p["I_G"]
        assert_variant_hint("9.6", (1 + 3 * math.cos(th) ** 2) / (3 * math.sin(th) * math.cos(th)), p,
                            "UNIFORM")
        deg = p["theta_deg"]                                    # the angle's degrees taken as radians
        assert_variant_hint("9.6", (1 + kappa * math.cos(deg) ** 2) / (kappa * math.sin(deg) * math.cos(deg)),
                            p, "degrees")
        assert_variant_hint("9.6", 1 / key, p, "inverted")
        assert_variant_hint("9.6", 1 / math.tan(th), p, "only the rotation")
    assert_keys_differ("9.6", variants("9.6"))


# ---------------------------------------------------------------- 9.7 the clearance joint's first impact
def test_9_7_key_is_within_a_time_step_of_time_stepping_and_mistakes():
    keys = {}
    for p in [get("9.7").params] + variants("9.7")[:2]:
        key = keys[p["clearance_mm"]] = get("9.7").key(params=p)
        model, state = clearance_slider_crank(clearance=p["clearance_mm"] * 1e-3)
        dt = 1e-4
        steps = simulate(model.system(state), key + 5 * dt, TimeStepping(dt=dt))
        first = np.asarray(steps.t)[np.argmax(steps.contact_normal[:, 0] > 0)]
        assert 0 < first - key <= 1.5 * dt      # the step whose midpoint has passed the impact
        assert_variant_correct("9.7", key, p)
        assert_variant_correct("9.7", key * (1 + 1e-3), p)           # to 0.2 %
        assert_variant_hint("9.7", 1e3 * key, p, "milliseconds")
        assert_variant_hint("9.7", get("9.7").key(params={"clearance_mm": 0.1}), p, "0.1 mm")
        assert_variant_hint("9.7", key + 0.6e-3, p, "within a step")
    ordered = [keys[c] for c in sorted(keys)]
    assert ordered == sorted(ordered)                                # a wider gap takes longer to cross
    assert {v["clearance_mm"] for v in variants("9.7")}.isdisjoint({0.1, 0.2})
    assert_keys_differ("9.7", variants("9.7"))


def test_never_crashes_on_junk():
    for junk in (None, "x", [1, 2, 3], float("nan"), {"a": 1}, Exploding(), np.full((2, 3), np.inf)):
        assert_never_crashes_never_correct(9, junk)


# ---------------------------------------------------------------- practice 9.P1-9.P4
def test_practice_9_p1_the_rod_landing_on_its_end_by_impact():
    m, L, tilt = P1["m"], P1["length"], math.radians(P1["tilt_deg"])
    model = PlanarModel(gravity=(0.0, -G))
    rod = model.add_body("rod", m, m * L * L / 12, angle=tilt, velocity=(0.0, -P1["v"]),
                         position=(L / 2 * math.cos(tilt), L / 2 * math.sin(tilt)))
    model.add_point_line(rod, (-L / 2, 0.0), restitution=P1["e"], friction=0.0, name="end")
    s = model.system()
    hit = impact(s, s.q0, s.qd0)
    assert_correct("9.P1", hit.normal[0])
    ratio = hit.normal[0] / (1 + P1["e"])
    assert_hint("9.P1", (1 + P1["e"]) * P1["v"] * m, "point mass")
    assert_hint("9.P1", ratio, "AND restitute")
    assert_hint("9.P1", ratio * P1["e"], "(1 + e), not e")
    assert_hint("9.P1", (1 + P1["e"]) * P1["v"] * m / 3, "pinned rod")


def test_practice_9_p2_the_accumulation_point_of_the_simulated_ball():
    run = simulate(bouncing_ball(height=P2["h0"], restitution=P2["e"]).system(), 2.0, EventDriven())
    key = get("9.P2").key()
    assert run.zeno[0].t_accumulation == pytest.approx(key, rel=1e-6)
    assert_correct("9.P2", run.zeno[0].t_accumulation)
    t1 = math.sqrt(2 * P2["h0"] / G)
    assert_hint("9.P2", key - t1, "first fall")
    assert_hint("9.P2", t1 * (1 + P2["e"] / (1 - P2["e"])), "up AND comes down")


def test_practice_9_p3_the_cabinets_ratio_from_its_simulated_impact():
    cabinet = rocking_block(half_width=P3["b"], half_height=P3["h"], tilt=0.1, mass=P3["m"],
                            inertia=P3["I_G"])
    hit = simulate(cabinet.system(), 2.0, EventDriven()).impacts[0]
    ratio = hit.qd_plus[2] / hit.qd_minus[2]
    assert_correct("9.P3", ratio)
    assert_hint("9.P3", 1 / ratio, "r < 1")
    assert_hint("9.P3", ratio**2, "kinetic energies")
    assert_hint("9.P3", 1 - 1.5 * P3["b"] ** 2 / (P3["b"] ** 2 + P3["h"] ** 2), "UNIFORM")


def test_practice_9_p4_the_disk_with_backspin_simulated():
    disk = sliding_disk(radius=P4["R"], speed=P4["v0"], spin=-P4["spin"], friction=0.3)   # ccw > 0
    v_end = simulate(disk.system(), 2.0, EventDriven()).qd[-1, 0]
    assert_correct("9.P4", v_end)
    assert_hint("9.P4", P4["v0"] * 2 / 3, "spin at the start")
    assert_hint("9.P4", P4["v0"] + P4["R"] * P4["spin"], "does not just add")
