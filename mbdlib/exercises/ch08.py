"""Chapter 8 exercises: linearization and stability (solutions/ch08_linearization.ipynb).

A motion is linearized about an equilibrium or a steady motion, ``ẋ ≈ A (x − x0)``; its eigenvalues say
whether small disturbances die out (all real parts negative), grow (one positive) or stay (imaginary).
The exercises go from one pendulum held upright by a spring (8.1) and the inverted pendulum on a cart
linearized by hand (8.2, a function) to the nutation of a heavy top about its steady precession (8.3) and
the self-stable speed range of a bicycle (8.4a-c).  Every key comes from mbdlib's public API
(:func:`mbdlib.linearize` of a :class:`~mbdlib.planar.PlanarModel`; :func:`mbdlib.vehicles.benchmark_bicycle`
and its :meth:`~mbdlib.vehicles.Bicycle.linear_equations`) or from a closed form that the tests check
against an independent computation (a linearized model, the paper's appendix-A matrices).  Hints say what
is wrong (the inertia about the wrong point, a sign that makes the pendulum hang, hertz, the benchmark's
numbers instead of your bicycle's ...) without printing the expected value.

8.2 asks for a FUNCTION, ``cart_pendulum_A(M, m, L, g)`` returning the 4 x 4 state matrix of an inverted
uniform rod on a cart, graded on hidden random carts and rods against :func:`mbdlib.linearize` of the same
mechanism built as a :class:`~mbdlib.planar.PlanarModel` (:func:`cart_pendulum`).  8.4a-c take one bicycle
through chapter 8's analysis, each part graded on its own: (a) its weave speed, (b) its capsize speed, (c)
the speed in between at which its slowest mode dies out fastest.

**Variants.** 8.1, 8.3 and 8.4a-c draw each student's numbers (``params``/``variant``: for 8.4 a bicycle
with another trail, rider mass and rider position); 8.2 draws its hidden cases.

=====  ======================================================  ======
id     exercise                                                points
=====  ======================================================  ======
8.1    A pendulum held upright by a spring: its frequency      1
8.2    The inverted pendulum on a cart, linearized by hand     3
8.3    Nutation of a heavy top about steady precession         2
8.4a   A bicycle's weave speed                                 1
8.4b   A bicycle's capsize speed                               1
8.4c   The bicycle's most stable speed                         2
=====  ======================================================  ======

References: A. M. Lyapunov, 1892 (stability from the linearization); J. L. Synge & B. A. Griffith,
*Principles of Mechanics*, 1959, §14 (the heavy top); J. P. Meijaard, J. M. Papadopoulos, A. Ruina &
A. L. Schwab, *Proc. R. Soc. A* 463 (2007) 1955–1982 (the benchmark bicycle).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from scipy.optimize import brentq

from ..linearize import linearize
from ..planar import PlanarModel
from ..vehicles import BENCHMARK, benchmark_bicycle
from .ch07 import TOP, precession_rates
from .ch07 import _top_variant as top_variant_7
from .core import Exercise, Mistake, register

G = 9.81  # m/s²


# ------------------------------------------------------------------ 8.1 a pendulum held upright by a spring
HELD = {"m": 1.2, "L": 0.9, "k": 12.0}  # kg, m, N m/rad


def held_frequency(m, L, k, g=G, inertia="pivot", lever=0.5, sign=-1.0):
    """ω of a uniform rod (mass m, length L) hinged at its lower end, upright, with a torsional spring k at
    the hinge: (m L²/3) θ̈ = −(k − m g L/2) θ, so ω² = (k − m g L/2) / (m L²/3) (rad/s).  ``inertia``,
    ``lever`` and ``sign`` make the typical slips (the moment about the centre, the lever of gravity, a
    hanging rod)."""
    J = {"pivot": m * L * L / 3, "centre": m * L * L / 12, "point": m * L * L}[inertia]
    return math.sqrt((k + sign * m * g * L * lever) / J)


def _held_variant(rng) -> dict:
    m = float(rng.integers(5, 21) / 10)
    L = float(rng.integers(4, 13) / 10)
    k_min = m * G * L / 2
    return {"m": m, "L": L, "k": float(math.ceil(k_min * float(rng.uniform(2.2, 3.5)) * 2) / 2)}  # k > m g L


def _positive_rate(answer, **_) -> str | None:
    if not float(np.asarray(answer, dtype=float).reshape(-1)[0]) > 0:
        return "a frequency of oscillation is a positive number (rad/s)"
    return None


register(
    Exercise(
        "8.1",
        "A pendulum held upright by a spring: the frequency of its small oscillations",
        1,
        reference=held_frequency,
        rtol=1e-6,
        params=dict(HELD),
        variant=_held_variant,
        sanity=_positive_rate,
        mistakes=[
            Mistake(lambda **p: held_frequency(**p, sign=1.0),
                    "upright, gravity works AGAINST the spring: the stiffness is k - m g L/2 (you added it, "
                    "as for a hanging rod)"),
            Mistake(lambda **p: held_frequency(**p, inertia="centre"),
                    "the rod turns about its hinge: its moment of inertia there is m L^2/3, not m L^2/12"),
            Mistake(lambda **p: held_frequency(**p, inertia="point"),
                    "m L^2 is a point mass at the tip; the uniform rod about its end has m L^2/3"),
            Mistake(lambda **p: held_frequency(**p, lever=1.0),
                    "gravity acts at the centre of mass, L/2 above the hinge: its moment is m g (L/2) theta"),
            Mistake(lambda **p: held_frequency(**p) / (2 * math.pi), "give omega in rad/s, not hertz"),
        ],
    )
)


# ------------------------------------------------------------------ 8.2 the inverted pendulum on a cart
def cart_pendulum(M, m, L, g=G) -> tuple:
    """A cart (mass M) on a horizontal rail and a uniform rod (mass m, length L) pinned at its lower end to
    the cart, upright, as a :class:`~mbdlib.planar.PlanarModel`; a force ``"push"`` on the cart along the
    rail.  Returns ``(model, rail, pin)``.

    >>> model, rail, pin = cart_pendulum(2.0, 0.5, 0.8)
    >>> model.dof_report().dof
    2
    """
    model = PlanarModel(gravity=(0.0, -g))
    cart = model.add_body("cart", M, M * 0.01, position=(0.0, 0.0))
    rod = model.add_body("rod", m, m * L * L / 12, position=(0.0, L / 2), angle=math.pi / 2)
    rail = model.add_translational(model.ground, cart, (0.0, 0.0), (0.0, 0.0), axis_i=(1.0, 0.0), name="rail")
    pin = model.add_revolute(cart, rod, (0.0, 0.0), (-L / 2, 0.0), name="pin")
    model.add_joint_force(rail, 0.0, name="push")
    return model, rail, pin


def cart_pendulum_A(M, m, L, g=G):
    """The state matrix in (x, θ, ẋ, θ̇) of :func:`cart_pendulum` linearized upright, by mbdlib: x the cart's
    travel, θ the rod's lean from the vertical, positive towards +x (the pin angle is π/2 − θ)."""
    model, rail, pin = cart_pendulum(M, m, L, g)
    lin = linearize(model.system(), [rail.slide, pin.angle])
    T = np.diag([1.0, -1.0, 1.0, -1.0])                     # (slide, pin angle) -> (x, θ)
    return T @ lin.A @ T


def _by_hand(M, m, L, g=G, J=None, arm=0.5, coupling=1.0, cart="total", gravity=1.0):
    """A from ``M0 = [[M + m, c m l], [c m l, J + m l²]]``, ``K = [[0, 0], [0, −m g l]]`` (l = arm L), with
    a chosen slip: the rod's own inertia J, the arm, the coupling's sign, the cart's mass, gravity's sign."""
    l = arm * L
    J = m * L * L / 12 if J is None else J
    Mc = M + m if cart == "total" else M
    M0 = np.array([[Mc, coupling * m * l], [coupling * m * l, J + m * l * l]])
    K = np.array([[0.0, 0.0], [0.0, -gravity * m * g * l]])
    return np.block([[np.zeros((2, 2)), np.eye(2)], [-np.linalg.solve(M0, K), np.zeros((2, 2))]])


CART_CASES = [(2.0, 0.5, 0.8, G), (1.0, 1.0, 0.5, G), (5.0, 0.3, 1.2, 9.81)]


def _hidden_cart_cases(rng, n: int = 5, **_) -> list[tuple]:
    """Random carts and rods (cart 0.5-5 kg, rod 0.1-2 kg and 0.2-1.5 m), one on the Moon (g = 1.62)."""
    cases = [(float(rng.uniform(0.5, 5.0)), float(rng.uniform(0.1, 2.0)), float(rng.uniform(0.2, 1.5)), G)
             for _ in range(n)]
    cases.append((float(rng.uniform(0.5, 5.0)), float(rng.uniform(0.1, 2.0)), float(rng.uniform(0.2, 1.5)),
                  1.62))
    return cases


def _not_4x4(student, expected):
    return np.shape(student) != (4, 4)


def _no_first_rows(student, expected):
    s = np.asarray(student, dtype=float)
    return s.shape == (4, 4) and not np.allclose(s[:2], expected[:2], atol=1e-9)


register(
    Exercise(
        "8.2",
        "The inverted pendulum on a cart, linearized by hand (a function)",
        3,
        reference=cart_pendulum_A,
        cases=CART_CASES,
        hidden_cases=_hidden_cart_cases,
        function_name="cart_pendulum_A",
        rtol=1e-6,
        atol=1e-8,
        mistakes=[
            Mistake.when(_not_4x4, "A is 4 x 4: the states are (x, theta, x_dot, theta_dot)"),
            Mistake.when(_no_first_rows, "the first two rows say that the rates of x and theta are x_dot and "
                                         "theta_dot: [0 0 1 0] and [0 0 0 1]"),
            Mistake(lambda M, m, L, g: _by_hand(M, m, L, g, gravity=-1.0),
                    "that is the pendulum HANGING below the cart (stable); upright, gravity tips the rod "
                    "further: the potential m g l cos(theta) has a maximum at theta = 0"),
            Mistake(lambda M, m, L, g: _by_hand(M, m, L, g, J=0.0),
                    "the rod is not a point mass: add its own moment of inertia m L^2/12 about its centre"),
            Mistake(lambda M, m, L, g: _by_hand(M, m, L, g, J=0.0, arm=1.0),
                    "the rod's mass is not at its tip: its centre of mass is at L/2, and it has its own "
                    "moment of inertia m L^2/12"),
            Mistake(lambda M, m, L, g: _by_hand(M, m, L, g, coupling=-1.0),
                    "check the sign of the coupling term m l cos(theta) x_dot theta_dot in T: with theta "
                    "positive towards +x the rod's centre moves at x_dot + l cos(theta) theta_dot"),
            Mistake(lambda M, m, L, g: _by_hand(M, m, L, g, coupling=0.0),
                    "the cart and the rod are coupled: the kinetic energy has a term m l x_dot theta_dot at "
                    "the upright pose (the mass matrix is not diagonal)"),
            Mistake(lambda M, m, L, g: _by_hand(M, m, L, g, cart="cart"),
                    "the rod moves with the cart: the x-x entry of the mass matrix is M + m"),
        ],
    )
)


# ------------------------------------------------------------------ 8.3 nutation about steady precession
def _precession(m, l, A_c, C, theta_deg, w3, root=0, pivot=True):
    """(A, Ω): the moment of inertia about the tilt axis and a root of steady precession (chapter 7's 7.6)."""
    return A_c + (m * l * l if pivot else 0.0), precession_rates(m, l, A_c, C, theta_deg, w3, pivot)[root]


def nutation_frequency(m, l, A_c, C, theta_deg, w3, root=0, pivot=True, precession_term=True):
    """ω_n of small nutation about the slow steady precession (closed form from the Routhian):
    ``ω_n² = Ω² sin²θ + ((C ω3 − 2 A Ω cos θ) / A)²``, A = A_c + m l² about the pivot, Ω the slow root
    of ``A cos θ Ω² − C ω3 Ω + m g l = 0``."""
    A, rate = _precession(m, l, A_c, C, theta_deg, w3, root, pivot)
    th = math.radians(theta_deg)
    gyro = (C * w3 - 2 * A * rate * math.cos(th)) / A
    return math.sqrt((rate * math.sin(th)) ** 2 * precession_term + gyro * gyro)


def _top_variant(rng) -> dict:
    """Chapter 7's tops (7.6), never at the page's 30° (nor 45°)."""
    return top_variant_7(rng, tilts=(15, 20, 25, 35, 40, 50, 55, 60))


register(
    Exercise(
        "8.3",
        "Nutation of a heavy top about its steady precession",
        2,
        reference=nutation_frequency,
        rtol=1e-6,
        params=dict(TOP),
        variant=_top_variant,
        sanity=_positive_rate,
        mistakes=[
            Mistake(lambda **p: nutation_frequency(**p, root=1),
                    "you linearized about the FAST precession; the top started near its slow precession "
                    "precesses at the smaller root"),
            Mistake(lambda C, w3, m, l, A_c, **_: C * w3 / (A_c + m * l * l),
                    "C w3 / A is the fast-top limit of the nutation frequency (Omega -> 0); keep the terms "
                    "of the precession rate"),
            Mistake(lambda **p: nutation_frequency(**p, pivot=False),
                    "A is the transverse moment about the PIVOT: A = A_c + m l^2 (parallel axis)"),
            Mistake(lambda **p: nutation_frequency(**p, precession_term=False),
                    "a term is missing: omega_n^2 = Omega^2 sin^2(theta) + ((C w3 - 2 A Omega cos(theta))/A)"
                    "^2"),
            Mistake(lambda **p: nutation_frequency(**p) / (2 * math.pi), "give omega_n in rad/s, not hertz"),
        ],
    )
)


# ------------------------------------------------------------------ 8.4 a bicycle's self-stable speeds
BIKE = {"c": 0.06, "mB": 80.0, "xB": 0.3, "zB": -0.95}  # trail (m), rider and frame: mass (kg), position (m)


@cache
def _bicycle(c, mB, xB, zB):
    """(weave speed, capsize speed, most stable speed) of the benchmark with these parameters, by mbdlib."""
    eq = benchmark_bicycle(c=c, mB=mB, xB=xB, zB=zB).linear_equations()
    v_w, v_c = eq.stable_speeds()

    def gap(v):
        modes = eq.modes(v)
        return modes["weave"].real - modes["capsize"]

    return v_w, v_c, brentq(gap, v_w, v_c, xtol=1e-12)


def _benchmark():
    return _bicycle(BENCHMARK["c"], BENCHMARK["mB"], BENCHMARK["xB"], BENCHMARK["zB"])


def _bike_variant(rng) -> dict:
    """Another trail (never the benchmark's 8 cm), rider and frame 75-90 kg, its centre of mass moved."""
    return {"c": float(rng.choice([0.06, 0.07, 0.09, 0.10])),
            "mB": float(rng.choice([75.0, 80.0, 85.0, 90.0])),
            "xB": float(rng.choice([0.25, 0.3, 0.35])), "zB": float(rng.choice([-1.0, -0.95, -0.85]))}


def _speed_sanity(answer, **_) -> str | None:
    x = float(np.asarray(answer, dtype=float).reshape(-1)[0])
    if not 0 < x < 20:
        return "a bicycle's critical speed is a few metres per second (give it in m/s)"
    return None


_BENCH_HINT = ("that is the benchmark bicycle's {what}; your bicycle has another trail and rider (the params "
               "of the exercise): build it with benchmark_bicycle(**params)")

register(
    Exercise(
        "8.4a",
        "A bicycle's weave speed",
        1,
        reference=lambda **p: _bicycle(**p)[0],
        rtol=1e-6,
        params=dict(BIKE),
        variant=_bike_variant,
        sanity=_speed_sanity,
        mistakes=[
            Mistake(lambda **p: _bicycle(**p)[1],
                    "that is where the CAPSIZE mode becomes unstable, the upper end of the stable range; the "
                    "weave speed is the lower end, where the weave pair's real part crosses zero"),
            Mistake(lambda **p: _benchmark()[0], _BENCH_HINT.format(what="weave speed")),
            Mistake(lambda **p: 3.6 * _bicycle(**p)[0], "give the speed in m/s, not km/h"),
        ],
    )
)

register(
    Exercise(
        "8.4b",
        "A bicycle's capsize speed",
        1,
        reference=lambda **p: _bicycle(**p)[1],
        rtol=1e-6,
        params=dict(BIKE),
        variant=_bike_variant,
        sanity=_speed_sanity,
        mistakes=[
            Mistake(lambda **p: _bicycle(**p)[0],
                    "that is the WEAVE speed, the lower end of the stable range; the capsize speed is where "
                    "the real eigenvalue of the capsize mode crosses zero"),
            Mistake(lambda **p: _benchmark()[1], _BENCH_HINT.format(what="capsize speed")),
            Mistake(lambda **p: 3.6 * _bicycle(**p)[1], "give the speed in m/s, not km/h"),
        ],
    )
)

register(
    Exercise(
        "8.4c",
        "The speed at which the bicycle's slowest mode dies out fastest",
        2,
        reference=lambda **p: _bicycle(**p)[2],
        rtol=1e-6,
        params=dict(BIKE),
        variant=_bike_variant,
        sanity=_speed_sanity,
        mistakes=[
            Mistake(lambda **p: 0.5 * (_bicycle(**p)[0] + _bicycle(**p)[1]),
                    "the middle of the stable range is not the answer: minimize the largest real part of the "
                    "eigenvalues over the speed"),
            Mistake(lambda **p: _benchmark()[2], _BENCH_HINT.format(what="most stable speed")),
            Mistake(lambda **p: 3.6 * _bicycle(**p)[2], "give the speed in m/s, not km/h"),
        ],
    )
)


# ------------------------------------------------------------------ practice inside the pages (8.P1-8.P5)
# The numbers of the chapter's pages (book/chapters/ch08_*.ipynb; tests/test_exercises_ch08.py rebuilds each
# answer another way). Practice is never graded: 0 points, no variants.
PAGE_ROD_L = 0.8        # 8.P1: the upright rod of page 8.1 (m)
PAGE_CRANE = {"M": 4.0, "m": 1.0, "L": 1.2}  # 8.P2: the crane of page 8.2: cart, rod (kg, m)
PAGE_SLEEPING = {"m": 1.0, "l": 0.1, "A_c": 0.004, "C": 0.006}  # 8.P3: the top of page 8.3
PAGE_CAPSIZE_SPEED = 7.0  # 8.P5: the speed of page 8.5's capsizing ride (m/s)


def _fall_time(arm=0.5, inertia=1 / 3, log=math.log):
    """8.P1: the time the upright rod's linearization takes from a lean of 1 mrad to 0.1 rad."""
    rate = math.sqrt(G * arm / (inertia * PAGE_ROD_L))
    return log(0.1 / 0.001) / rate


def _crane_ratio(sign=-1.0, total=True, arm=0.5):
    """8.P2: the cart's travel per radian of swing in the crane's oscillating mode, from the first row of
    the linearized equations ((M + m) ẍ + m l θ̈ = 0): x/θ = −m l / (M + m)."""
    p = PAGE_CRANE
    return sign * p["m"] * arm * p["L"] / (p["M"] + p["m"] if total else p["M"])


def _sleeping_spin(pivot=True, four=True):
    """8.P3: the smallest spin ω3 at which the upright (sleeping) top is stable: C² ω3² = 4 A m g l."""
    p = PAGE_SLEEPING
    A = p["A_c"] + (p["m"] * p["l"] ** 2 if pivot else 0.0)
    return math.sqrt((4.0 if four else 1.0) * A * p["m"] * G * p["l"]) / p["C"]


@cache
def _benchmark_equations():
    return benchmark_bicycle().linear_equations()


def _standstill_rate(with_g=True, largest=True, root=True):
    """8.P4: the faster growth rate of the benchmark bicycle standing still: the largest eigenvalue at v = 0,
    √ of the largest eigenvalue of −g M⁻¹ K0."""
    eq = _benchmark_equations()
    s = np.sort(np.linalg.eigvals(-(G if with_g else 1.0) * np.linalg.solve(eq.M, eq.K0)).real)
    s = s[-1] if largest else s[0]
    return math.sqrt(s) if root else s


LN2 = math.log(2.0)


def _doubling_time(of="capsize", factor=LN2):
    """8.P5: how long the capsize mode at the page's speed takes to double a lean: ln 2 / λ_capsize."""
    modes = _benchmark_equations().modes(PAGE_CAPSIZE_SPEED)
    rate = modes["capsize"] if of == "capsize" else abs(modes["weave"].real)
    return factor / rate


register(
    Exercise(
        "8.P1",
        "How long the upright rod takes to fall from 1 mrad to 0.1 rad (linearized)",
        0,
        reference=_fall_time,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _fall_time(log=math.log10),
                    "the growth is exp(lambda t): use the natural logarithm, t = ln(100)/lambda"),
            Mistake(lambda: _fall_time(arm=1.0, inertia=1.0),
                    "lambda = sqrt(g/L) is a point mass on a massless rod; the uniform rod has "
                    "lambda = sqrt(3 g / (2 L))"),
            Mistake(lambda: _fall_time(inertia=1 / 12),
                    "the rod turns about its hinge: its moment of inertia there is m L^2/3 (not m L^2/12)"),
            Mistake(lambda: 1.0 / math.sqrt(1.5 * G / PAGE_ROD_L),
                    "1/lambda is the time to grow by a factor e; the lean must grow 100 times"),
        ],
    )
)

register(
    Exercise(
        "8.P2",
        "The crane's cart travel per radian of swing in its oscillating mode",
        0,
        reference=_crane_ratio,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _crane_ratio(sign=1.0),
                    "mind the sign: the cart moves AGAINST the swing of the load (momentum along the rail is "
                    "kept)"),
            Mistake(lambda: _crane_ratio(total=False),
                    "the first row of the mass matrix has M + m: the rod moves with the cart"),
            Mistake(lambda: _crane_ratio(arm=1.0),
                    "the rod's centre of mass hangs at l = L/2 below the pin"),
        ],
    )
)

register(
    Exercise(
        "8.P3",
        "The slowest spin at which the sleeping top is stable",
        0,
        reference=_sleeping_spin,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _sleeping_spin(pivot=False),
                    "A is the transverse moment about the PIVOT, A = A_c + m l^2 (parallel axis)"),
            Mistake(lambda: _sleeping_spin(four=False),
                    "the eigenvalues are real where (C w3)^2 < 4 A m g l: the factor 4 is missing"),
            Mistake(lambda: _sleeping_spin() / (2 * math.pi),
                    "give the spin in rad/s, not revolutions per second"),
        ],
    )
)

register(
    Exercise(
        "8.P4",
        "How fast the benchmark bicycle falls when it stands still",
        0,
        reference=_standstill_rate,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _standstill_rate(with_g=False),
                    "g is missing: at v = 0 the stiffness is g K0"),
            Mistake(lambda: _standstill_rate(largest=False),
                    "that is the slower of the two falls; the question asks for the faster one"),
            Mistake(lambda: _standstill_rate(root=False),
                    "that is lambda^2: the eigenvalues are the square roots of those of -g M^-1 K0"),
        ],
    )
)

register(
    Exercise(
        "8.P5",
        "The time the capsize mode takes to double a lean at 7 m/s",
        0,
        reference=_doubling_time,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _doubling_time(factor=1.0),
                    "1/lambda is the time to grow by a factor e; doubling takes ln(2)/lambda"),
            Mistake(lambda: _doubling_time(of="weave"),
                    "that rate belongs to the weave mode, which decays at this speed; the capsize eigenvalue "
                    "is the small positive real one"),
        ],
    )
)
