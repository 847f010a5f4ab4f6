"""Chapter 9 exercises: contact and impact (solutions/ch09_contact.ipynb) and the practice inside its pages.

A contact is a unilateral constraint: a gap ``g(q) ≥ 0``, a normal force ``λ_n ≥ 0``, complementary
(:mod:`mbdlib.contact`).  At an impact the velocities jump by an impulse through the mass matrix and the
joints, ``q̇⁺ = q̇⁻ + N W_nᵀ P_n`` with ``N = M⁻¹ − M⁻¹Jᵀ(JM⁻¹Jᵀ)⁻¹JM⁻¹``; Newton's law asks
``u_n⁺ = −e u_n⁻``, so one contact takes ``P_n = −(1 + e) u_n⁻ / W`` with ``W = W_n N W_nᵀ``.  Every key
comes from mbdlib's public API (:func:`mbdlib.impact`, :func:`mbdlib.simulate` with
:class:`~mbdlib.schemes.EventDriven`) or from a closed form that the tests check against an independent
computation (a simulation, a momentum balance).  Hints say what is wrong (the factor ``1 + e``, a sign, the
mass matrix instead of its inverse, the joints left out, the inertia of another body ...) without printing
the expected value.

Practice inside the pages (0 points): 9.P1 the impulse on a rod landing on its end (page 9.1), 9.P2 the
bouncing ball's accumulation time (page 9.1).

References: J. J. Moreau, *Unilateral contact and dry friction in finite freedom dynamics*, 1988;
F. Pfeiffer & C. Glocker, *Multibody Dynamics with Unilateral Contacts*, 1996, ch. 4-7; B. Brogliato,
*Nonsmooth Mechanics*, 3rd ed., 2016, ch. 4 and 5; G. W. Housner, *The behavior of inverted pendulum
structures during earthquakes*, 1963; P. Painlevé, *Sur les lois du frottement de glissement*, 1895.
"""

from __future__ import annotations

import math

from .core import Exercise, Mistake, register

G = 9.81  # m/s²


# ------------------------------------------------------------------ practice on the pages
# 9.P1 (page 9.1): the page's rod (2 kg, 0.8 m), free and not turning, lands on one end at 2 m/s, tilted
# by 30° from the floor, e = 0.5.  A free body: W = 1/m + (r × n)² / I_G = (1 + 3 cos²θ) / m for a uniform
# rod's end.
P1 = {"m": 2.0, "length": 0.8, "v": 2.0, "tilt_deg": 30.0, "e": 0.5}


def _rod_impulse(m, length, v, tilt_deg, e, lever=None, gain=None):
    """(1 + e) v / W for the end of a free uniform rod; ``lever`` replaces the arm (ℓ/2) cos θ, ``gain``
    the factor 1 + e (for the mistakes)."""
    arm = (length / 2) * math.cos(math.radians(tilt_deg)) if lever is None else lever
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
            Mistake(lambda: _rod_impulse(**P1, lever=P1["length"] / 2 * math.sin(math.radians(30.0))),
                    "the arm of the normal about the centre is (l/2) cos(tilt), not sin: r is along the rod, "
                    "n vertical"),
            Mistake(lambda: _rod_impulse(**P1, lever=P1["length"] / 2 * math.cos(30.0)),
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
                    "the block is not a point mass at G: its central moment of inertia I_G adds to both sides "
                    "of the angular-momentum balance"),
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
