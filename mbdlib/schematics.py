"""Schematic drawings of mechanics: frames, vectors, joints, links, bodies, forces, angles, block matrices.

The book's figures of *what the equations use* – a link with its frame, joint axis and the vectors
``l``, ``d``, ``s'``; a free body with its forces; a revolute joint between two bodies; the block
structure of ``Φ_q`` – are drawn by code with these helpers, so that every chapter's schematics share
one look (the course palette of :mod:`mbdlib.plotting`, one font size) and each helper is tested to
render.

Every helper draws into a matplotlib axes that you pass in and returns the artists it made (so a
figure can be animated, and a test can check what was drawn). Points and vectors are 2-D ``(x, y)``
for planar diagrams; the ``*_3d`` helpers take 3-D axes. Labels are matplotlib mathtext, e.g.
``r"$\\mathbf{l}_{i-1}$"``.

Like :mod:`mbdlib.plotting`, this module sits on top of the library: nothing in the core imports it.

Examples
--------
>>> import matplotlib; matplotlib.use("Agg")
>>> fig, ax = diagram(figsize=(3, 2))
>>> a = draw_revolute(ax, (0, 0), ground=True)
>>> link = draw_link(ax, (0, 0), (1, 0.5))
>>> v = draw_vector(ax, (0, 0), (1, 0.5), r"$\\mathbf{l}$")
>>> sorted(v)
['arrow', 'label']
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import patches
from matplotlib.lines import Line2D

from . import _validate
from .errors import ShapeError
from .plotting import COLUMN_WIDTH, COURSE_COLORS, FRAME_COLORS
from .spatial_joints import _A, FIXED  # draw_spatial_joint reads the joints' equations (never the reverse)

__all__ = [
    "INK", "LINK_COLOR", "FORCE_COLOR", "VECTOR_COLOR", "MOMENT_COLOR",
    "diagram", "draw_vector", "draw_point", "draw_frame2d", "draw_ground", "draw_revolute",
    "draw_prismatic", "draw_link", "draw_body", "draw_angle", "draw_force", "draw_moment", "draw_com",
    "draw_spring", "draw_damper", "draw_rack_pinion", "draw_label_box", "draw_flow_arrow",
    "draw_block_matrix", "draw_vector_3d", "draw_axis_3d", "rot2", "legend_handles", "oblique",
    "draw_frame_oblique", "draw_revolute_oblique", "draw_arc_oblique", "draw_vector_oblique",
    "draw_point_oblique", "draw_circle_oblique", "draw_box_oblique", "draw_right_angle_oblique",
    "draw_spatial_joint", "joint_conditions", "JOINT_ROW_VECTORS", "draw_contact", "draw_friction_cone",
]

#: Colour of outlines and text.
INK = "0.15"
#: Fill of links and bodies.
LINK_COLOR = "#9ecae1"
#: Position and geometry vectors (l, d, s').
VECTOR_COLOR = COURSE_COLORS[0]
#: Forces.
FORCE_COLOR = COURSE_COLORS[1]
#: Moments and torques.
MOMENT_COLOR = COURSE_COLORS[4]
_FONT = 10


def rot2(angle: float) -> np.ndarray:
    """The planar rotation matrix ``A(φ) = [[cos φ, −sin φ], [sin φ, cos φ]]`` (body -> global).

    >>> rot2(np.pi / 2) @ [1.0, 0.0]
    array([6.123234e-17, 1.000000e+00])
    """
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def _xy(p, name: str) -> np.ndarray:
    return _validate.vector(p, 2, name, " (a planar point or vector x, y)", flatten=True)


def _xyz(p, name: str) -> np.ndarray:
    return _validate.vector(p, 3, name, " (a 3-D point or vector x, y, z)", flatten=True)


def diagram(figsize=(COLUMN_WIDTH, 3.6), ncols: int = 1, **subplot_kw):
    """A figure for schematics: equal scales, no axes, no grid (``ncols`` panels side by side).

    Returns ``(fig, ax)`` (``ax`` an array of axes when ``ncols > 1``).

    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig, (a, b) = diagram(ncols=2)
    >>> a.get_aspect(), a.axison
    (1.0, False)
    """
    fig, axes = plt.subplots(1, ncols, figsize=figsize, **subplot_kw)
    for ax in np.atleast_1d(axes):
        ax.set_aspect("equal")
        ax.set_axis_off()
    return fig, axes


def _label(ax, at, text, color=INK, offset=(0.0, 0.0), ha="center", va="center", size=_FONT, **kw):
    if not text:
        return None
    x, y = _xy(at, "label position") + np.asarray(offset, dtype=float)
    return ax.text(x, y, text, color=color, ha=ha, va=va, fontsize=size, zorder=6, **kw)


def draw_vector(ax, tail, vector, label: str | None = None, color=VECTOR_COLOR, width: float = 1.6,
                label_at: float = 0.5, label_offset=(0.0, 0.0), linestyle: str = "-", head: float = 10.0,
                zorder: int = 4) -> dict:
    """An arrow from ``tail`` to ``tail + vector``, with a label beside its middle (or at ``label_at``).

    ``label_offset`` shifts the label in data units; by default it sits a little to the left of the arrow
    (seen from its tail), which keeps labels of a chain of vectors apart.

    Returns ``{"arrow": FancyArrowPatch, "label": Text or None}``.
    """
    tail, vector = _xy(tail, "tail"), _xy(vector, "vector")
    head_pt = tail + vector
    arrow = patches.FancyArrowPatch(tail, head_pt, arrowstyle="-|>", mutation_scale=head, color=color,
                                    lw=width, linestyle=linestyle, shrinkA=0, shrinkB=0, zorder=zorder)
    ax.add_patch(arrow)
    ax.update_datalim([tail, head_pt])
    text = None
    if label:
        length = np.hypot(*vector)
        normal = np.array([-vector[1], vector[0]]) / length if length > 0 else np.zeros(2)
        scale = 0.07 * max(length, 1e-9) if np.allclose(label_offset, 0) else 0.0
        at = tail + label_at * vector + scale * normal + np.asarray(label_offset, dtype=float)
        text = _label(ax, at, label, color=color)
    ax.autoscale_view()
    return {"arrow": arrow, "label": text}


def draw_point(ax, p, label: str | None = None, color=INK, size: float = 4.0, label_offset=(0.04, 0.04),
               ha: str = "left", va: str = "bottom", filled: bool = True) -> dict:
    """A marked point with a label (e.g. a joint centre ``O``, a body point ``P``).

    Returns ``{"marker": Line2D, "label": Text or None}``.
    """
    p = _xy(p, "p")
    (marker,) = ax.plot(*p, "o", ms=size, color=color, mfc=color if filled else "white", zorder=6)
    return {"marker": marker, "label": _label(ax, p, label, color=color, offset=label_offset, ha=ha, va=va)}


def draw_frame2d(ax, origin=(0.0, 0.0), angle: float = 0.0, length: float = 0.4,
                 labels: Sequence[str] | None = ("x", "y"), colors=FRAME_COLORS[:2], width: float = 1.4,
                 origin_label: str | None = None) -> dict:
    """A planar frame: two axes at ``origin`` rotated by ``angle`` (body frame of a planar body).

    Returns ``{"axes": [2 arrows], "labels": [...], "origin": Text or None}``.
    """
    origin = _xy(origin, "origin")
    A = rot2(angle)
    arrows, texts = [], []
    for k in range(2):
        d = A[:, k] * length
        arrows.append(draw_vector(ax, origin, d, color=colors[k], width=width, head=9)["arrow"])
        if labels:
            texts.append(_label(ax, origin + 1.18 * d, labels[k], color=colors[k]))
    o = _label(ax, origin, origin_label, offset=(-0.05 * length, -0.12 * length), ha="right", va="top")
    return {"axes": arrows, "labels": texts, "origin": o}


def draw_ground(ax, p, width: float = 0.4, angle: float = 0.0, hatches: int = 6, color=INK) -> dict:
    """A ground line with hatching below it, centred on ``p`` and tilted by ``angle``.

    Returns ``{"line": Line2D, "hatch": [Line2D]}``.
    """
    p = _xy(p, "p")
    A = rot2(angle)
    u, n = A[:, 0], A[:, 1]
    a, b = p - u * width / 2, p + u * width / 2
    (line,) = ax.plot(*np.array([a, b]).T, color=color, lw=1.4, zorder=2)
    hatch = []
    for s in np.linspace(0, 1, hatches):
        start = a + s * (b - a)
        end = start - 0.12 * width * (n + u)
        hatch.append(ax.plot(*np.array([start, end]).T, color=color, lw=0.8, zorder=2)[0])
    return {"line": line, "hatch": hatch}


def draw_revolute(ax, p, radius: float = 0.05, ground: bool = False, label: str | None = None,
                  label_offset=(0.06, 0.06), color=INK) -> dict:
    """A revolute (pin) joint: a small open circle; with ``ground=True``, on a support fixed to the ground.

    Returns ``{"pin": Circle, "support": Polygon or None, "ground": dict or None, "label": Text or None}``.
    """
    p = _xy(p, "p")
    support = base = None
    if ground:
        h = 3.2 * radius
        tri = np.array([p, p + [-1.6 * radius, -h], p + [1.6 * radius, -h]])
        support = patches.Polygon(tri, closed=True, facecolor="0.85", edgecolor=color, lw=1.1, zorder=3)
        ax.add_patch(support)
        base = draw_ground(ax, p + [0, -h], width=5 * radius, color=color)
    pin = patches.Circle(p, radius, facecolor="white", edgecolor=color, lw=1.3, zorder=7)
    ax.add_patch(pin)
    ax.update_datalim([p - 2 * radius, p + 2 * radius])
    return {"pin": pin, "support": support, "ground": base,
            "label": _label(ax, p, label, offset=label_offset, ha="left", va="bottom")}


def draw_prismatic(ax, p, angle: float = 0.0, length: float = 0.6, block=(0.18, 0.1),
                   label: str | None = None, color=INK, guide_at=None) -> dict:
    """A prismatic (sliding) joint: a block centred on ``p`` on a guide along direction ``angle``.

    The guide is centred on ``p`` too, or on ``guide_at`` (a fixed guide in an animation: the block
    moves, the guide stays).

    Returns ``{"guide": [Line2D, Line2D], "block": Polygon, "label": Text or None}``.
    """
    p = _xy(p, "p")
    c = p if guide_at is None else _xy(guide_at, "guide_at")
    A = rot2(angle)
    u, n = A[:, 0], A[:, 1]
    w, h = block
    guide = []
    for side in (-1, 1):
        off = side * (h / 2 + 0.012) * n
        guide.append(ax.plot(*np.array([c - u * length / 2 + off, c + u * length / 2 + off]).T,
                             color=color, lw=1.0, zorder=2)[0])
    signs = ((-1, -1), (1, -1), (1, 1), (-1, 1))
    corners = np.array([p + sx * u * w / 2 + sy * n * h / 2 for sx, sy in signs])
    body = patches.Polygon(corners, closed=True, facecolor=LINK_COLOR, edgecolor=color, lw=1.2, zorder=5)
    ax.add_patch(body)
    ax.update_datalim(corners)
    return {"guide": guide, "block": body, "label": _label(ax, p + n * h, label, va="bottom")}


def draw_link(ax, p, q, width: float = 0.06, color=LINK_COLOR, edge=INK, label: str | None = None,
              label_offset=(0.0, 0.0), alpha: float = 1.0) -> dict:
    """A link (bar) from ``p`` to ``q`` with rounded ends, ``width`` wide.

    Returns ``{"bar": FancyBboxPatch-like Polygon, "label": Text or None}``.
    """
    p, q = _xy(p, "p"), _xy(q, "q")
    d = q - p
    length = np.hypot(*d)
    if length == 0:
        raise ValueError("draw_link: the two ends coincide")
    u = d / length
    n = np.array([-u[1], u[0]])
    r = width / 2
    arc = np.linspace(-np.pi / 2, np.pi / 2, 13)  # odd: the tip of each end is a vertex
    end_q = [q + r * (np.cos(t) * u + np.sin(t) * n) for t in arc]
    end_p = [p + r * (-np.cos(t) * u - np.sin(t) * n) for t in arc]
    outline = np.array(end_q + end_p)
    bar = patches.Polygon(outline, closed=True, facecolor=color, edgecolor=edge, lw=1.1, zorder=3,
                          alpha=alpha)
    ax.add_patch(bar)
    ax.update_datalim(outline)
    mid = (p + q) / 2 + 1.6 * width * n
    return {"bar": bar, "label": _label(ax, mid, label, offset=label_offset)}


def draw_body(ax, center, angle: float = 0.0, size=(0.6, 0.3), color=LINK_COLOR, edge=INK,
              label: str | None = None, alpha: float = 0.9, rounding: float = 0.25) -> dict:
    """A planar rigid body: a rounded rectangle of ``size`` centred on ``center`` and turned by ``angle``.

    Returns ``{"body": Polygon, "label": Text or None}``.
    """
    center = _xy(center, "center")
    a, b = np.asarray(size, dtype=float) / 2
    r = rounding * min(a, b)
    pts = []
    for cx, cy, t0 in ((a - r, b - r, 0), (-a + r, b - r, 90), (-a + r, -b + r, 180), (a - r, -b + r, 270)):
        t = np.radians(np.linspace(t0, t0 + 90, 6))
        pts += list(np.column_stack([cx + r * np.cos(t), cy + r * np.sin(t)]))
    outline = center + np.array(pts) @ rot2(angle).T
    body = patches.Polygon(outline, closed=True, facecolor=color, edgecolor=edge, lw=1.2, zorder=2,
                           alpha=alpha)
    ax.add_patch(body)
    ax.update_datalim(outline)
    return {"body": body, "label": _label(ax, center, label)}


def draw_angle(ax, center, start: float, stop: float, radius: float = 0.25, label: str | None = None,
               color=INK, label_radius: float = 1.3, arrow: bool = True) -> dict:
    """An angle: an arc about ``center`` from direction ``start`` to ``stop`` (radians), arrow at ``stop``.

    Returns ``{"arc": Line2D, "head": FancyArrowPatch or None, "label": Text or None}``.
    """
    c = _xy(center, "center")
    t = np.linspace(start, stop, 40)
    pts = c + radius * np.column_stack([np.cos(t), np.sin(t)])
    (arc,) = ax.plot(*pts.T, color=color, lw=1.0, zorder=4)
    head = None
    if arrow and abs(stop - start) > 1e-9:
        head = patches.FancyArrowPatch(pts[-3], pts[-1], arrowstyle="-|>", mutation_scale=8, color=color,
                                       lw=1.0, shrinkA=0, shrinkB=0, zorder=4)
        ax.add_patch(head)
    mid = (start + stop) / 2
    text = _label(ax, c + label_radius * radius * np.array([np.cos(mid), np.sin(mid)]), label, color=color)
    return {"arc": arc, "head": head, "label": text}


def draw_force(ax, point, vector, label: str | None = None, color=FORCE_COLOR, at_head: bool = False,
               **kw) -> dict:
    """A force arrow acting at ``point``: drawn ending on the point (``at_head=True``) or starting from it.

    Returns what :func:`draw_vector` returns.
    """
    point, vector = _xy(point, "point"), _xy(vector, "vector")
    tail = point - vector if at_head else point
    return draw_vector(ax, tail, vector, label, color=color, width=kw.pop("width", 2.0), **kw)


def draw_contact(ax, point, normal, gap: float = 0.0, length: float = 0.4, labels=("n", "t", "g"),
                 color=VECTOR_COLOR) -> dict:
    """A unilateral contact at ``point`` (chapter 9): the unit normal ``n`` (pointing to the side the body may
    move to, the direction of the normal force on it), the tangent ``t = (n_y, −n_x)`` (``t, n`` turn like
    ``x, y``), and for ``gap > 0`` the gap as a dimension line from ``point`` along ``n``, labelled.

    Returns ``{"normal": arrow dict, "tangent": arrow dict, "gap": Line2D or None, "label": Text or None}``.
    """
    point = _xy(point, "point")
    n = _xy(normal, "normal")
    if not np.hypot(*n) > 0:
        raise ShapeError("draw_contact: normal must be a non-zero 2-vector")
    n = n / np.hypot(*n)
    t = np.array([n[1], -n[0]])
    out = {"normal": draw_vector(ax, point, length * n, labels[0], color=color, label_at=1.0,
                                 label_offset=0.12 * length * (n + t)),
           "tangent": draw_vector(ax, point, length * t, labels[1], color=color, label_at=1.0,
                                  label_offset=0.12 * length * (t - n)),
           "gap": None, "label": None}
    if gap > 0:
        side = -0.35 * length * t
        ends = np.array([point + side, point + side + gap * n])
        (out["gap"],) = ax.plot(*ends.T, color=INK, lw=0.9, marker="_", ms=6, zorder=4)
        out["label"] = _label(ax, ends.mean(axis=0) - 0.2 * length * t, labels[2], color=INK)
        ax.update_datalim(ends)
    ax.autoscale_view()
    return out


def draw_friction_cone(ax, point, normal, mu: float, length: float = 0.5, color=FORCE_COLOR,
                       label: str | None = None, alpha: float = 0.18) -> dict:
    """Coulomb's friction cone at a contact point: the contact forces the surface can exert, those within the
    angle ``atan(μ)`` of the normal ``normal`` (pointing into the body that is pushed); a force on its edge
    slides, one inside sticks.  In the plane the cone is a wedge, drawn filled with its two edges.

    Returns ``{"cone": Polygon, "edges": [Line2D, Line2D], "label": Text or None}``.
    """
    point = _xy(point, "point")
    n = _xy(normal, "normal")
    if not np.hypot(*n) > 0:
        raise ShapeError("draw_friction_cone: normal must be a non-zero 2-vector")
    if isinstance(mu, bool) or not isinstance(mu, int | float | np.floating) or not 0 <= mu < np.inf:
        raise ShapeError(f"draw_friction_cone: the friction coefficient must be a number ≥ 0, got {mu!r}")
    n = n / np.hypot(*n)
    t = np.array([n[1], -n[0]])
    half = np.arctan(mu)
    edges = [point + length * (np.cos(half) * n + s * np.sin(half) * t) for s in (1.0, -1.0)]
    cone = patches.Polygon([point, edges[0], edges[1]], closed=True, facecolor=color, edgecolor="none",
                           alpha=alpha, zorder=2)
    ax.add_patch(cone)
    lines = [ax.plot(*np.array([point, e]).T, color=color, lw=1.2, zorder=3)[0] for e in edges]
    ax.update_datalim([point, *edges])
    ax.autoscale_view()
    text = _label(ax, point + 1.12 * length * n, label, color=color)
    return {"cone": cone, "edges": lines, "label": text}


def draw_moment(ax, center, radius: float = 0.15, ccw: bool = True, label: str | None = None,
                color=MOMENT_COLOR, start: float = -60.0, sweep: float = 250.0) -> dict:
    """A moment (torque) about ``center``: a curved arrow, counter-clockwise by default (degrees for the arc).

    Returns ``{"arc": Line2D, "head": FancyArrowPatch, "label": Text or None}``.
    """
    a0 = np.radians(start)
    a1 = a0 + np.radians(sweep) * (1 if ccw else -1)
    out = draw_angle(ax, center, a0, a1, radius, None, color=color)
    out["arc"].set_linewidth(1.6)
    c = _xy(center, "center")
    out["label"] = _label(ax, c + 1.45 * radius * np.array([np.cos(a0), np.sin(a0)]), label, color=color)
    return out


def draw_com(ax, p, radius: float = 0.035, label: str | None = None, label_offset=(0.05, -0.05)) -> dict:
    """The centre-of-mass symbol (a circle with two black quarters) at ``p``.

    Returns ``{"circle": Circle, "quarters": [Wedge, Wedge], "label": Text or None}``.
    """
    p = _xy(p, "p")
    circle = patches.Circle(p, radius, facecolor="white", edgecolor=INK, lw=1.0, zorder=8)
    quarters = [patches.Wedge(p, radius, t, t + 90, facecolor=INK, edgecolor=INK, lw=0, zorder=9)
                for t in (0, 180)]
    for art in (circle, *quarters):
        ax.add_patch(art)
    ax.update_datalim([p - radius, p + radius])
    return {"circle": circle, "quarters": quarters,
            "label": _label(ax, p, label, offset=label_offset, ha="left", va="top")}


def draw_spring(ax, p, q, coils: int = 6, width: float = 0.06, color=INK, label: str | None = None) -> dict:
    """A zig-zag spring from ``p`` to ``q``.

    Returns ``{"spring": Line2D, "label": Text or None}``.
    """
    p, q = _xy(p, "p"), _xy(q, "q")
    d = q - p
    length = np.hypot(*d)
    if length == 0:
        raise ValueError("draw_spring: the two ends coincide")
    u, n = d / length, np.array([-d[1], d[0]]) / length
    s = np.concatenate([[0, 0.15], np.linspace(0.15, 0.85, 2 * coils + 1)[1:-1], [0.85, 1.0]])
    side = np.zeros_like(s)
    side[2:-2] = np.where(np.arange(len(s) - 4) % 2 == 0, 1.0, -1.0) * width / 2
    pts = p + np.outer(s * length, u) + np.outer(side, n)
    (line,) = ax.plot(*pts.T, color=color, lw=1.1, zorder=3)
    return {"spring": line, "label": _label(ax, (p + q) / 2 + 1.5 * width * n, label)}


def draw_damper(ax, p, q, width: float = 0.06, color=INK, label: str | None = None) -> dict:
    """A viscous damper (dashpot) from ``p`` to ``q``: a rod, a cup open towards ``q``, a piston in it.

    Returns ``{"lines": [Line2D], "label": Text or None}``.
    """
    p, q = _xy(p, "p"), _xy(q, "q")
    d = q - p
    length = np.hypot(*d)
    if length == 0:
        raise ValueError("draw_damper: the two ends coincide")
    u, n = d / length, np.array([-d[1], d[0]]) / length
    w = width / 2

    def at(s, side=0.0):
        return p + s * length * u + side * w * n

    pieces = [
        [at(0.0), at(0.35)],                                    # rod from p to the cup's bottom
        [at(0.62, -1), at(0.35, -1), at(0.35, 1), at(0.62, 1)],  # the cup
        [at(0.5, -0.75), at(0.5, 0.75)],                        # the piston
        [at(0.5), at(1.0)],                                     # its rod to q
    ]
    lines = [ax.plot(*np.array(piece).T, color=color, lw=1.1, zorder=3)[0] for piece in pieces]
    return {"lines": lines, "label": _label(ax, (p + q) / 2 + 1.5 * width * n, label)}


def draw_rack_pinion(ax, center, radius: float, angle: float = 0.0, axis: float = 0.0, travel=None,
                     rack_length: float | None = None, teeth: int = 12, rack_width: float | None = None,
                     color=LINK_COLOR, rack_color="#c6dbef", edge=INK) -> dict:
    """A rack and pinion in mesh: a toothed pinion of pitch radius ``radius`` centred on ``center`` and
    turned by ``angle``, and a toothed rack along direction ``axis`` (radians) on the pinion's right-hand
    side, as :class:`mbdlib.constraints.RackPinion` has it (the pinion on the left of the rack's axis u).

    The rack's pitch line touches the pitch circle at ``center − ρ R u`` (R turns by +90°); the rack is
    moved along u by ``travel`` (default ``ρ · angle``, rolling without slip from the drawing at angle 0,
    so that the teeth stay in mesh).  Teeth of module ``m = ρ · 2/teeth``: addendum m, dedendum 1.25 m.

    Returns ``{"pinion": Polygon, "rack": Polygon, "hub": Circle, "pitch_point": ndarray (2,),
    "rack_teeth": ndarray (k, 2)}`` (the rack's tooth centres on the pitch line).
    """
    c = _xy(center, "center")
    rho = float(radius)
    if not (np.isfinite(rho) and rho > 0) or int(teeth) != teeth or teeth < 6:
        raise ValueError(f"draw_rack_pinion: need a positive radius and at least 6 teeth, got {radius!r}, "
                         f"{teeth!r}")
    N = int(teeth)
    m = 2.0 * rho / N                                  # module: pitch p = π m = 2π ρ / N
    pitch = np.pi * m
    u = rot2(axis)[:, 0]
    n = rot2(axis)[:, 1]                               # R u: the pinion's side
    contact = c - rho * n
    travel = rho * angle if travel is None else float(travel)
    # pinion: N teeth, a gap facing the rack at angle 0 (a rack tooth sits at the pitch point)
    out_r, in_r = rho + m, rho - 1.25 * m
    pts = []
    for k in range(N):
        mid = axis - np.pi / 2 + angle + (k + 0.5) * 2 * np.pi / N   # a tooth's centre direction
        half = np.pi / N
        for a, r in ((-0.55 * half, in_r), (-0.3 * half, out_r), (0.3 * half, out_r), (0.55 * half, in_r)):
            # the same tooth as the rack's: ±0.275 p at the root, ±0.15 p at the tip (arc lengths)
            pts.append(c + r * np.array([np.cos(mid + a), np.sin(mid + a)]))
    pinion = patches.Polygon(np.array(pts), closed=True, facecolor=color, edgecolor=edge, lw=1.0, zorder=5)
    hub = patches.Circle(c, 0.25 * rho, facecolor="white", edgecolor=edge, lw=1.0, zorder=6)
    # rack: teeth on the pitch line at travel + k p, the body beyond the dedendum
    length = 6.0 * rho if rack_length is None else float(rack_length)
    width = 2.0 * rho / 3 if rack_width is None else float(rack_width)
    mid_rack = contact + travel * u
    ks = np.arange(np.ceil(-length / 2 / pitch + 0.5), np.floor(length / 2 / pitch - 0.5) + 1)
    centres = np.array([mid_rack + k * pitch * u for k in ks]).reshape(-1, 2)
    outline = [mid_rack - length / 2 * u - (1.25 * m + width) * n]
    for t in centres:
        for along, up in ((-0.275, -1.25), (-0.15, 1.0), (0.15, 1.0), (0.275, -1.25)):   # pitches, modules
            outline.append(t + along * pitch * u + up * m * n)
    outline.append(mid_rack + length / 2 * u - (1.25 * m + width) * n)
    rack = patches.Polygon(np.array(outline), closed=True, facecolor=rack_color, edgecolor=edge, lw=1.0,
                           zorder=4)
    for art in (rack, pinion, hub):
        ax.add_patch(art)
    ax.update_datalim(np.vstack([np.array(pts), np.array(outline)]))
    ax.autoscale_view()
    return {"pinion": pinion, "rack": rack, "hub": hub, "pitch_point": contact, "rack_teeth": centres}


def draw_label_box(ax, xy, text: str, width: float = 1.6, height: float = 0.5, color=COURSE_COLORS[0],
                   fill: str = "white", size: float = _FONT) -> dict:
    """A rounded box with centred text (a step of a flow chart).

    Returns ``{"box": FancyBboxPatch, "text": Text}``.
    """
    x, y = _xy(xy, "xy")
    box = patches.FancyBboxPatch((x - width / 2, y - height / 2), width, height,
                                 boxstyle="round,pad=0.02,rounding_size=0.08", facecolor=fill,
                                 edgecolor=color, lw=1.4, zorder=3)
    ax.add_patch(box)
    ax.update_datalim([(x - width / 2, y - height / 2), (x + width / 2, y + height / 2)])
    text_artist = ax.text(x, y, text, ha="center", va="center", fontsize=size, zorder=4, color=INK)
    return {"box": box, "text": text_artist}


def draw_flow_arrow(ax, start, end, label: str | None = None, color=INK, curve: float = 0.0,
                    linestyle: str = "-") -> dict:
    """An arrow between two boxes of a flow chart (``curve`` bends it: the arc's rad of matplotlib).

    Returns ``{"arrow": FancyArrowPatch, "label": Text or None}``.
    """
    start, end = _xy(start, "start"), _xy(end, "end")
    arrow = patches.FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, color=color, lw=1.3,
                                    connectionstyle=f"arc3,rad={curve}", linestyle=linestyle, zorder=2)
    ax.add_patch(arrow)
    ax.update_datalim([start, end])
    mid = (start + end) / 2
    return {"arrow": arrow, "label": _label(ax, mid, label, offset=(0.0, 0.08), size=_FONT - 1)}


def draw_block_matrix(ax, rows: Sequence[tuple[str, int]], cols: Sequence[tuple[str, int]], pattern,
                      colors=None, cell: float = 1.0, labels: bool = True) -> dict:
    """A block matrix drawn as a grid: row blocks (e.g. joints) against column blocks (e.g. bodies).

    Parameters
    ----------
    rows, cols : sequences of (label, size)
        The blocks along each side, e.g. ``[("joint A", 2), ("joint B", 2)]`` and ``[("body 1", 3), ...]``.
    pattern : (len(rows), len(cols)) array_like of bool or str
        Which blocks are non-zero; a string entry is written inside the block (e.g. ``"$-I$"``).
    colors : sequence of colours, optional
        One per row block (default: the course palette).
    cell : float
        Size of one entry.

    Returns
    -------
    dict
        ``{"blocks": [Rectangle of each non-zero block], "grid": [Line2D], "labels": [Text]}``.
    """
    pattern = np.asarray(pattern, dtype=object)
    if pattern.shape != (len(rows), len(cols)):
        raise ShapeError(f"draw_block_matrix: pattern must have shape ({len(rows)}, {len(cols)}) "
                         f"(row blocks, column blocks), got {pattern.shape}")
    colors = colors or COURSE_COLORS
    r_edges = np.concatenate([[0], np.cumsum([n for _, n in rows])]) * cell
    c_edges = np.concatenate([[0], np.cumsum([n for _, n in cols])]) * cell
    H, W = r_edges[-1], c_edges[-1]
    blocks, grid, texts = [], [], []
    for i in range(len(rows)):
        for j in range(len(cols)):
            entry = pattern[i, j]
            if entry is False or entry is None or (not isinstance(entry, str) and not entry):
                continue
            x0, y0 = c_edges[j], H - r_edges[i + 1]
            rect = patches.Rectangle((x0, y0), c_edges[j + 1] - x0, r_edges[i + 1] - r_edges[i],
                                     facecolor=colors[i % len(colors)], alpha=0.55, edgecolor="none",
                                     zorder=1)
            ax.add_patch(rect)
            blocks.append(rect)
            if isinstance(entry, str):
                texts.append(ax.text(x0 + (c_edges[j + 1] - x0) / 2, y0 + (r_edges[i + 1] - r_edges[i]) / 2,
                                     entry, ha="center", va="center", fontsize=_FONT - 1, zorder=3))
    # thin lines between entries, thicker ones between blocks
    for x in np.arange(0, W + cell / 2, cell):
        major = np.isclose(c_edges, x).any()
        grid.append(ax.plot([x, x], [0, H], color=INK if major else "0.7", lw=1.0 if major else 0.4,
                            zorder=2)[0])
    for y in np.arange(0, H + cell / 2, cell):
        major = np.isclose(r_edges, y).any()
        grid.append(ax.plot([0, W], [H - y, H - y], color=INK if major else "0.7", lw=1.0 if major else 0.4,
                            zorder=2)[0])
    if labels:
        for i, (name, _) in enumerate(rows):
            texts.append(ax.text(-0.3 * cell, H - (r_edges[i] + r_edges[i + 1]) / 2, name, ha="right",
                                 va="center", fontsize=_FONT - 1, color=colors[i % len(colors)]))
        for j, (name, _) in enumerate(cols):
            texts.append(ax.text((c_edges[j] + c_edges[j + 1]) / 2, H + 0.3 * cell, name, ha="center",
                                 va="bottom", fontsize=_FONT - 1))
    ax.set_xlim(-0.2 * cell - 0.02 * W, W + 0.2 * cell)
    ax.set_ylim(-0.2 * cell, H + 1.2 * cell)
    ax.set_aspect("equal")
    ax.set_axis_off()
    return {"blocks": blocks, "grid": grid, "labels": texts}


def draw_vector_3d(ax, tail, vector, label: str | None = None, color=VECTOR_COLOR, width: float = 1.8,
                   label_at: float = 0.55, label_offset=(0.0, 0.0, 0.0), ratio: float = 0.12) -> dict:
    """A 3-D arrow from ``tail`` to ``tail + vector`` with a label near its middle.

    Returns ``{"arrow": Line3DCollection (quiver), "label": Text or None}``.
    """
    if getattr(ax, "name", None) != "3d":
        raise TypeError("draw_vector_3d needs a 3-D axes: fig.add_subplot(projection='3d')")
    tail, vector = _xyz(tail, "tail"), _xyz(vector, "vector")
    arrow = ax.quiver(*tail, *vector, color=color, linewidth=width, arrow_length_ratio=ratio)
    text = None
    if label:
        at = tail + label_at * vector + np.asarray(label_offset, dtype=float)
        text = ax.text(*at, label, color=color, fontsize=_FONT, ha="center", va="bottom")
    return {"arrow": arrow, "label": text}


def draw_axis_3d(ax, point, direction, length: float = 1.0, label: str | None = None, color=INK) -> dict:
    """A joint axis: a dash-dotted line through ``point`` along ``direction`` with an arrow at one end.

    Returns ``{"line": Line3D, "arrow": quiver, "label": Text or None}``.
    """
    if getattr(ax, "name", None) != "3d":
        raise TypeError("draw_axis_3d needs a 3-D axes: fig.add_subplot(projection='3d')")
    point, direction = _xyz(point, "point"), _xyz(direction, "direction")
    norm = np.linalg.norm(direction)
    if norm == 0:
        raise ValueError("draw_axis_3d: the direction is the zero vector")
    u = direction / norm
    a, b = point - 0.5 * length * u, point + 0.5 * length * u
    (line,) = ax.plot(*np.array([a, b]).T, color=color, lw=1.0, linestyle="-.")
    arrow = ax.quiver(*(b - 0.15 * length * u), *(0.15 * length * u), color=color, linewidth=1.2,
                      arrow_length_ratio=0.6)
    text = ax.text(*(b + 0.06 * length * u), label, color=color, fontsize=_FONT) if label else None
    return {"line": line, "arrow": arrow, "label": text}


def legend_handles(entries: Sequence[tuple[str, str]]) -> list[Line2D]:
    """Legend proxies ``[(colour, text), ...]`` for a schematic's arrows (arrows do not enter legends).

    >>> [h.get_label() for h in legend_handles([("red", "force")])]
    ['force']
    """
    return [Line2D([], [], color=c, lw=2, marker=">", markersize=5, label=t) for c, t in entries]


# --- 3-D mechanisms drawn flat: an orthographic view onto a 2-D diagram ---------------------------------
# A 3-D axes of matplotlib leaves wide margins and places labels poorly; these helpers project 3-D points
# with a fixed view matrix (``oblique``) and draw with the planar helpers, so a spatial link, its joint
# axes and its frames get the same look and the same control over labels as the planar schematics.


def oblique(azim: float = -60.0, elev: float = 20.0) -> np.ndarray:
    """The (2, 3) matrix of an orthographic view: screen ``(x, y) = V @ p`` of a 3-D point ``p``.

    ``azim`` and ``elev`` (degrees) place the viewer as matplotlib's ``view_init(elev, azim)`` does; the rows
    of ``V`` are the screen's right and up directions in global components (orthonormal).

    >>> V = oblique(-90.0, 0.0)          # looking along +y: x to the right, z up
    >>> np.round(V, 12) + 0.0
    array([[1., 0., 0.],
           [0., 0., 1.]])
    """
    a, e = np.radians(azim), np.radians(elev)
    right = np.array([-np.sin(a), np.cos(a), 0.0])
    up = np.array([-np.sin(e) * np.cos(a), -np.sin(e) * np.sin(a), np.cos(e)])
    return np.vstack([right, up])


def _view(view) -> np.ndarray:
    V = np.asarray(view, dtype=float)
    if V.shape != (2, 3) or not np.all(np.isfinite(V)):
        raise ShapeError(f"view must be the (2, 3) matrix of oblique(azim, elev), got shape {V.shape}")
    return V


def _perpendicular_basis(axis, name: str):
    u = _xyz(axis, name)
    norm = np.linalg.norm(u)
    if norm == 0:
        raise ValueError(f"{name} is the zero vector")
    u = u / norm
    a = np.cross(u, [1.0, 0.0, 0.0]) if abs(u[0]) < 0.9 else np.cross(u, [0.0, 1.0, 0.0])
    a /= np.linalg.norm(a)
    return u, a, np.cross(u, a)


def draw_frame_oblique(ax, view, A=None, origin=(0.0, 0.0, 0.0), length: float = 0.4,
                       labels: Sequence[str] | None = ("x", "y", "z"), colors=FRAME_COLORS,
                       width: float = 1.4, linestyle: str = "-", alpha: float = 1.0,
                       label_at: float = 1.2) -> dict:
    """The triad of a 3-D frame seen through ``view``: axis ``k`` along column ``k`` of the DCM ``A``.

    An empty label skips that axis's text (e.g. an axis shared with another frame, labelled once).

    Returns ``{"axes": [3 arrows], "labels": [Text]}``.
    """
    V = _view(view)
    A = np.eye(3) if A is None else np.asarray(A, dtype=float)
    if A.shape != (3, 3):
        raise ShapeError(f"draw_frame_oblique: A must be a (3, 3) DCM, got shape {A.shape}")
    o = V @ _xyz(origin, "origin")
    arrows, texts = [], []
    for k in range(3):
        d = V @ (A[:, k] * length)
        arrow = draw_vector(ax, o, d, color=colors[k], width=width, linestyle=linestyle, head=9,
                            zorder=5)["arrow"]
        arrow.set_alpha(alpha)
        arrows.append(arrow)
        if labels and labels[k]:
            texts.append(_label(ax, o + label_at * d, labels[k], color=colors[k], alpha=alpha))
    return {"axes": arrows, "labels": texts}


def draw_revolute_oblique(ax, view, point, axis, radius: float = 0.08, length: float = 0.25,
                          extent=(0.45, 0.6), label: str | None = None, label_offset=(0.03, 0.02)) -> dict:
    """A revolute joint in space seen through ``view``: a cylinder about ``axis``, the dash-dotted joint axis.

    The axis runs from ``extent[0]`` behind ``point`` to ``extent[1]`` ahead of it (along ``axis``), with an
    arrow on its outer half (the joint axis vector ``k``) and ``label`` beyond its end.

    Returns ``{"body": Polygon, "cap": Polygon, "line": Line2D, "arrow": FancyArrowPatch,
    "label": Text or None}``.
    """
    V = _view(view)
    p = _xyz(point, "point")
    u, a, b = _perpendicular_basis(axis, "axis")
    t = np.linspace(0.0, 2 * np.pi, 48, endpoint=False)
    circle = np.outer(np.cos(t), a) + np.outer(np.sin(t), b)
    near, far = ((p + s * u + radius * circle) @ V.T for s in (length / 2, -length / 2))
    toward_viewer = np.cross(V[0], V[1])
    if u @ toward_viewer < 0:
        near, far = far, near
    # the silhouette of a cylinder: the outline of its two end ellipses (their convex hull)
    pts = np.vstack([near, far])
    hull = _convex_hull(pts)
    body = patches.Polygon(hull, closed=True, facecolor="0.82", edgecolor=INK, lw=1.0, zorder=3)
    cap = patches.Polygon(near, closed=True, facecolor="0.93", edgecolor=INK, lw=1.0, zorder=3)
    ax.add_patch(body)
    ax.add_patch(cap)
    lo, hi = V @ (p - extent[0] * u), V @ (p + extent[1] * u)
    (line,) = ax.plot(*np.array([lo, hi]).T, color=INK, lw=1.0, linestyle="-.", zorder=5)
    arrow = draw_vector(ax, V @ (p + 0.5 * extent[1] * u), V @ (0.5 * extent[1] * u), color=INK,
                        width=1.4)["arrow"]
    ax.update_datalim(np.vstack([pts, [lo, hi]]))
    text = _label(ax, hi, label, offset=label_offset, ha="left", va="bottom", size=_FONT + 1)
    return {"body": body, "cap": cap, "line": line, "arrow": arrow, "label": text}


def _convex_hull(points: np.ndarray) -> np.ndarray:
    """Vertices of the convex hull of planar points, counter-clockwise (Andrew's monotone chain)."""
    pts = sorted(map(tuple, np.round(points, 12)))

    def turn(o, a, b):  # z of (a - o) x (b - o): > 0 for a left turn
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def half(seq):
        out: list = []
        for q in seq:
            while len(out) >= 2 and turn(out[-2], out[-1], q) <= 0:
                out.pop()
            out.append(q)
        return out

    lower, upper = half(pts), half(reversed(pts))
    return np.array(lower[:-1] + upper[:-1])


def draw_arc_oblique(ax, view, center, axis, start, angle: float, radius: float = 0.2,
                     label: str | None = None, label_at: float = 1.35, label_offset=(0.0, 0.0),
                     color=INK, arrow: bool = True, width: float = 1.2) -> dict:
    """An arc in space seen through ``view``: about ``axis`` through ``center``, from direction ``start`` over
    ``angle`` radians (right-hand rule about ``axis``), with an arrow head at its end.

    Use it for an angle between two axes of successive frames (``start`` the old axis, ``angle`` the turn) or
    for the spin of a joint (a large ``angle``). The label sits at ``label_at`` radii on the arc's bisector.

    Returns ``{"arc": Line2D, "head": FancyArrowPatch or None, "label": Text or None}``.
    """
    V = _view(view)
    c = _xyz(center, "center")
    u, _, _ = _perpendicular_basis(axis, "axis")
    a = _xyz(start, "start")
    a = a - (a @ u) * u
    if np.linalg.norm(a) < 1e-12:
        raise ValueError("draw_arc_oblique: start is parallel to the axis; give a direction across it")
    a /= np.linalg.norm(a)
    b = np.cross(u, a)
    t = np.linspace(0.0, angle, 60)
    pts = (c + radius * (np.outer(np.cos(t), a) + np.outer(np.sin(t), b))) @ V.T
    (arc,) = ax.plot(*pts.T, color=color, lw=width, zorder=6)
    head = None
    if arrow and abs(angle) > 1e-9:
        head = patches.FancyArrowPatch(pts[-4], pts[-1], arrowstyle="-|>", mutation_scale=9, color=color,
                                       lw=width, shrinkA=0, shrinkB=0, zorder=6)
        ax.add_patch(head)
    ax.update_datalim(pts)
    mid = c + label_at * radius * (np.cos(angle / 2) * a + np.sin(angle / 2) * b)
    text = _label(ax, V @ mid, label, color=color, offset=label_offset, size=_FONT + 1)
    return {"arc": arc, "head": head, "label": text}


def draw_vector_oblique(ax, view, tail, vector, label: str | None = None, color=VECTOR_COLOR,
                        width: float = 1.6, label_at: float = 1.0, label_offset=(0.0, 0.0),
                        linestyle: str = "-", head: float = 10.0) -> dict:
    """A 3-D vector from ``tail`` to ``tail + vector`` seen through ``view`` (:func:`oblique`), labelled.

    The label sits at ``label_at`` of the way along the projected arrow (1: at its head), a little to its
    left seen from the tail, shifted by ``label_offset`` (screen units of the diagram). A vector seen
    end-on (projected length zero) is drawn as a dot.

    Returns ``{"arrow": FancyArrowPatch, "label": Text or None}``.
    """
    V = _view(view)
    tail3, vec3 = _xyz(tail, "tail"), _xyz(vector, "vector")
    t, d = V @ tail3, V @ vec3
    if np.hypot(*d) < 1e-12:
        (dot,) = ax.plot(*t, "o", ms=3.0, color=color, zorder=5)
        return {"arrow": dot, "label": _label(ax, t, label, color=color, offset=label_offset)}
    out = draw_vector(ax, t, d, None, color=color, width=width, linestyle=linestyle, head=head, zorder=5)
    normal = np.array([-d[1], d[0]]) / np.hypot(*d)
    at = t + label_at * d + 0.12 * normal * min(np.hypot(*d), 0.5) + np.asarray(label_offset, dtype=float)
    out["label"] = _label(ax, at, label, color=color)
    return out


def draw_point_oblique(ax, view, point, label: str | None = None, color=INK, size: float = 4.0,
                       label_offset=(0.04, 0.04), filled: bool = True) -> dict:
    """A marked 3-D point seen through ``view`` (see :func:`draw_point`)."""
    V = _view(view)
    return draw_point(ax, V @ _xyz(point, "point"), label, color=color, size=size, label_offset=label_offset,
                      filled=filled)


def draw_circle_oblique(ax, view, center, axis, radius: float, color=INK, width: float = 1.4,
                        fill=None, linestyle: str = "-", n: int = 96) -> dict:
    """A circle in space (a disk's rim, a top's rim): centre, the normal ``axis`` and the radius, seen
    through ``view`` as an ellipse; ``fill`` (a colour) shades the disk.

    Returns ``{"rim": Line2D, "disk": Polygon or None, "points": (n, 3) array of the rim in space}``.
    """
    V = _view(view)
    c = _xyz(center, "center")
    if not (np.isfinite(radius) and radius > 0):
        raise ValueError(f"draw_circle_oblique: the radius must be positive, got {radius!r}")
    _, a, b = _perpendicular_basis(axis, "axis")
    t = np.linspace(0.0, 2 * np.pi, n + 1)
    rim3 = c + radius * (np.outer(np.cos(t), a) + np.outer(np.sin(t), b))
    rim = rim3 @ V.T
    (line,) = ax.plot(*rim.T, color=color, lw=width, linestyle=linestyle, zorder=3)
    disk = None
    if fill is not None:
        disk = patches.Polygon(rim[:-1], closed=True, facecolor=fill, edgecolor="none", alpha=0.35, zorder=1)
        ax.add_patch(disk)
    ax.update_datalim(rim)
    ax.autoscale_view()
    return {"rim": line, "disk": disk, "points": rim3[:-1]}


def draw_box_oblique(ax, view, center, A=None, half=(0.2, 0.1, 0.05), color="0.45", width: float = 0.9,
                     label: str | None = None, label_offset=(0.0, 0.0)) -> dict:
    """The twelve edges of a box (a body) seen through ``view``: centre, orientation ``A`` (body -> global)
    and half sides ``half`` along its body axes.

    Returns ``{"edges": [12 Line2D], "label": Text or None}``.
    """
    V = _view(view)
    c = _xyz(center, "center")
    A = np.eye(3) if A is None else np.asarray(A, dtype=float)
    if A.shape != (3, 3):
        raise ShapeError(f"draw_box_oblique: A must be a (3, 3) DCM, got shape {A.shape}")
    h = _xyz(half, "half")
    corners = {s: c + A @ (np.array(s) * h) for s in ((x, y, z) for x in (-1, 1) for y in (-1, 1)
                                                       for z in (-1, 1))}
    edges = []
    for s, p in corners.items():
        for k in range(3):
            if s[k] < 0:
                other = list(s)
                other[k] = 1
                seg = np.array([p, corners[tuple(other)]]) @ V.T
                edges.append(ax.plot(*seg.T, color=color, lw=width, zorder=2)[0])
    ax.update_datalim(np.array(list(corners.values())) @ V.T)
    ax.autoscale_view()
    return {"edges": edges, "label": _label(ax, V @ c, label, color=color, offset=label_offset)}


def draw_right_angle_oblique(ax, view, corner, u, v, size: float = 0.06, color=INK) -> dict:
    """The square mark of a right angle between the directions ``u`` and ``v`` at ``corner`` (3-D).

    Returns ``{"mark": Line2D}``; an error if ``u`` and ``v`` are not perpendicular (to 1e-6), since the
    mark would say something false.
    """
    V = _view(view)
    c = _xyz(corner, "corner")
    u, _, _ = _perpendicular_basis(u, "u")
    v, _, _ = _perpendicular_basis(v, "v")
    if abs(u @ v) > 1e-6:
        raise ValueError(f"draw_right_angle_oblique: u and v are not perpendicular (u·v = {u @ v:.3g})")
    pts = np.array([c + size * u, c + size * (u + v), c + size * v]) @ V.T
    (mark,) = ax.plot(*pts.T, color=color, lw=0.9, zorder=6)
    return {"mark": mark}


# --- a spatial joint of mbdlib.spatial drawn with the vectors of its equations ---------------------------
#: The vectors each named row of a spatial joint relates (mbdlib.spatial_joints): dot-1 rows keep the two
#: vectors perpendicular, dot-2 rows keep the vector perpendicular to d = P_j - P_i.
JOINT_ROW_VECTORS = {"axis f": ("f_i", "h_j"), "axis g": ("g_i", "h_j"), "line f": ("f_i", "d"),
                     "line g": ("g_i", "d"), "cross": ("h_i", "h_j"), "twist": ("f_i", "g_j")}
_SYMBOL = {"f_i": r"$\mathbf{f}_i$", "g_i": r"$\mathbf{g}_i$", "h_i": r"$\mathbf{h}_i$",
           "h_j": r"$\mathbf{h}_j$", "g_j": r"$\mathbf{g}_j$", "d": r"$\mathbf{d}_{ij}$"}


def joint_conditions(joint) -> list[str]:
    """The conditions a joint's rows impose, in the symbols of the book's joint figure (mathtext).

    >>> from mbdlib.spatial import SpatialModel
    >>> m = SpatialModel()
    >>> a, b = m.add_body("a"), m.add_body("b")
    >>> for condition in joint_conditions(m.add_revolute(a, b)):
    ...     print(condition)
    $P_i = P_j$
    $\\mathbf{h}_j \\perp \\mathbf{f}_i$
    $\\mathbf{h}_j \\perp \\mathbf{g}_i$
    """
    out = []
    for name in _row_names(joint):
        if name in ("x", "y", "z"):
            if "$P_i = P_j$" not in out:
                out.append("$P_i = P_j$")
        elif name in JOINT_ROW_VECTORS:
            a, b = JOINT_ROW_VECTORS[name]
            out.append(f"{_SYMBOL[b][:-1]} \\perp {_SYMBOL[a][1:]}")
        elif name == "" and joint.kind == "distance":
            out.append(r"$|\mathbf{d}_{ij}| = \ell$")
        else:
            raise ValueError(f"joint_conditions: joint {joint.name!r} ({joint.kind}) has a row {name!r} that "
                             "the joint figure does not know")
    return out


def _row_names(joint) -> list[str]:
    prefix = len(f"{joint.kind} {joint.name}")
    return [label[prefix:].strip() for label in joint.labels]


def draw_spatial_joint(ax, view, model, joint, q=None, length: float = 0.35, colors=None,
                       label_offsets=None) -> dict:
    """A joint of a :class:`~mbdlib.spatial.SpatialModel` drawn with the vectors its equations use, at ``q``
    (default: the model's initial coordinates), seen through ``view`` (:func:`oblique`).

    The body vectors are read off the joint's equations (its basic constraints and their body-frame
    vectors, :mod:`mbdlib.spatial_joints`), turned by each body's ``A(p)`` and drawn from the joint points:
    ``f_i, g_i, h_i`` of body ``i`` from ``P_i`` in ``colors[0]``, ``h_j, g_j`` of body ``j`` from ``P_j`` in
    ``colors[1]``, and ``d_ij = P_j − P_i`` in grey. ``label_offsets`` maps a symbol (``"f_i"``, ``"h_j"``,
    ``"d"``, ``"P"``) to a screen offset of its label.

    Returns ``{"points": {"P_i": array, "P_j": array} (3-D), "vectors": {symbol: 3-D unit or d vector},
    "arrows": {symbol: dict of draw_vector_oblique}, "conditions": [mathtext]}``.
    """
    V = _view(view)
    colors = colors or (COURSE_COLORS[0], COURSE_COLORS[1])
    offsets = label_offsets or {}
    q = model.q_guess() if q is None else np.asarray(q, dtype=float)
    if joint._index is None or not any(joint is j for j in model.joints):
        raise ValueError(f"draw_spatial_joint: joint {joint.name!r} is not a joint of this model")

    def pose(k):
        if k == FIXED:
            return np.zeros(3), np.eye(3)
        b = joint._index[k]
        return q[7 * b: 7 * b + 3], _A(q[7 * b + 3: 7 * b + 7])

    names = _row_names(joint)
    row = 0
    P = {}
    vec: dict[str, np.ndarray] = {}
    for el in joint.elements:
        kind = el.kind.__name__
        (ri, Ai), (rj, Aj) = pose(el.i), pose(el.j)
        if "si" in el.par:
            P["P_i"] = ri + Ai @ el.par["si"]
        if "sj" in el.par:
            P["P_j"] = rj + Aj @ el.par["sj"]
        rows = names[row: row + el.rows]
        row += el.rows
        if kind == "_dot1":
            a, b = JOINT_ROW_VECTORS[rows[0]]
            vec.setdefault(a, Ai @ el.par["ai"])
            vec.setdefault(b, Aj @ el.par["aj"])
        elif kind == "_dot2":
            a, _ = JOINT_ROW_VECTORS[rows[0]]
            vec.setdefault(a, Ai @ el.par["ai"])
    if "P_i" not in P:
        raise ValueError(f"draw_spatial_joint: joint {joint.name!r} ({joint.kind}) has no joint points")
    d = P["P_j"] - P["P_i"]
    if any(k in ("line f", "line g") for k in names) or joint.kind == "distance":
        vec["d"] = d
    arrows = {}
    for sym, v in vec.items():
        if sym == "d":
            if np.linalg.norm(d) > 1e-9:
                arrows[sym] = draw_vector_oblique(ax, V, P["P_i"], d, _SYMBOL[sym], color="0.45", width=1.3,
                                                  label_at=0.5, label_offset=offsets.get(sym, (0.0, 0.0)))
            continue
        side = sym.endswith("_j")
        tail = P["P_j"] if side else P["P_i"]
        arrows[sym] = draw_vector_oblique(ax, V, tail, length * v / np.linalg.norm(v), _SYMBOL[sym],
                                          color=colors[1 if side else 0],
                                          label_offset=offsets.get(sym, (0.0, 0.0)))
    coincide = np.linalg.norm(d) < 1e-9
    draw_point_oblique(ax, V, P["P_i"], r"$P_i = P_j$" if coincide else r"$P_i$", color=colors[0],
                       label_offset=offsets.get("P", (0.0, -0.13)))
    if not coincide:
        draw_point_oblique(ax, V, P["P_j"], r"$P_j$", color=colors[1], label_offset=offsets.get("Pj",
                                                                                            (0.03, -0.09)))
    return {"points": P, "vectors": vec, "arrows": arrows, "conditions": joint_conditions(joint)}
