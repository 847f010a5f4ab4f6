"""The servo press of chapter 6, shared by its pages (book/chapters/ch06_*.ipynb).

The first page builds the press step by step and explains every call; the later pages import the same
model from here instead of building it again, so that the four pages cannot drift apart.
"""

from __future__ import annotations

import textwrap
from functools import cache

import numpy as np
from matplotlib import patches

from mbdlib import dae
from mbdlib import schematics as S
from mbdlib.planar import PlanarModel
from mbdlib.plotting import COURSE_COLORS as COLORS

g = 9.81  # m/s^2
r, l = 0.06, 0.30  # crank radius, rod length (m)
m_crank, m_rod, m_ram = 4.0, 6.0, 40.0  # kg
w_ram, h_ram = 0.20, 0.12  # ram block, width and height (m)
k_cb, c_cb = 5.0e3, 200.0  # counterbalance stiffness (N/m), damping (N s/m)
y_frame = -0.75  # where the counterbalance sits on the frame (m)
tau_0, omega_0 = 80.0, 15.0  # motor: stall torque (N m), no-load speed (rad/s)
F_0, y_work = 1500.0, -0.34  # pressing force (N), ram height where the sheet is met (m)
m_crown = 100.0  # the crown of the elastic frame (page 6.3), kg


def y_ram(theta):
    """(ch6-yB): the ram height of the slider-crank, closed form."""
    return r * np.sin(theta) - np.sqrt(l**2 - (r * np.cos(theta)) ** 2)


def positions(theta):
    """Closed-form (x, y, phi) of crank, rod and ram for the crank angle theta."""
    A = r * np.array([np.cos(theta), np.sin(theta)])
    B = np.array([0.0, y_ram(theta)])
    phi_rod = np.arctan2(B[1] - A[1], B[0] - A[0])
    return np.array([*A / 2, theta, *(A + B) / 2, phi_rod, *B, 0.0])


def heights(theta):
    """Closed-form heights of the three centres of mass (crank, rod, ram)."""
    yB = y_ram(theta)
    return np.array([r / 2 * np.sin(theta), (r * np.sin(theta) + yB) / 2, yB])


def dq_dtheta(theta, d=1e-4):
    """dq/dtheta of the closed-form positions (central difference)."""
    return (positions(theta + d) - positions(theta - d)) / (2 * d)


def rotation(phi):
    """The planar rotation matrix A(phi)."""
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s], [s, c]])


def smooth_step(x):
    return 0.5 * (1.0 + np.tanh(x))


def pressing(t, q, qd):
    """Upwards while the ram is below y_work AND moving down (q[7], qd[7]: ram y)."""
    on = smooth_step((y_work - q[7]) / 0.005) * smooth_step(-qd[7] / 0.05)
    return np.array([0.0, F_0 * on])


def motor(t, q, qd):
    """The motor's torque-speed line (qd[2]: the crank's angular velocity)."""
    return tau_0 * (1.0 - qd[2] / omega_0)


def build_press(theta0=0.0, *, motor_on=True, damper=True, load=True, guide=True,
                gib=None, rod_inertia=None, crown_k=None, gravity=(0.0, -g)):
    """The servo press as a PlanarModel, from a rough guess of its pose.

    Options plant the mistakes of page 6.2 (guide=False, gib=..., rod_inertia=...)
    and add the elastic frame of page 6.3 (crown_k, the frame stiffness in N/m).
    """
    m = PlanarModel(gravity=gravity)
    A = r * np.array([np.cos(theta0), np.sin(theta0)])  # crank pin
    B = np.array([0.0, y_ram(theta0)])  # wrist pin = ram centre
    base = m.ground
    if crown_k:  # the crank bearing sits in a crown that slides on an elastic frame
        J_crown = m_crown * (0.4**2 + 0.1**2) / 12
        base = m.add_body("crown", m_crown, J_crown, (0.0, 0.0))
        m.add_translational(m.ground, base, (0, 0), (0, 0), axis_i=(0, 1), name="frame")
    crank = m.add_body("crank", m_crank, m_crank * r**2 / 12, A / 2 + 0.003,
                       theta0 + 0.02)
    rod = m.add_body("rod", m_rod, rod_inertia or m_rod * l**2 / 12,
                     (A + B) / 2 - 0.004, np.arctan2(B[1] - A[1], B[0] - A[0]) + 0.03)
    ram = m.add_body("ram", m_ram, m_ram * (w_ram**2 + h_ram**2) / 12, B + 0.005)
    m.add_revolute(base, crank, (0, 0), (-r / 2, 0), name="O")
    m.add_revolute(crank, rod, (r / 2, 0), (-l / 2, 0), name="A")
    m.add_revolute(rod, ram, (l / 2, 0), (0, 0), name="B")
    if guide:
        m.add_translational(m.ground, ram, (0, 0), (0, 0), axis_i=(0, 1), angle=0.0,
                            name="guide")
    if gib == "translational":  # a second guide lower down the same line
        m.add_translational(m.ground, ram, (0, -0.45), (0, 0), axis_i=(0, 1), angle=0.0,
                            name="gib")
    elif gib == "point_on_line":  # a gib that only keeps one more point on the line
        m.add_point_on_line(m.ground, ram, (0, 0), (0, -h_ram / 2), axis_i=(0, 1),
                            name="gib")
    # counterbalance: carries the ram and half the rod at mid-stroke (theta = 0)
    length_mid = y_ram(0.0) - h_ram / 2 - y_frame
    m.add_spring_damper(m.ground, ram, (0.0, y_frame), (0.0, -h_ram / 2),
                        stiffness=k_cb, damping=c_cb if damper else 0.0,
                        rest_length=length_mid + (m_ram + m_rod / 2) * g / k_cb,
                        name="counterbalance")
    if crown_k:  # frame stiffness, damped critically for the crown alone, preloaded
        weight = (m_crown + m_crank + m_rod + m_ram) * g
        m.add_spring_damper(m.ground, base, (0.0, -1.0), (0.0, 0.0), stiffness=crown_k,
                            damping=2 * np.sqrt(crown_k * m_crown),
                            rest_length=1.0 + weight / crown_k, name="frame spring")
    if motor_on:
        m.add_torque(crank, motor, name="motor")
    if load:
        m.add_force(ram, pressing, name="pressing")
    return m


def press_with_gibs():
    """The ram held by two point-on-line joints (upper and lower gib), not a translational one."""
    m = build_press(guide=False)
    ram = m.body("ram")
    m.add_point_on_line(m.ground, ram, (0, 0), (0, h_ram / 2), axis_i=(0, 1),
                        name="upper gib")
    m.add_point_on_line(m.ground, ram, (0, 0), (0, -h_ram / 2), axis_i=(0, 1),
                        name="lower gib")
    return m


@cache
def equilibrium():
    """The quiet press (gravity and the counterbalance only), its system and its static equilibrium.

    Returns (quiet model, its system, q_eq): page 6.1 derives it, the later pages start from it.
    """
    quiet = build_press(motor_on=False, load=False, damper=False)
    system = quiet.system()
    q_eq, _, _ = dae.static_equilibrium(system, system.q0)
    return quiet, system, q_eq


@cache
def compiled(**options):
    """build_press(**options).system(compiled=True), made once per set of options."""
    return build_press(**options).system(compiled=True)


def draw_press(ax, q, load=0.0, pin=0.011, names=(), fixed=True, moving=True):
    """The press at the coordinates q (crank, rod, ram), as build_press builds it.

    fixed: the frame (crown, base, sheet); moving: the bodies and force elements.
    """
    O, A, B = np.zeros(2), 2 * q[0:2], q[6:8]  # bearing, crank pin, wrist pin
    bottom = B[1] - h_ram / 2
    if fixed:  # the crown above the bearing O, the base of the counterbalance, the sheet
        S.draw_ground(ax, (0, 0.07), width=0.14, angle=np.pi)
        crown = [O, (-0.022, 0.07), (0.022, 0.07)]
        ax.add_patch(patches.Polygon(crown, fc="0.85", ec=S.INK, lw=1.1, zorder=2))
        S.draw_ground(ax, (0, y_frame), width=0.2)
        ax.axhline(y_work - h_ram / 2, color=COLORS[3], lw=1.0, ls="--", zorder=1)
    if not moving:
        return
    S.draw_prismatic(ax, B, angle=np.pi / 2, length=0.36, block=(h_ram, w_ram),
                     guide_at=(0, -0.3))
    S.draw_spring(ax, (-0.055, y_frame), (-0.055, bottom), coils=8, width=0.035)
    S.draw_damper(ax, (0.055, y_frame), (0.055, bottom), width=0.04)
    S.draw_link(ax, O, A, width=0.026)
    S.draw_link(ax, A, B, width=0.022)
    for p, name in ((O, "O"), (A, "A"), (B, "B")):
        S.draw_revolute(ax, p, radius=pin, label=name if name in names else None,
                        label_offset=(0.01, 0.006))
    S.draw_com(ax, q[0:2], radius=0.8 * pin)
    S.draw_com(ax, q[3:5], radius=0.011)
    if load > 0.02 * F_0:
        S.draw_force(ax, (0.0, bottom), (0.0, 0.12 * load / F_0), r"$F$", at_head=True,
                     label_offset=(0.025, 0.0))


# ------------------------------------------------------------------ printing, the same on every machine
def rnd(x, decimals=4):
    """Round for printing: the same digits on every machine (-0.0 prints 0.0)."""
    return np.round(np.asarray(x, dtype=float), decimals) + 0.0


def small(x, below=1e-9):
    """A difference that should be (near) round-off: print the bound only."""
    return f"< {below:.0e}" if x < below else f"{x:.2e}  (LARGER than {below:.0e}!)"


def say(*parts):
    """Print, wrapped to the width of the page's column."""
    print(textwrap.fill(" ".join(str(p) for p in parts), 78, subsequent_indent="    "))


def sig(x, digits=2, floor=1e-10):
    """A positive number to a few significant digits, for tables."""
    return f"{x:.{digits - 1}e}" if x >= floor else f"< {floor:.0e}"
