"""Figures for the book: one style, body frames and boxes in 3-D, planar arms with velocity arrows.

This module sits on top of the library (like :mod:`mbdlib.widgets`): it
draws what the core computes and nothing in the core imports it.  Every
function draws into an axes you pass in and returns the artists it created,
so a chapter can add to the figure and a test can count what was drawn.

Conventions are the book's: a direction cosine matrix ``A`` maps body
components to global ones, so its columns are the body axes in global
components and a body point sits at ``r = origin + A @ s``.
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
from cycler import cycler
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

from . import _validate
from ._backend import cross, is_symbolic
from .errors import ShapeError
from .rotations import check_rotation

__all__ = [
    "COLUMN_WIDTH",
    "COURSE_COLORS",
    "FRAME_COLORS",
    "use_course_style",
    "set_axes_equal",
    "draw_frame",
    "draw_box",
    "draw_arrows",
    "draw_planar_chain",
    "draw_planar_model",
]

#: Width of the book's text column in inches (690 px at 100 dpi): figures drawn this wide are shown
#: at 1:1 scale, so their fonts have the same size in every chapter.
COLUMN_WIDTH = 6.9

#: Okabe–Ito colour-blind-safe palette (blue, vermillion, green, orange, purple, sky, yellow, black).
COURSE_COLORS = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")

#: Colours of the x, y, z axes of a body frame (the usual red, green, blue order, colour-blind safe).
FRAME_COLORS = ("#D55E00", "#009E73", "#0072B2")


def use_course_style() -> None:
    """Set the book's figure style (size, resolution, grid, colours, fonts) for the session.

    Every chapter calls it once at the top, so all figures of the book look alike.  The default
    figure is :data:`COLUMN_WIDTH` wide: the page shows it at 1:1 scale, fonts at their set sizes.

    Examples
    --------
    >>> import matplotlib as mpl
    >>> use_course_style()
    >>> tuple(mpl.rcParams["figure.figsize"]), mpl.rcParams["axes.grid"]
    ((6.9, 4.3), True)
    """
    mpl.rcParams.update({
        "figure.figsize": (COLUMN_WIDTH, 4.3),
        "figure.dpi": 100,
        "savefig.dpi": 100,
        "savefig.pad_inches": 0.04,  # the notebook crops to the drawing plus this pad: stays <= 690 px
        "figure.constrained_layout.use": True,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "grid.linestyle": "-",
        "axes.prop_cycle": cycler(color=list(COURSE_COLORS)),
        "axes.spines.top": False,
        "axes.spines.right": False,
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.labelsize": 10,
        "legend.fontsize": 9,
        "legend.frameon": False,
        "xtick.labelsize": 9,
        "ytick.labelsize": 9,
        "lines.linewidth": 1.8,
        "image.cmap": "viridis",
    })


def _require_3d(ax, func: str) -> None:
    if getattr(ax, "name", None) != "3d":
        raise TypeError(f"{func} needs a 3-D axes: create it with fig.add_subplot(projection='3d')")


def set_axes_equal(ax, zoom: float = 1.0) -> None:
    """Give a 3-D axes equal scales on x, y and z, so that a cube looks like a cube.

    The current data limits are kept, widened about their centres to a common range.

    Parameters
    ----------
    ax : mpl_toolkits.mplot3d.axes3d.Axes3D
    zoom : float
        Magnification of the box in its panel (> 0; matplotlib's ``set_box_aspect`` zoom).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> ax = plt.figure().add_subplot(projection="3d")
    >>> _ = ax.plot([0, 2], [0, 1], [0, 0.5])
    >>> set_axes_equal(ax)
    >>> spans = [np.ptp(lim) for lim in (ax.get_xlim3d(), ax.get_ylim3d(), ax.get_zlim3d())]
    >>> bool(np.allclose(spans, spans[0]) and spans[0] >= 2.0)
    True
    >>> plt.close("all")
    """
    _require_3d(ax, "set_axes_equal")
    if not np.isfinite(zoom) or zoom <= 0:
        raise ValueError(f"set_axes_equal: zoom must be a positive number, got {zoom!r}")
    limits = np.array([ax.get_xlim3d(), ax.get_ylim3d(), ax.get_zlim3d()])
    centres = limits.mean(axis=1)
    half = np.max(np.abs(limits[:, 1] - limits[:, 0])) / 2
    half = half if half > 0 else 1.0
    ax.set_xlim3d(centres[0] - half, centres[0] + half)
    ax.set_ylim3d(centres[1] - half, centres[1] + half)
    ax.set_zlim3d(centres[2] - half, centres[2] + half)
    ax.set_box_aspect((1, 1, 1), zoom=zoom)


def draw_frame(ax, A=None, origin=(0.0, 0.0, 0.0), length: float = 1.0, labels=("x", "y", "z"),
               colors=FRAME_COLORS, linewidth: float = 2.0, linestyle: str = "-", alpha: float = 1.0):
    """Draw the triad of a body frame: its three axes as arrows from ``origin``.

    Axis ``k`` is drawn along column ``k`` of ``A`` (the body axis in global components).

    Parameters
    ----------
    ax : Axes3D
        A 3-D axes.
    A : (3, 3) array_like, optional
        Direction cosine matrix of the frame (body -> global); identity if omitted.  Checked
        with :func:`mbdlib.rotations.check_rotation`.
    origin : (3,) array_like
        Origin of the frame in global components.
    length : float
        Length of each arrow (> 0).
    labels : sequence of 3 str or None
        Text placed beyond each arrow tip (e.g. ``("x'", "y'", "z'")``); None for no labels.
    colors : sequence of 3 colours
        Colours of the x, y and z arrows.
    linewidth, linestyle, alpha
        Line properties of the arrows.

    Returns
    -------
    dict
        ``{"axes": [3 arrow collections], "labels": [3 Text or none]}``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> ax = plt.figure().add_subplot(projection="3d")
    >>> artists = draw_frame(ax, np.eye(3), labels=("X", "Y", "Z"))
    >>> len(artists["axes"]), [t.get_text() for t in artists["labels"]]
    (3, ['X', 'Y', 'Z'])
    >>> plt.close("all")
    """
    _require_3d(ax, "draw_frame")
    A = np.eye(3) if A is None else check_rotation(A, name="A")
    origin = _point(origin, 3, "origin")
    if not np.isfinite(length) or length <= 0:
        raise ValueError(f"draw_frame: length must be a positive number, got {length!r}")
    if labels is not None and len(labels) != 3:
        raise ValueError(f"draw_frame: labels must be 3 strings (or None), got {labels!r}")
    if len(colors) != 3:
        raise ValueError(f"draw_frame: colors must be 3 colours, got {colors!r}")
    arrows, texts = [], []
    for k in range(3):
        axis = A[:, k] * length  # column k of A: body axis k in global components
        arrows.append(ax.quiver(*origin, *axis, color=colors[k], linewidth=linewidth,
                                linestyle=linestyle, alpha=alpha, arrow_length_ratio=0.15))
        if labels is not None:
            texts.append(ax.text(*(origin + 1.12 * axis), labels[k], color=colors[k],
                                 ha="center", va="center", alpha=alpha))
    return {"axes": arrows, "labels": texts}


def box_vertices(A=None, origin=(0.0, 0.0, 0.0), size=(1.0, 0.6, 0.2)) -> np.ndarray:
    """Global coordinates of the 8 corners of a box of the given size centred on ``origin``.

    Corner ``k`` is ``origin + A @ (±a/2, ±b/2, ±c/2)`` with the signs of the bits of ``k``
    (bit 0 for x, bit 1 for y, bit 2 for z).

    Returns
    -------
    (8, 3) ndarray

    Examples
    --------
    >>> box_vertices(size=(2, 2, 2))[[0, 7]]
    array([[-1., -1., -1.],
           [ 1.,  1.,  1.]])
    """
    A = np.eye(3) if A is None else check_rotation(A, name="A")
    origin = _point(origin, 3, "origin")
    half = _point(size, 3, "size") / 2
    if np.any(half <= 0):
        raise ValueError(f"box size must be three positive lengths, got {tuple(2 * half)}")
    signs = np.array([[1 if k >> bit & 1 else -1 for bit in range(3)] for k in range(8)], dtype=float)
    return origin + (signs * half) @ A.T  # r = origin + A s' for each corner s'


# The six faces of a box as corner indices (see box_vertices), in the order -x, +x, -y, +y, -z, +z.
_BOX_FACES = ((0, 2, 6, 4), (1, 3, 7, 5), (0, 1, 5, 4), (2, 3, 7, 6), (0, 1, 3, 2), (4, 5, 7, 6))


def draw_box(ax, A=None, origin=(0.0, 0.0, 0.0), size=(1.0, 0.6, 0.2), color=COURSE_COLORS[0],
             nose_color=COURSE_COLORS[1], top_color=COURSE_COLORS[5], alpha: float = 0.35):
    """Draw a rigid body as a box (an "aircraft" by default: long along x, flat in z).

    The +x face (the nose) and the +z face (the top) have their own colours so that every
    orientation can be read off the picture.

    Parameters
    ----------
    ax : Axes3D
    A : (3, 3) array_like, optional
        Direction cosine matrix of the body (body -> global); identity if omitted.
    origin : (3,) array_like
        Centre of the box in global components.
    size : (3,) array_like
        Edge lengths along the body x, y and z axes (all > 0).
    color, nose_color, top_color : colours
        Side faces, +x face and +z face.
    alpha : float
        Face transparency.

    Returns
    -------
    mpl_toolkits.mplot3d.art3d.Poly3DCollection
        One collection with the six faces.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> ax = plt.figure().add_subplot(projection="3d")
    >>> len(draw_box(ax, size=(2, 1, 0.3)).get_facecolor())     # six faces
    6
    >>> plt.close("all")
    """
    _require_3d(ax, "draw_box")
    corners = box_vertices(A, origin, size)
    faces = [corners[list(f)] for f in _BOX_FACES]
    colours = [color, nose_color, color, color, color, top_color]
    poly = Poly3DCollection(faces, facecolors=colours, edgecolors="0.25", linewidths=0.6, alpha=alpha)
    ax.add_collection3d(poly)
    ax.auto_scale_xyz(corners[:, 0], corners[:, 1], corners[:, 2], had_data=ax.has_data())
    return poly


def draw_arrows(ax, tails, vectors, scale: float = 1.0, color=COURSE_COLORS[1], label: str | None = None,
                width: float = 1.6, linestyle: str = "-", min_length: float = 1e-12):
    """Draw 2-D arrows ``tail -> tail + scale * vector`` (velocities, accelerations, forces).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        A 2-D axes.
    tails : (m, 2) or (2,) array_like
        Arrow start points (extra columns, e.g. a z component, are rejected: project first).
    vectors : (m, 2) or (2,) array_like
        Arrow vectors, same shape as ``tails``.
    scale : float
        Drawing scale (e.g. seconds, for a velocity drawn as a displacement).
    color, width, linestyle
        Arrow colour, line width and line style (``"--"`` for a dashed arrow drawn over another).
    label : str, optional
        Legend entry (one entry for all the arrows).
    min_length : float
        Arrows shorter than this (after scaling) are not drawn: a zero velocity has no arrow.

    Returns
    -------
    list of matplotlib.text.Annotation
        One artist per drawn arrow.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> ax = plt.figure().add_subplot()
    >>> len(draw_arrows(ax, [[0, 0], [1, 0]], [[1, 1], [0, 0]]))   # the zero vector is skipped
    1
    >>> plt.close("all")
    """
    tails = np.atleast_2d(np.asarray(tails, dtype=float))
    vectors = np.atleast_2d(np.asarray(vectors, dtype=float))
    if tails.ndim != 2 or tails.shape[1] != 2:
        raise ShapeError(f"draw_arrows: tails must have shape (m, 2), got {tails.shape}")
    if vectors.shape != tails.shape:
        raise ShapeError(f"draw_arrows: vectors must have the shape of tails {tails.shape}, "
                         f"got {vectors.shape}")
    if not (np.all(np.isfinite(tails)) and np.all(np.isfinite(vectors))):
        raise ValueError("draw_arrows: tails and vectors must be finite numbers (got NaN or inf)")
    arrows = []
    for tail, vec in zip(tails, vectors, strict=True):
        head = tail + scale * vec
        if np.hypot(*(head - tail)) < min_length:
            continue
        arrows.append(ax.annotate("", xy=head, xytext=tail,
                                  arrowprops={"arrowstyle": "-|>", "color": color, "lw": width,
                                              "linestyle": linestyle, "shrinkA": 0, "shrinkB": 0,
                                              "mutation_scale": 12}))
        ax.update_datalim([tail, head])
    if label is not None and arrows:
        # annotations do not enter legends: a proxy line does
        ax.plot([], [], color=color, lw=width, linestyle=linestyle, marker=">", markersize=5, label=label)
    ax.autoscale_view()
    return arrows


def draw_planar_chain(ax, chain_kinematics_or_points, velocities=None, coms=None, com_velocities=None,
                      tip=None, scale: float = 1.0, color=COURSE_COLORS[0], velocity_color=COURSE_COLORS[1],
                      com_velocity_color=COURSE_COLORS[2], annotate: bool = True, equal: bool = True):
    """Draw a planar arm: links as thick lines, joints as circles, centres of mass, velocity arrows.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        A 2-D axes (the x-y plane of the arm).
    chain_kinematics_or_points : (m, 2) or (m, 3) array_like, or ChainKinematics
        Either the points of the arm in order -- base joint, the following joints, and the tip
        (global x, y; a z column must be zero) -- or a result of
        :func:`mbdlib.kinematics.forward_kinematics` for a serial planar chain, from which the
        joint positions, the tip (see ``tip``), the centres of mass and, when the result holds
        velocities, their global velocities are taken.
    velocities : (m, 2) or (m, 3) array_like, optional
        Velocity of each point (an arrow at the point, ``scale`` times the velocity).
    coms : (k, 2) or (k, 3) array_like, optional
        Centres of mass, drawn as crosses.
    com_velocities : (k, 2) or (k, 3) array_like, optional
        Velocity of each centre of mass.
    tip : (3,) array_like, optional
        Only with a ChainKinematics: the tip as a point of the last link, in its frame.
        Default ``2 d`` (twice the joint-to-centre vector: the far end of a uniform rod, as
        built by :meth:`mbdlib.chain.Chain.planar`).
    scale : float
        Arrow length per unit velocity (seconds).
    color, velocity_color, com_velocity_color : colours
    annotate : bool
        Label the joints ``O1, O2, ...`` and the centres ``C1, C2, ...``.
    equal : bool
        Use an equal aspect ratio (a right angle looks right).

    Returns
    -------
    dict
        ``"links"`` (Line2D), ``"joints"`` (Line2D of the joint markers), ``"coms"`` (Line2D or
        None), ``"velocity_arrows"`` and ``"com_velocity_arrows"`` (lists of Annotation, one per
        non-zero arrow), ``"labels"`` (list of Text).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> ax = plt.figure().add_subplot()
    >>> pts = [[0, 0], [1, 0], [1, 1]]             # base, elbow, tip
    >>> art = draw_planar_chain(ax, pts, velocities=[[0, 0], [0, 1], [-1, 1]])
    >>> len(art["velocity_arrows"])                  # the base does not move: no arrow
    2
    >>> plt.close("all")
    """
    if hasattr(chain_kinematics_or_points, "omega") and hasattr(chain_kinematics_or_points, "A"):
        points, coms_k, vel_k, com_vel_k = _from_kinematics(chain_kinematics_or_points, tip)
        coms = coms_k if coms is None else coms
        velocities = vel_k if velocities is None else velocities
        com_velocities = com_vel_k if com_velocities is None else com_velocities
    elif tip is not None:
        raise ValueError("draw_planar_chain: tip is only used with a ChainKinematics; with points, "
                         "make the tip the last point")
    else:
        points = chain_kinematics_or_points
    points = _planar(points, "points")
    if len(points) < 2:
        raise ShapeError(f"draw_planar_chain: need at least 2 points (base and tip), got {len(points)}")
    out = {"velocity_arrows": [], "com_velocity_arrows": [], "coms": None, "labels": []}
    (out["links"],) = ax.plot(points[:, 0], points[:, 1], "-", color=color, lw=5, alpha=0.75,
                              solid_capstyle="round", zorder=2)
    (out["joints"],) = ax.plot(points[:-1, 0], points[:-1, 1], "o", ms=9, mfc="white", mec="0.15",
                               mew=1.8, zorder=4, linestyle="none")
    ax.plot(points[-1, 0], points[-1, 1], "o", ms=4, color="0.15", zorder=4)  # the tip
    if annotate:
        for i, p in enumerate(points[:-1]):
            out["labels"].append(ax.annotate(f"$O_{i + 1}$", p, xytext=(-14, 6), textcoords="offset points",
                                             fontsize=9))
    if velocities is not None:
        vel = _planar(velocities, "velocities")
        if vel.shape != points.shape:
            raise ShapeError(f"draw_planar_chain: velocities must have one row per point {points.shape}, "
                             f"got {vel.shape}")
        out["velocity_arrows"] = draw_arrows(ax, points, vel, scale=scale, color=velocity_color)
    if coms is not None:
        c = _planar(coms, "coms")
        (out["coms"],) = ax.plot(c[:, 0], c[:, 1], "X", ms=7, color="0.15", zorder=5, linestyle="none")
        if annotate:
            for i, p in enumerate(c):
                out["labels"].append(ax.annotate(f"$C_{i + 1}$", p, xytext=(4, -12),
                                                 textcoords="offset points", fontsize=9))
        if com_velocities is not None:
            cv = _planar(com_velocities, "com_velocities")
            if cv.shape != c.shape:
                raise ShapeError(f"draw_planar_chain: com_velocities must have one row per centre {c.shape}, "
                                 f"got {cv.shape}")
            out["com_velocity_arrows"] = draw_arrows(ax, c, cv, scale=scale, color=com_velocity_color)
    elif com_velocities is not None:
        raise ValueError("draw_planar_chain: com_velocities given without coms")
    if equal:
        ax.set_aspect("equal", adjustable="datalim")
    ax.update_datalim(points)
    ax.autoscale_view()
    return out


def _point(x, n: int, name: str) -> np.ndarray:
    return _validate.vector(x, n, name)


def _planar(x, name: str) -> np.ndarray:
    """Rows of 2-D points; a third column is allowed only if it is zero (points of the x-y plane)."""
    try:
        a = np.atleast_2d(np.asarray(x, dtype=float))
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"draw_planar_chain: {name} must be an (m, 2) or (m, 3) array of numbers") from exc
    if a.ndim != 2 or a.shape[1] not in (2, 3):
        raise ShapeError(f"draw_planar_chain: {name} must have shape (m, 2) or (m, 3), got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"draw_planar_chain: {name} must be finite numbers (got NaN or inf)")
    if a.shape[1] == 3:
        if np.max(np.abs(a[:, 2]), initial=0.0) > 1e-9 * max(1.0, np.max(np.abs(a))):
            raise ValueError(f"draw_planar_chain: {name} has non-zero z components; the arm is not planar "
                             "in the x-y plane (draw it in 3-D instead)")
        a = a[:, :2]
    return a


def _from_kinematics(kin, tip):
    """Joint points + tip, centres and their velocities (global components) from a ChainKinematics."""
    if is_symbolic(kin.q) or any(is_symbolic(x) for x in kin.r):
        raise TypeError("draw_planar_chain: the kinematics is symbolic; substitute numbers first "
                        "(forward_kinematics with numeric q, qd)")
    n = len(kin.r)
    parents = getattr(kin.chain, "parents", list(range(-1, n - 1)))
    if list(parents) != list(range(-1, n - 1)):
        raise ValueError(f"draw_planar_chain: draws serial chains only; chain parents are {parents}")
    tip = 2 * np.asarray(kin.d[-1], dtype=float) if tip is None else _point(tip, 3, "tip")
    A_n = np.asarray(kin.A[-1], dtype=float)
    points = [*(np.asarray(r, dtype=float) for r in kin.r), kin.r[-1] + A_n @ tip]  # r_tip = r_n + A_n s
    coms = [np.asarray(kin.r_c(i), dtype=float) for i in range(n)]
    if kin.v is None:
        return np.array(points), np.array(coms), None, None
    vel = [np.asarray(kin.A[i] @ kin.v[i], dtype=float) for i in range(n)]
    vel.append(A_n @ (kin.v[-1] + cross(kin.omega[-1], tip)))  # v_tip = A_n (v_n + ω_n × s)
    com_vel = [np.asarray(kin.v_c_global(i), dtype=float) for i in range(n)]
    return np.array(points), np.array(coms), np.array(vel), np.array(com_vel)


def draw_planar_model(ax, model, q=None, color=COURSE_COLORS[0], annotate: bool = True,
                      guide_length: float = 1.0):
    """Draw a planar mechanism (:class:`mbdlib.planar.PlanarModel`) at the configuration ``q``.

    Each moving body is a bar through the points where its joints attach (a body with a single
    attachment is drawn from that point through its centre of mass and as far beyond); a body
    with a translational joint to the ground is a block. Revolute joints are circles (filled
    triangles underneath when one side is the ground), translational guides dashed lines, and
    centres of mass crosses.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    model : PlanarModel
        Anything with ``bodies`` (with ``name``, ``index``), ``joints`` (with ``bodies``,
        ``kind`` and ``point_i``/``point_j``/``axis_i`` where they apply), ``ground`` and
        ``point_position(body, point, q)``.
    q : array_like, shape (3 * n_bodies,), optional
        Coordinates ``(x, y, φ)`` of every body; default: the assembled ``model.q0``.
    color : colour of the bars
    annotate : bool
        Write each body's name at its centre.
    guide_length : float
        Length of a drawn translational guide [m].

    Returns
    -------
    dict
        ``"bars"`` (list of Line2D, one per body), ``"joints"`` (list of Line2D, one per revolute),
        ``"guides"`` (list of Line2D), ``"labels"`` (list of Text).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from mbdlib.planar import PlanarModel
    >>> m = PlanarModel(gravity=(0.0, -9.81))
    >>> rod = m.add_body("rod", mass=1.0, inertia=1 / 12, position=(0.5, 0.0))
    >>> _ = m.add_revolute(m.ground, rod, point_i=(0.0, 0.0), point_j=(-0.5, 0.0))
    >>> art = draw_planar_model(plt.figure().add_subplot(), m)
    >>> len(art["bars"]), len(art["joints"])
    (1, 1)
    >>> plt.close("all")
    """
    q = np.asarray(model.q0 if q is None else q, dtype=float)
    if q.shape != (3 * len(model.bodies),):
        raise ShapeError(f"draw_planar_model: q must have shape ({3 * len(model.bodies)},), got {q.shape}")
    ground = model.ground.name
    attach = {b.name: [] for b in model.bodies}          # global attachment points of each body
    sliders = set()
    out = {"bars": [], "joints": [], "guides": [], "labels": []}
    for joint in model.joints:
        names = list(joint.bodies)
        pts = {}
        for key, name in zip(("point_i", "point_j"), names[:2], strict=False):
            if hasattr(joint, key):
                pts[name] = model.point_position(name, getattr(joint, key), q)
        for name, p in pts.items():
            if name != ground and joint.kind in ("revolute", "distance", "rigid", "driver"):
                attach[name].append(p)
        if joint.kind == "revolute" and names[0] in pts:
            p = pts[names[0]]
            if ground in names:
                ax.plot(p[0], p[1] - 0.02 * guide_length, "^", ms=12, color="0.55", zorder=3)
            (mark,) = ax.plot(p[0], p[1], "o", ms=8, mfc="white", mec="0.15", mew=1.6, zorder=5)
            out["joints"].append(mark)
        elif joint.kind in ("translational", "point-on-line") and names[0] in pts:
            p, name_i = pts[names[0]], names[0]
            phi_i = 0.0 if name_i == ground else q[3 * model.body(name_i).index + 2]
            c, s = np.cos(phi_i), np.sin(phi_i)
            a = joint.axis_i
            u = np.array([c * a[0] - s * a[1], s * a[0] + c * a[1]])          # A_i v'_i
            ends = np.array([p - 0.5 * guide_length * u, p + 0.5 * guide_length * u])
            (guide,) = ax.plot(ends[:, 0], ends[:, 1], "--", color="0.45", lw=1.2, zorder=1)
            out["guides"].append(guide)
            if name_i == ground and len(names) > 1:
                sliders.add(names[1])
    for b in model.bodies:
        x, y, phi = q[3 * b.index: 3 * b.index + 3]
        centre = np.array([x, y])
        pts = attach[b.name]
        if b.name in sliders:
            c, s = np.cos(phi), np.sin(phi)
            corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]]) * [0.09, 0.05] * guide_length
            box = centre + corners @ np.array([[c, s], [-s, c]])
            (bar,) = ax.plot(box[:, 0], box[:, 1], "-", color=color, lw=2.0, zorder=2)
        else:
            if len(pts) == 0:
                pts = [centre]
            if len(pts) == 1:
                pts = [pts[0], 2 * centre - pts[0]]
            pts = np.array(pts)
            axis = pts[-1] - pts[0]
            order = np.argsort((pts - pts[0]) @ axis) if np.any(axis) else np.arange(len(pts))
            pts = pts[order]
            (bar,) = ax.plot(pts[:, 0], pts[:, 1], "-", color=color, lw=5, alpha=0.75,
                             solid_capstyle="round", zorder=2)
        out["bars"].append(bar)
        ax.plot(x, y, "x", ms=6, color="0.15", zorder=6)
        if annotate:
            out["labels"].append(ax.annotate(b.name, centre, xytext=(5, 6), textcoords="offset points",
                                             fontsize=8))
    ax.set_aspect("equal", adjustable="datalim")
    ax.autoscale_view()
    return out
