"""Chapter 9 exercises: contact and impact (solutions/ch09_contact.ipynb) and the practice inside its pages.

A contact is a unilateral constraint: a gap ``g(q) ≥ 0``, a normal force ``λ_n ≥ 0``, complementary
(:mod:`mbdlib.contact`).  At an impact the velocities jump by an impulse through the mass matrix and the
joints, ``q̇⁺ = q̇⁻ + N W_nᵀ P_n`` with ``N = M⁻¹ − M⁻¹Jᵀ(JM⁻¹Jᵀ)⁻¹JM⁻¹``; Newton's law asks
``u_n⁺ = −e u_n⁻``, so one contact takes ``P_n = −(1 + e) u_n⁻ / W`` with ``W = W_n N W_nᵀ``.  Every key
comes from mbdlib's public API (:func:`mbdlib.impact`, :func:`mbdlib.simulate` with
:class:`~mbdlib.schemes.EventDriven`) or from a closed form that the tests check against an independent
computation (a simulation, a momentum balance, :func:`mbdlib.impact`).  Hints say what is wrong (the factor
``1 + e``, a sign, the mass matrix instead of its inverse, the joints left out, the inertia of another body,
degrees, milliseconds ...) without printing the expected value.

9.1 asks for a FUNCTION, ``impulse(M, J, w, qd, e)``: the normal impulse of one frictionless impact for a
constant mass matrix, joint rows ``J`` (possibly none) and a contact's normal row ``w``, graded on hidden
random mechanisms (3 to 6 coordinates, 0 to 2 joint rows, ``e`` from 0 to 1) against :func:`mbdlib.impact`
of the same system (:func:`impulse_key`).  9.5a-c take one bowling ball from sliding to rolling, each part
graded on its own: (a) when it starts to roll, (b) how fast it then rolls, (c) the energy friction takes.

**Variants.** 9.2-9.7 draw each student's numbers (``params``/``variant``; the public numbers are the
notebook's); 9.1 draws its hidden cases.

=====  ======================================================  ======
id     exercise                                                points
=====  ======================================================  ======
9.1    The normal impulse through M and the joints (function)  3
9.2    The time of a bouncing ball's k-th impact               1
9.3    Newton's cradle by Newton's and by Poisson's law        2
9.4    A rocking block's amplitude after its first impact      2
9.5a   The bowling ball: when it starts to roll                1
9.5b   The bowling ball: its rolling speed                     1
9.5c   The bowling ball: the energy friction takes             2
9.6    Painlevé's limit for a rod that is not uniform          2
9.7    The first impact in a clearance joint                   2
=====  ======================================================  ======

Practice inside the pages (0 points): 9.P1 the impulse on a rod landing on its end and 9.P2 the bouncing
ball's accumulation time (page 9.1), 9.P3 Housner's ratio for a cabinet that is not uniform (page 9.2),
9.P4 the final rolling speed of a disk thrown with backspin (page 9.3).

References: J. J. Moreau, *Unilateral contact and dry friction in finite freedom dynamics*, 1988;
F. Pfeiffer & C. Glocker, *Multibody Dynamics with Unilateral Contacts*, 1996, ch. 4-7; B. Brogliato,
*Nonsmooth Mechanics*, 3rd ed., 2016, ch. 4 and 5; G. W. Housner, *The behavior of inverted pendulum
structures during earthquakes*, 1963; P. Painlevé, *Sur les lois du frottement de glissement*, 1895.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from ..contact import Contact, ContactKinematics, impact
from ..contact_examples import clearance_slider_crank, newtons_cradle
from ..dae import simulate
from ..schemes import EventDriven
from ..system import ConstrainedSystem
from .core import Exercise, Mistake, register

G = 9.81  # m/s²


# ------------------------------------------------------------------ practice on the pages
# 9.P1 (page 9.1): the page's rod (2 kg, 0.8 m), free and not turning, lands on one end at 2 m/s, tilted
# by 30° from the floor, e = 0.5.  A free body: W = 1/m + (r × n)² / I_G = (1 + 3 cos²θ) / m for a uniform
# rod's end.
P1 = {"m": 2.0, "length": 0.8, "v": 2.0, "tilt_deg": 30.0, "e": 0.5}


def _rod_impulse(m, length, v, tilt_deg, e, trig=math.cos, radians=True, gain=None):
    """(1 + e) v / W for the end of a free uniform rod, W = 1/m + (r × n)² / I_G with |r × n| = (ℓ/2) cos θ;
    ``trig``, ``radians`` and ``gain`` make the slips (sin for cos, the tilt's degrees taken as radians,
    another factor than 1 + e)."""
    arm = (length / 2) * trig(math.radians(tilt_deg) if radians else tilt_deg)
    W = 1 / m + arm * arm / (m * length * length / 12)
    return (1 + e if gain is None else gain) * v / W


register(
    Exercise(
        "9.P1",
        "The impulse on a rod landing on its end",
        0,
        reference=lambda: _rod_impulse(**P1),
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: (1 + P1["e"]) * P1["v"] * P1["m"],
                    "that is the impulse on a point mass (W = 1/m): the rod also turns, so its end is "
                    "lighter; add (r x n)^2 / I_G to W"),
            Mistake(lambda: _rod_impulse(**P1, gain=1.0),
                    "Newton's law asks u_n+ = -e u_n-: the impulse must undo the approach AND restitute e "
                    "of it, a factor (1 + e)"),
            Mistake(lambda: _rod_impulse(**P1, gain=P1["e"]),
                    "the factor is (1 + e), not e: the impulse first stops the approach, then restitutes"),
            Mistake(lambda: _rod_impulse(**P1, trig=math.sin),
                    "the arm of the normal about the centre is (l/2) cos(tilt), not sin: r is along the rod, "
                    "n vertical"),
            Mistake(lambda: _rod_impulse(**P1, radians=False),
                    "the tilt is in degrees: convert it to radians before taking the cosine"),
            Mistake(lambda: (1 + P1["e"]) * P1["v"] / (3 / P1["m"]),
                    "W = 3/m is the pinned rod of the worked example; here the rod is free: "
                    "W = 1/m + (r x n)^2 / I_G"),
        ],
    )
)

# 9.P2 (page 9.1): a ball dropped from 0.5 m, e = 0.6: t∞ = t₁ (1 + 2e/(1 − e)), t₁ = √(2h₀/g).
P2 = {"h0": 0.5, "e": 0.6}


def _t_inf(h0, e, first=True, factor=2.0, ratio=None):
    t1 = math.sqrt(2 * h0 / G)
    r = e if ratio is None else ratio
    return (t1 if first else 0.0) + factor * t1 * r / (1 - r)


register(
    Exercise(
        "9.P2",
        "The bouncing ball's accumulation time",
        0,
        reference=lambda: _t_inf(**P2),
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _t_inf(**P2, first=False),
                    "the first fall, t1 = sqrt(2 h0 / g), comes before the first bounce: add it"),
            Mistake(lambda: _t_inf(**P2, factor=1.0),
                    "each flight goes up AND comes down: it lasts 2 e^k t1, twice the fall from its apex"),
            Mistake(lambda: _t_inf(**P2, ratio=P2["e"] ** 2),
                    "the heights shrink by e^2 at each bounce, but the flight times by e (a time goes with "
                    "the speed, not the height)"),
            Mistake(lambda: math.sqrt(2 * P2["h0"] / G) * (1 + 2 / (1 - P2["e"])),
                    "the geometric series of the flights starts at 2 e t1 (the first flight after the first "
                    "impact), not at 2 t1"),
        ],
    )
)

# 9.P3 (page 9.2): a cabinet 0.6 × 2.0 m, 80 kg, I_G = 25 kg m² (not uniform), rocking from one edge onto the
# other: Housner's ratio by angular momentum about the new edge, r = (I_G + m R² cos 2α) / (I_G + m R²).
P3 = {"b": 0.3, "h": 1.0, "m": 80.0, "I_G": 25.0}


def _housner(b, h, m, I_G, cos2a=None, with_IG=True):
    R2 = b * b + h * h
    c = (h * h - b * b) / R2 if cos2a is None else cos2a
    I = I_G if with_IG else 0.0
    return (I + m * R2 * c) / (I + m * R2)


register(
    Exercise(
        "9.P3",
        "Housner's ratio for a cabinet that is not uniform",
        0,
        reference=lambda: _housner(**P3),
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: 1 - 1.5 * P3["b"] ** 2 / (P3["b"] ** 2 + P3["h"] ** 2),
                    "1 - (3/2) sin^2(alpha) holds for a UNIFORM block (I_G = m R^2 / 3); use the cabinet's "
                    "own I_G in the angular-momentum form"),
            Mistake(lambda: _housner(**P3, cos2a=P3["h"] / math.hypot(P3["b"], P3["h"])),
                    "the arm of G's velocity about the new edge is R cos(2 alpha), not R cos(alpha): OG and "
                    "O'G make the angle 2 alpha"),
            Mistake(lambda: _housner(**P3, with_IG=False),
                    "the block is not a point mass at G: its central moment of inertia I_G adds to both "
                    "sides of the angular-momentum balance"),
            Mistake(lambda: 1 / _housner(**P3),
                    "that is theta-dot before over after: the impact slows the block, so r < 1"),
            Mistake(lambda: _housner(**P3) ** 2,
                    "that is the ratio of the kinetic energies, r^2; the question asks for the ratio of "
                    "angular velocities"),
        ],
    )
)

# 9.P4 (page 9.3): a uniform disk (R = 0.2 m) thrown at 3 m/s with 20 rad/s of backspin: the angular momentum
# about the contact point, m v R + I ω (ω > 0 rolling forwards), is kept, so v_s = (v₀ R + (I/m) ω₀) /
# (R + I/(m R)) with ω₀ = −20 rad/s.
P4 = {"R": 0.2, "v0": 3.0, "spin": -20.0, "k": 0.5}   # k = I / (m R²): 1/2 for a uniform disk


def _final_roll(R, v0, spin, k):
    I_over_m = k * R * R
    return (v0 * R + I_over_m * spin) / (R + I_over_m / R)


register(
    Exercise(
        "9.P4",
        "The final rolling speed of a disk thrown with backspin",
        0,
        reference=lambda: _final_roll(**P4),
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _final_roll(**{**P4, "spin": -P4["spin"]}),
                    "backspin turns the disk the way that would roll it backwards: in m v R + I omega it "
                    "counts negative"),
            Mistake(lambda: _final_roll(**{**P4, "k": 0.4}),
                    "I = 2 m R^2 / 5 is a sphere's; a uniform disk has I = m R^2 / 2"),
            Mistake(lambda: _final_roll(**{**P4, "k": 1.0}),
                    "I = m R^2 is a ring's; a uniform disk has I = m R^2 / 2"),
            Mistake(lambda: _final_roll(**{**P4, "spin": 0.0}),
                    "the spin at the start counts too: it is part of the angular momentum about the contact "
                    "point"),
            Mistake(lambda: P4["v0"] + P4["R"] * P4["spin"],
                    "friction does not just add R omega to v: it changes v and omega together, keeping "
                    "m v R + I omega about the contact point"),
        ],
    )
)


# ================================================================== the exercise notebook
# ------------------------------------------------------------------ 9.1 the impulse (a function)
def impulse_key(M, J, w, qd, e):
    """The normal impulse of one frictionless impact, by :func:`mbdlib.impact` on a system made of the given
    matrices: a constant mass matrix ``M`` (n, n), joints ``J q = 0`` (rows J, (m, n), m may be 0), and one
    contact whose normal row is ``w`` (n,), touching, hit with the velocities ``qd`` (``J qd = 0``)."""
    M, w, qd = (np.asarray(x, dtype=float) for x in (M, w, qd))
    n = M.shape[0]
    J = np.asarray(J, dtype=float).reshape(-1, n)
    normal_row = w.copy()

    def geometry(q, qd_=None):
        return ContactKinematics(0.0, np.zeros(2), np.array([0.0, 1.0]), np.array([[1.0, 0.0]]), normal_row,
                                 np.zeros((1, n)))

    contact = Contact("c", "point-line", ("body", "ground"), float(e), 0.0, 1, geometry)
    joints = {}
    if len(J):
        joints = dict(phi=lambda q, t=0.0: J @ q, phi_q=lambda q, t=0.0: J,
                      gamma=lambda q, qd_, t=0.0: np.zeros(len(J)))
    system = ConstrainedSystem(n=n, M=lambda q: M, Q=lambda t, q, qd_: np.zeros(n), q0=np.zeros(n), qd0=qd,
                               contacts=(contact,), name="exercise 9.1", **joints)
    return float(impact(system, system.q0, qd, contacts=["c"]).normal[0])


def _impulse_formula(M, J, w, qd, e, gain=None, inverse=True, joints=True, divide=True):
    """``P = −(1 + e) u⁻ / W``, ``W = w N wᵀ`` (range space), with the typical slips for the mistakes: another
    ``gain`` than 1 + e, M for its inverse, the joints left out, W multiplied instead of divided by."""
    M, w, qd = (np.asarray(x, dtype=float) for x in (M, w, qd))
    n = M.shape[0]
    J = np.asarray(J, dtype=float).reshape(-1, n)
    Mi = np.linalg.inv(M) if inverse else M
    N = Mi
    if joints and len(J):
        N = Mi - Mi @ J.T @ np.linalg.solve(J @ Mi @ J.T, J @ Mi)
    W = float(w @ N @ w)
    jump = -((1 + e) if gain is None else gain(e)) * float(w @ qd)
    return jump / W if divide else jump * W


def _rod_case():
    """The pinned rod of page 9.1 (2 kg, 0.8 m, hanging, 3 rad/s, e = 0.5): coordinates x, y, φ of its centre;
    the pin's two rows at φ = −π/2 and the stop's normal row at its tip."""
    m, L, w0 = 2.0, 0.8, 3.0
    M = np.diag([m, m, m * L * L / 12])
    J = np.array([[1.0, 0.0, -L / 2], [0.0, 1.0, 0.0]])     # Φ_q of the pin at φ = −π/2
    w = np.array([-1.0, 0.0, -L / 2])                        # the stop's W_n at the tip
    return M, J, w, np.array([w0 * L / 2, 0.0, w0]), 0.5


IMPULSE_CASES = [
    (np.diag([2.0, 2.0]), np.zeros((0, 2)), np.array([0.0, 1.0]), np.array([0.3, -1.5]), 0.6),
    _rod_case(),
    (np.array([[3.0, 0.5, 0.0, 0.2], [0.5, 2.0, 0.1, 0.0], [0.0, 0.1, 1.5, 0.3], [0.2, 0.0, 0.3, 1.0]]),
     np.array([[1.0, -1.0, 0.0, 0.0]]), np.array([0.0, 0.0, 1.0, -0.5]), np.array([0.5, 0.5, -1.0, 0.4]),
     0.0),
]
"""The public cases: a free point mass (no joints), the page's pinned rod, a 4-coordinate mechanism with a
full mass matrix and one joint row (plastic)."""


def _hidden_impulse_cases(rng, n_cases: int = 6, **_) -> list[tuple]:
    """Random mechanisms: a positive definite M (n = 3-6, condition number below ~10), 0-2 random joint rows,
    a normal row with at least half its length outside the joints' row space (so that W is not small), and
    velocities that the joints allow and that approach the contact at 0.5-2 (any unit); e = 0 and e = 1 in
    the first two cases, then uniform in [0, 1]."""
    cases = []
    for k in range(n_cases):
        n = int(rng.integers(3, 7))
        A = rng.normal(size=(n, n))
        M = A @ A.T / n + np.eye(n)
        J = rng.normal(size=(int(rng.integers(0, 3)), n))
        basis = np.linalg.svd(J)[2][len(J):].T if len(J) else np.eye(n)   # orthonormal null space of J
        P = basis @ basis.T                                                # projector onto it
        w = rng.normal(size=n)
        while w @ P @ w < 0.25 * (w @ w):
            w = rng.normal(size=n)
        qd = basis @ rng.normal(size=basis.shape[1])
        u_target = -float(rng.uniform(0.5, 2.0))
        qd = qd + (u_target - w @ qd) * (P @ w) / (w @ P @ w)              # J qd = 0, w qd = u_target
        e = (0.0, 1.0)[k] if k < 2 else float(rng.uniform(0, 1))
        cases.append((M, J, w, qd, e))
    return cases


def _negative(student, expected):
    try:
        s = float(np.asarray(student, dtype=float).reshape(-1)[0])
    except (TypeError, ValueError, IndexError):
        return False
    return np.size(student) == 1 and s < 0 < expected and abs(s + expected) <= 1e-6 * (1 + abs(expected))


register(
    Exercise(
        "9.1",
        "The normal impulse of an impact through M and the joints (a function)",
        3,
        reference=impulse_key,
        cases=IMPULSE_CASES,
        hidden_cases=_hidden_impulse_cases,
        function_name="impulse",
        rtol=1e-7,
        atol=1e-10,
        mistakes=[
            Mistake.when(_negative, "your impulse is negative, of the right size: a contact only pushes, "
                                    "P_n >= 0. An approaching contact has u_n- < 0: check the sign of your "
                                    "formula against page 9.1's impulse of one contact"),
            Mistake(lambda M, J, w, qd, e: _impulse_formula(M, J, w, qd, e, gain=lambda e: 1.0),
                    "your impulse only stops the approach (u_n+ = 0): Newton's law also restitutes e of it, "
                    "a factor (1 + e)"),
            Mistake(lambda M, J, w, qd, e: _impulse_formula(M, J, w, qd, e, gain=lambda e: e),
                    "the factor is (1 + e), not e: the impulse first stops the approach, then restitutes"),
            Mistake(lambda M, J, w, qd, e: _impulse_formula(M, J, w, qd, e, inverse=False),
                    "W is built from the INVERSE of the mass matrix (a velocity per unit impulse); you used "
                    "M itself"),
            Mistake(lambda M, J, w, qd, e: _impulse_formula(M, J, w, qd, e, joints=False),
                    "the joints take part in the impact: W must come through the KKT system (page 9.1's N), "
                    "not through M^-1 alone (the cases without joint rows pass, the others do not)"),
            Mistake(lambda M, J, w, qd, e: _impulse_formula(M, J, w, qd, e, divide=False),
                    "you multiplied by W where you should divide by it: W is a velocity per unit impulse, so "
                    "the impulse is a velocity change divided by W"),
            Mistake(lambda M, J, w, qd, e: -(1 + e) * float(np.asarray(w) @ np.asarray(qd)),
                    "that is the jump of the normal velocity u_n, not the impulse: the impulse changes u_n "
                    "by W times itself"),
        ],
    )
)


# ------------------------------------------------------------------ 9.2 the k-th impact of a ball
def _kth_impact(h0, e, k, factor=2.0, ratio=None, first=True):
    t1 = math.sqrt(2 * h0 / G)
    r = e if ratio is None else ratio
    return (t1 if first else 0.0) + factor * t1 * sum(r**j for j in range(1, k))


def _ball_variant(rng) -> dict:
    return {"h0": float(rng.integers(4, 16)) / 10, "e": float(rng.integers(5, 10)) / 10,
            "k": int(rng.integers(3, 7))}


register(
    Exercise(
        "9.2",
        "The time of a bouncing ball's k-th impact",
        1,
        reference=_kth_impact,
        params={"h0": 0.8, "e": 0.7, "k": 4},
        variant=_ball_variant,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda h0, e, k: _kth_impact(h0, e, k + 1),
                    "one impact too many: the first impact ends the fall t1, and k - 1 flights follow it up "
                    "to the k-th"),
            Mistake(lambda h0, e, k: _kth_impact(h0, e, k - 1),
                    "one impact too few: the k-th impact comes after the fall and k - 1 flights"),
            Mistake(lambda h0, e, k: _kth_impact(h0, e, k, factor=1.0),
                    "a flight goes up and comes down: it lasts 2 e^j t1, not e^j t1"),
            Mistake(lambda h0, e, k: _kth_impact(h0, e, k, ratio=e * e),
                    "the heights shrink by e^2 per bounce, the flight times by e"),
            Mistake(lambda h0, e, k: _kth_impact(h0, e, k, first=False),
                    "the first fall, t1 = sqrt(2 h0 / g), comes before the first impact: add it"),
        ],
    )
)


# ------------------------------------------------------------------ 9.3 Newton's cradle by both laws
def _cradle(e12, e23, v, law):
    s = newtons_cradle(3, speed=v, restitution=[e12, e23]).system()
    return impact(s, s.q0, s.qd0, law=law).qd_plus[0::3]


def _cradle_key(e12, e23, v, swap=False, only=None):
    laws = ("newton", "poisson") if not swap else ("poisson", "newton")
    if only:
        laws = (only, only)
    return np.vstack([_cradle(e12, e23, v, law) for law in laws])


def _cradle_variant(rng) -> dict:
    """e12 in 0-0.4 and e23 in 0.5-1 (the laws differ when they do), v in 1-3 m/s: 150 variants."""
    return {"e12": int(rng.integers(0, 5)) / 10, "e23": int(rng.integers(5, 11)) / 10,
            "v": int(rng.integers(2, 7)) / 2}


register(
    Exercise(
        "9.3",
        "Newton's cradle by Newton's and by Poisson's law",
        2,
        reference=_cradle_key,
        params={"e12": 0.2, "e23": 0.8, "v": 2.0},
        variant=_cradle_variant,
        rtol=1e-7,
        atol=1e-9,
        mistakes=[
            Mistake(lambda **p: _cradle_key(**p, swap=True),
                    "your two rows are the other way round: the first row is Newton's law, the second "
                    "Poisson's"),
            Mistake(lambda **p: _cradle_key(**p, only="newton"),
                    "your second row repeats Newton's law: Poisson's law restitutes the compression IMPULSE "
                    "of every contact (law='poisson')"),
            Mistake(lambda **p: _cradle_key(**p, only="poisson"),
                    "your first row is Poisson's law: Newton's law restitutes approach VELOCITY "
                    "(law='newton')"),
            Mistake(lambda e12, e23, v: np.array([[0.0, 0.0, v], [0.0, 0.0, v]]),
                    "that is the desk toy's outcome (the last disk leaves with the first one's speed): it "
                    "needs elastic contacts meeting one after the other. Here the disks touch, both contacts "
                    "act at once and neither is elastic: compute it with impact()"),
        ],
    )
)


# ------------------------------------------------------------------ 9.4 the rocking block's next amplitude
def _next_amplitude(b, h, tilt, power=2, linear=False):
    """The amplitude after the first impact of a uniform block released at rest at ``tilt``: Housner's
    r = 1 − (3/2) sin²α, then the energy balance cos(α − θ₁) − cos α = r² (cos(α − θ₀) − cos α)."""
    alpha = math.atan2(b, h)
    r = 1 - 1.5 * math.sin(alpha) ** 2
    if linear:
        return r**power * tilt
    c = math.cos(alpha) + r**power * (math.cos(alpha - tilt) - math.cos(alpha))
    return alpha - math.acos(c)


def _block_variant(rng) -> dict:
    b, h = float(rng.integers(5, 16)) / 100, float(rng.integers(30, 61)) / 100
    return {"b": b, "h": h, "tilt": round(float(rng.uniform(0.3, 0.8)) * math.atan2(b, h), 3)}


register(
    Exercise(
        "9.4",
        "A rocking block's amplitude after its first impact",
        2,
        reference=_next_amplitude,
        params={"b": 0.12, "h": 0.5, "tilt": 0.15},
        variant=_block_variant,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda **p: _next_amplitude(**p, power=1),
                    "the impact multiplies the angular VELOCITY by r, so the kinetic energy (and the height "
                    "the centre rises to) by r^2"),
            Mistake(lambda **p: _next_amplitude(**p, linear=True),
                    "the amplitude is not r^2 times the tilt: the energy is r^2 times, and the centre's "
                    "height is R cos(alpha - theta); solve the energy balance for theta"),
            Mistake(lambda **p: _next_amplitude(**p, power=1, linear=True),
                    "the amplitude is not r times the tilt: use the energy balance with r^2"),
            Mistake(lambda b, h, tilt: tilt,
                    "the impact loses energy (Housner's r < 1): the block does not come back to its tilt"),
            Mistake(lambda **p: math.degrees(_next_amplitude(**p)),
                    "your amplitude is in degrees: give it in radians, like the tilt"),
        ],
    )
)


# ------------------------------------------------------------------ 9.5 the bowling ball, three parts
BOWL = {"R": 0.11, "m": 6.0, "v0": 8.0, "mu": 0.15}


def _bowl_variant(rng) -> dict:
    return {"R": float(rng.integers(10, 12)) / 100, "m": float(rng.integers(5, 8)),
            "v0": float(rng.integers(60, 96)) / 10, "mu": float(rng.integers(10, 25)) / 100}


def _roll_time(R, m, v0, mu, k=0.4, spin_up=True):
    """t_s = v₀ / (μ g (1 + m R² / I)) with I = k m R² (k = 2/5 for a uniform sphere)."""
    return v0 / (mu * G * (1 + (1 / k if spin_up else 0.0)))


def _roll_speed(R, m, v0, mu, k=0.4):
    return v0 / (1 + k)


def _friction_loss(R, m, v0, mu, k=0.4, rotation=True):
    vs = _roll_speed(R, m, v0, mu, k)
    return 0.5 * m * v0**2 - 0.5 * m * vs**2 * (1 + (k if rotation else 0.0))


register(Exercise(
    "9.5a", "The bowling ball: when it starts to roll", 1, reference=_roll_time, params=dict(BOWL),
    variant=_bowl_variant, rtol=1e-6,
    mistakes=[
        Mistake(lambda **p: _roll_time(**p, k=0.5),
                "I = m R^2 / 2 is a disk's; a uniform sphere has I = 2 m R^2 / 5"),
        Mistake(lambda **p: _roll_time(**p, spin_up=False),
                "friction also spins the ball up: while v falls, R omega rises, so the sliding speed "
                "v - R omega falls faster than v alone"),
        Mistake(lambda **p: _roll_time(**p, k=1.0),
                "I = m R^2 is a ring's (a hollow shell has 2/3); a uniform sphere has I = 2 m R^2 / 5"),
    ]))
register(Exercise(
    "9.5b", "The bowling ball: its rolling speed", 1, reference=_roll_speed, params=dict(BOWL),
    variant=_bowl_variant, rtol=1e-6,
    mistakes=[
        Mistake(lambda **p: _roll_speed(**p, k=0.5), "2 v0 / 3 is a disk's; for a sphere I = 2 m R^2 / 5"),
        Mistake(lambda R, m, v0, mu: v0,
                "friction slows the ball while it slides: keep m v R + I omega about the contact point"),
        Mistake(lambda R, m, v0, mu: v0 - mu * G * _roll_time(R, m, v0, mu, spin_up=False),
                "the ball starts to roll before friction could stop it: it rolls when v = R omega"),
    ]))
register(Exercise(
    "9.5c", "The bowling ball: the energy friction takes", 2, reference=_friction_loss, params=dict(BOWL),
    variant=_bowl_variant, rtol=1e-6,
    mistakes=[
        Mistake(lambda **p: _friction_loss(**p, rotation=False),
                "that is the loss of translational energy alone (friction's force times the distance the "
                "centre travels); the rolling ball also has rotational energy, (1/2) I omega^2 with "
                "omega = v_s / R: count it too"),
        Mistake(lambda **p: _friction_loss(**p, k=0.5), "that is a disk's (I = m R^2 / 2); a sphere's "
                                                         "I = 2 m R^2 / 5"),
        Mistake(lambda R, m, v0, mu: 0.5 * m * v0**2,
                "that is all the kinetic energy the ball started with: at the end it still rolls, with "
                "energy of translation and of rotation"),
    ]))


# ------------------------------------------------------------------ 9.6 Painlevé's limit
def _painleve(theta_deg, L, m, I_G, k=None, degrees=False):
    """μ_P = (1 + k cos²θ) / (k sin θ cos θ) with k = m (L/2)² / I_G (3 for a uniform rod)."""
    th = theta_deg if degrees else math.radians(theta_deg)
    kk = m * (L / 2) ** 2 / I_G if k is None else k
    return (1 + kk * math.cos(th) ** 2) / (kk * math.sin(th) * math.cos(th))


def _painleve_variant(rng) -> dict:
    return {"theta_deg": float(rng.integers(45, 71)), "L": 1.0, "m": 1.0,
            "I_G": float(rng.integers(5, 12)) / 100}


register(
    Exercise(
        "9.6",
        "Painlevé's limit for a rod that is not uniform",
        2,
        reference=_painleve,
        params={"theta_deg": 55.0, "L": 1.0, "m": 1.0, "I_G": 0.06},
        variant=_painleve_variant,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda **p: _painleve(**p, k=3.0),
                    "that is the UNIFORM rod's limit (I_G = m L^2 / 12): redo the page's derivation with "
                    "this rod's own I_G"),
            Mistake(lambda **p: _painleve(**p, degrees=True),
                    "the angle is in degrees: convert it to radians before taking sin and cos"),
            Mistake(lambda **p: 1 / _painleve(**p),
                    "you inverted the ratio: the limit is the mu at which the normal force's coefficient in "
                    "the end's acceleration reaches zero; solve that for mu"),
            Mistake(lambda theta_deg, L, m, I_G: 1 / math.tan(math.radians(theta_deg)),
                    "you kept only the rotation's share: the normal force also moves the centre (a share 1/m "
                    "in the end's acceleration, beside the rotation's)"),
        ],
    )
)


# ------------------------------------------------------------------ 9.7 a clearance joint's first impact
@cache
def clearance_first_impact(clearance_mm: float) -> float:
    """The time [s] of the pin's first impact in ``clearance_slider_crank`` (crank at 20 rad/s, pin centred)
    with the clearance given in millimetres, located by the event-driven scheme."""
    model, state = clearance_slider_crank(clearance=clearance_mm * 1e-3)
    system = model.system(state)
    for t_end in (0.004, 0.008, 0.016, 0.032):
        run = simulate(system, t_end, EventDriven())
        if run.impacts:
            return float(run.impacts[0].t)
    raise RuntimeError(f"no impact within 32 ms for a clearance of {clearance_mm} mm")  # pragma: no cover


def _clearance_variant(rng) -> dict:
    """0.03-0.30 mm in steps of 0.01 mm, without the page's 0.1 mm and the public 0.2 mm (26 variants)."""
    c = int(rng.integers(3, 29))
    c += c >= 10
    c += c >= 20
    return {"clearance_mm": c / 100}


def _within_a_step(student, expected):
    """A time off by less than 1.5 ms but not within the tolerance: an impact placed within a time step."""
    try:
        s = float(np.asarray(student, dtype=float).reshape(-1)[0])
    except (TypeError, ValueError, IndexError):
        return False
    return np.size(student) == 1 and 2e-3 * expected < abs(s - expected) < 1.5e-3


register(
    Exercise(
        "9.7",
        "The first impact in a clearance joint",
        2,
        reference=lambda clearance_mm: clearance_first_impact(clearance_mm),
        params={"clearance_mm": 0.2},
        variant=_clearance_variant,
        rtol=2e-3,
        atol=0.0,
        mistakes=[
            Mistake(lambda clearance_mm: 1e3 * clearance_first_impact(clearance_mm),
                    "the answer is in seconds; yours looks like milliseconds"),
            Mistake(lambda clearance_mm: clearance_first_impact(0.1),
                    "that is the page's slider-crank, with 0.1 mm of clearance; use this exercise's "
                    "clearance"),
            Mistake.when(_within_a_step,
                         "close, but not to the tolerance: a time-stepping scheme places an impact only "
                         "within a step (the default is 1 ms). Locate it with EventDriven(), or take a much "
                         "shorter step"),
        ],
    )
)
