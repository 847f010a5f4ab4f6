"""Small helpers shared by the pages of chapter 8 (book/chapters/ch08_*.ipynb).

The printing helpers of all pages, re-exported (page_tools.py: the same digits on every machine), and the
drawing of the benchmark bicycle: its parts as shapes of :mod:`mbdlib.view3d` (each in its body's frame,
which is the global frame in the upright reference pose of :func:`mbdlib.vehicles.benchmark_bicycle`) and
a side view for the schematic.  The bicycle itself is the library's; nothing here computes its motion.
"""

from __future__ import annotations

import numpy as np
from ch07_tools import body_poses
from page_tools import G0, SUPERSCRIPT, rnd, say, small, under

from mbdlib.view3d import Box, Cylinder, Disk, Sphere

__all__ = ["G0", "SUPERSCRIPT", "body_poses", "rnd", "say", "small", "under", "eig_text", "bicycle_shapes",
           "bicycle_points", "contact_points", "side_view", "BODY_INDEX"]

BODY_INDEX = {"frame": 0, "fork": 1, "rear wheel": 2, "front wheel": 3}


def eig_text(lam, digits: int = 4) -> str:
    """Eigenvalues for printing, the same digits on every machine: real ones as numbers, a complex pair once
    as ``a ± bi`` (``±bi`` when a rounds to 0)."""
    out = []
    for z in np.asarray(lam, dtype=complex):
        re, im = np.round(z.real, digits) + 0.0, np.round(z.imag, digits) + 0.0
        if im == 0:
            out.append(f"{re:.{digits}f}")
        elif im > 0:
            out.append(f"±{im:.{digits}f}i" if re == 0 else f"{re:.{digits}f} ± {im:.{digits}f}i")
    return ", ".join(out)


def bicycle_points(p) -> dict:
    """Points of the bicycle in the upright reference pose (x forward, y left, z up; metres): the hubs, the
    ends of the head tube on the steer axis, the saddle, the bottom bracket and the handlebar."""
    w, c, lam, rR, rF = p["w"], p["c"], p["lam"], p["rR"], p["rF"]
    up = np.array([-np.sin(lam), 0.0, np.cos(lam)])               # along the steer axis, upwards
    ground = np.array([w + c, 0.0, 0.0])                           # where the steer axis meets the ground
    head_low = ground + (rF + 0.25) / np.cos(lam) * up
    head_top = ground + (rF + 0.55) / np.cos(lam) * up
    return {"rear hub": np.array([0.0, 0.0, rR]), "front hub": np.array([w, 0.0, rF]),
            "head low": head_low, "head top": head_top, "bar": head_top + 0.08 * up,
            "saddle": np.array([0.25, 0.0, 0.95]), "bracket": np.array([0.38, 0.0, 0.28]),
            "crown": ground + rF / np.cos(lam) * up + 0.12 * up,
            "frame cm": np.array([p["xB"], 0.0, -p["zB"]]), "fork cm": np.array([p["xH"], 0.0, -p["zH"]])}


def bicycle_shapes(p, prefix: str = "", colors=("#0072B2", "#D55E00", "#333333")) -> list:
    """The four bodies of one bicycle as view3d shapes; ``prefix`` names the bodies ``prefix + name`` (for
    several bicycles in one scene).  Frame tubes and the rider's mass (a box around the frame's centre of
    mass) in ``colors[0]``, the fork and handlebar in ``colors[1]``, the wheels in ``colors[2]``."""
    P = bicycle_points(p)
    frame, fork = P["frame cm"], P["fork cm"]
    f, h, k = prefix + "frame", prefix + "fork", colors

    def tube(name, a, b, body, origin, color, radius=0.018):
        return Cylinder.between(name, a - origin, b - origin, radius=radius, body=body, color=color)

    return [
        tube(f + " chain stay", P["rear hub"], P["bracket"], f, frame, k[0]),
        tube(f + " seat stay", P["rear hub"], P["saddle"], f, frame, k[0]),
        tube(f + " seat tube", P["bracket"], P["saddle"], f, frame, k[0]),
        tube(f + " down tube", P["bracket"], P["head low"], f, frame, k[0]),
        tube(f + " top tube", P["saddle"], P["head top"], f, frame, k[0]),
        tube(f + " head tube", P["head low"], P["head top"], f, frame, k[0], radius=0.024),
        Box(f + " rider", size=(0.22, 0.34, 0.5), at=(0.0, 0.0, 0.05), body=f, color=k[0]),
        Sphere(f + " head", radius=0.1, at=(0.12, 0.0, 0.45), body=f, color=k[0]),
        tube(h + " blade", P["crown"], P["front hub"], h, fork, k[1], radius=0.015),
        tube(h + " stem", P["crown"], P["bar"], h, fork, k[1], radius=0.015),
        Cylinder.between(h + " bar", P["bar"] - fork + (0, -0.25, 0), P["bar"] - fork + (0, 0.25, 0),
                         radius=0.014, body=h, color=k[1]),
        Disk(prefix + "rear wheel", radius=p["rR"], thickness=0.03, axis="y", color=k[2]),
        Disk(prefix + "front wheel", radius=p["rF"], thickness=0.03, axis="y", color=k[2]),
    ]


def side_view(ax, p, S, color_frame, color_fork, labels=True):
    """The bicycle from its right side (x forward to the right, z up) with the schematics helpers ``S``:
    wheels, frame, fork, steer axis with its tilt λ, trail c, wheel base w and the two centres of mass."""
    P = {k: v[[0, 2]] for k, v in bicycle_points(p).items()}
    th = np.linspace(0, 2 * np.pi, 120)
    for hub, r in ((P["rear hub"], p["rR"]), (P["front hub"], p["rF"])):
        ax.plot(hub[0] + r * np.cos(th), hub[1] + r * np.sin(th), color="0.25", lw=1.6)
        S.draw_point(ax, hub, size=3)
    tubes = (("rear hub", "bracket"), ("rear hub", "saddle"), ("bracket", "saddle"), ("bracket", "head low"),
             ("saddle", "head top"), ("head low", "head top"))
    for a, b in tubes:
        ax.plot(*np.c_[P[a], P[b]], color=color_frame, lw=2.2, solid_capstyle="round")
    for a, b in (("crown", "front hub"), ("crown", "bar")):
        ax.plot(*np.c_[P[a], P[b]], color=color_fork, lw=2.2, solid_capstyle="round")
    w, c, lam = p["w"], p["c"], p["lam"]
    axis_top = np.array([w + c, 0.0]) + 1.25 * np.array([-np.sin(lam), np.cos(lam)])
    ax.plot([w + c, axis_top[0]], [0.0, axis_top[1]], color="0.45", ls="-.", lw=0.9)
    ax.plot([w + c, w + c], [0.0, 1.1], color="0.7", ls=":", lw=0.8)
    S.draw_com(ax, P["frame cm"], radius=0.04, label="B" if labels else None, label_offset=(0.06, 0.02))
    S.draw_com(ax, P["fork cm"], radius=0.03, label="H" if labels else None, label_offset=(-0.13, 0.02))
    ax.plot([-0.45, w + 0.55], [0.0, 0.0], color="0.3", lw=1.0)
    return P, axis_top


def contact_points(q, k: int, radius: float) -> np.ndarray:
    """The contact points (N, 3) of wheel body ``k`` (axle along its body y) of radius ``radius`` rolling on
    z = 0, from the coordinates ``q`` (N, n) of a SpatialModel: the centre minus ``radius`` times the unit
    vector in the wheel's plane that points up."""
    from mbdlib.rotations import dcm_from_quat

    q = np.atleast_2d(np.asarray(q, dtype=float))
    out = []
    for row in q:
        centre, p = row[7 * k: 7 * k + 3], row[7 * k + 3: 7 * k + 7]
        a = dcm_from_quat(p / np.linalg.norm(p)) @ np.array([0.0, 1.0, 0.0])
        up = np.array([0.0, 0.0, 1.0]) - a[2] * a
        out.append(centre - radius * up / np.linalg.norm(up))
    return np.array(out)
