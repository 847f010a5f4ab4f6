"""Load a robot description (URDF) into a :class:`~mbdlib.chain.Chain`.

URDF (the Unified Robot Description Format of ROS) describes a robot as a tree of
``<link>`` elements (bodies) joined by ``<joint>`` elements.  The mapping to mbdlib is
direct (URDF specification, https://wiki.ros.org/urdf/XML, elements ``joint``, ``link``,
``inertial``):

* a ``revolute`` or ``continuous`` joint becomes a revolute :class:`~mbdlib.chain.Joint`,
  a ``prismatic`` joint a prismatic one (joint limits, dynamics and ``mimic`` are not
  used: every moving joint gets its own coordinate);
* the joint ``<origin xyz rpy>`` places the child frame in the parent frame at ``q = 0``:
  ``xyz`` is the Joint's ``origin``; ``rpy`` (roll, pitch, yaw) are fixed-axis rotations
  about x, then y, then z, so the Joint's ``rotation`` is ``R = Rz(yaw) Ry(pitch) Rx(roll)``
  (scipy's extrinsic ``"xyz"`` sequence);
* the joint ``<axis xyz>`` is in the child (joint) frame, default ``(1, 0, 0)``;
* the link ``<inertial>`` gives the mass, and the inertia tensor about the centre of mass
  in the *inertial frame* (``<origin>`` of the inertial element).  With ``c`` and ``R_c``
  that origin's position and rotation, the body frame data are ``com = c`` and
  ``I = R_c I_inertial R_c^T``;
* a ``fixed`` joint adds no coordinate: its child link is merged into the parent (masses
  added, centres of mass combined, inertias moved to the combined centre with the
  parallel-axis theorem), and the child's own children hang from the parent through the
  composed transform;
* the root link (the one that is nobody's child) is the fixed base, the global frame of
  the chain.  **Its inertial data, and that of links fixed to it, are ignored**: the base
  does not move.

A link without ``<inertial>`` is massless.  That is fine for an intermediate link (a
virtual link between two joints) or a frame fixed to another link, but a moving joint
that carries no mass at all would make the mass matrix singular, so it is an error.

Everything that is not understood raises :class:`~mbdlib.errors.ModelError` naming the
element: a closed loop (a link with two parents), ``floating``/``planar`` or unknown
joint types, missing inertial fields, an unknown parent or child link, malformed
numbers, more than one root.  Geometry (``visual``, ``collision``), ``transmission`` and
``gazebo`` elements are ignored; xacro macros must be expanded first.

The course's own robot files are in ``mbdlib/data``; :func:`data_path` finds them.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import numpy as np

from .bodies import RigidBody, parallel_axis, rotate_inertia
from .chain import Chain, Joint
from .errors import ModelError
from .rotations import dcm_from_euler

__all__ = ["load_urdf", "data_path", "course_robots", "rpy_to_dcm"]

_MOVING = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic"}
_UNSUPPORTED = ("floating", "planar")
_INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


# --------------------------------------------------------------------------- course files
def course_robots() -> list[str]:
    """Names of the robot files shipped with mbdlib.

    >>> "ur5.urdf" in course_robots()
    True
    """
    folder = resources.files("mbdlib") / "data"
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".urdf"))


def data_path(name: str) -> Path:
    """Path of a robot file shipped with mbdlib (``"ur5"`` or ``"ur5.urdf"``).

    >>> data_path("ur5").name
    'ur5.urdf'
    """
    fname = name if str(name).endswith(".urdf") else f"{name}.urdf"
    path = Path(str(resources.files("mbdlib") / "data" / fname))
    if not path.is_file():
        raise ModelError(f"no robot file {fname!r} ships with mbdlib; available: {course_robots()}")
    return path


# --------------------------------------------------------------------------- small parsers
def rpy_to_dcm(rpy):
    """DCM of URDF roll-pitch-yaw angles: ``R = Rz(yaw) Ry(pitch) Rx(roll)``.

    Fixed-axis (extrinsic) rotations about x, y, z, i.e. scipy's ``"xyz"`` sequence.

    Parameters
    ----------
    rpy : array_like, shape (3,)

    Returns
    -------
    ndarray, shape (3, 3)

    >>> from mbdlib.rotations import rot_x, rot_y, rot_z
    >>> np.allclose(rpy_to_dcm([0.1, 0.2, 0.3]), rot_z(0.3) @ rot_y(0.2) @ rot_x(0.1))
    True
    """
    return dcm_from_euler("xyz", rpy)


def _numbers(text, n: int, what: str) -> np.ndarray:
    """``n`` finite numbers from a whitespace-separated attribute."""
    try:
        values = np.array([float(t) for t in str(text).split()])
    except ValueError:
        values = np.array([])
    if values.shape != (n,) or not np.all(np.isfinite(values)):
        raise ModelError(f"{what}={text!r} is not {n} finite numbers separated by spaces")
    return values


def _origin(elem, what: str):
    """``(xyz, R)`` of an ``<origin>`` child of ``elem`` (identity if absent)."""
    o = elem.find("origin")
    if o is None:
        return np.zeros(3), np.eye(3)
    xyz = _numbers(o.get("xyz", "0 0 0"), 3, f"{what}: <origin> xyz")
    rpy = _numbers(o.get("rpy", "0 0 0"), 3, f"{what}: <origin> rpy")
    return xyz, rpy_to_dcm(rpy)


def _inertial(link) -> RigidBody:
    """The link's body in its own frame; massless if it has no ``<inertial>``."""
    name = link.get("name")
    inertial = link.find("inertial")
    if inertial is None:
        return RigidBody(0.0, name=name)
    what = f"link {name!r}: <inertial>"
    mass_el = inertial.find("mass")
    if mass_el is None or mass_el.get("value") is None:
        raise ModelError(f"{what} has no <mass value=...>; give the mass in kg (or drop <inertial> "
                         "for a massless link)")
    mass = _numbers(mass_el.get("value"), 1, f"{what} <mass> value")[0]
    inertia_el = inertial.find("inertia")
    missing = [] if inertia_el is None else [k for k in _INERTIA_KEYS if inertia_el.get(k) is None]
    if inertia_el is None or missing:
        raise ModelError(f"{what} lacks <inertia> attribute(s) {missing or list(_INERTIA_KEYS)}; "
                         "give ixx ixy ixz iyy iyz izz (kg m^2, about the centre of mass)")
    ixx, ixy, ixz, iyy, iyz, izz = (_numbers(inertia_el.get(k), 1, f"{what} <inertia> {k}")[0]
                                    for k in _INERTIA_KEYS)
    # URDF gives the tensor entries themselves (ixy is the matrix entry, -∫xy dm)
    I_inertial = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    c, R_c = _origin(inertial, what)
    try:  # central inertia in the link frame: I = R_c I_inertial R_c^T
        return RigidBody(mass, com=c, inertia=rotate_inertia(I_inertial, R_c), name=name,
                         allow_degenerate=True)  # point masses are common in URDF files
    except ModelError as exc:
        raise ModelError(f"{what}: {exc}") from None


def _combine(parts, name: str) -> RigidBody:
    """One body from ``(mass, com, central inertia)`` parts in a common frame.

    ``m = Σ m_k``, ``c = Σ m_k c_k / m``, ``I = Σ [I_k + m_k (|r_k|² 1 - r_k r_kᵀ)]`` with
    ``r_k = c_k - c`` (parallel-axis theorem, Nikravesh 1988, ch. 6).
    """
    m = sum(p[0] for p in parts)
    if m == 0:
        return RigidBody(0.0, name=name)
    c = sum(p[0] * p[1] for p in parts) / m
    I = sum(parallel_axis(I_k, m_k, c_k - c) for m_k, c_k, I_k in parts)
    return RigidBody(m, com=c, inertia=0.5 * (I + I.T), name=name, allow_degenerate=True)


# --------------------------------------------------------------------------- the loader
def _read(path_or_xml):
    """The ``<robot>`` element of a file path or an XML string."""
    text = None
    if isinstance(path_or_xml, bytes):
        path_or_xml = path_or_xml.decode()
    if isinstance(path_or_xml, str) and path_or_xml.lstrip().startswith("<"):
        text, source = path_or_xml, "URDF string"
    elif isinstance(path_or_xml, (str, os.PathLike)):
        path = Path(path_or_xml)
        if not path.is_file():
            raise ModelError(f"URDF file {str(path)!r} does not exist; give a path or an XML string "
                             "(course files: mbdlib.urdf.data_path('ur5'))")
        text, source = path.read_text(encoding="utf-8"), str(path)
    else:
        raise ModelError(f"load_urdf needs a file path or an XML string, got {type(path_or_xml).__name__}")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ModelError(f"{source} is not well-formed XML: {exc}") from None
    if root.tag != "robot":
        raise ModelError(f"{source}: the top element is <{root.tag}>, expected <robot>")
    if any("xacro" in el.tag for el in root.iter()):
        raise ModelError(f"{source} contains xacro macros; expand them first (xacro file.xacro > file.urdf)")
    return root


def _parse_joint(el, links: dict):
    """Name, type, parent, child, origin (xyz, R) and axis of a ``<joint>``."""
    name = el.get("name")
    if not name:
        raise ModelError("a <joint> has no name attribute; every joint needs a unique name")
    kind = el.get("type")
    if kind in _UNSUPPORTED:
        raise ModelError(f"joint {name!r}: type {kind!r} is not supported (only one-degree-of-freedom "
                         "joints: revolute, continuous, prismatic, and fixed)")
    if kind not in _MOVING and kind != "fixed":
        raise ModelError(f"joint {name!r}: unknown type {kind!r}; URDF types understood here are "
                         "revolute, continuous, prismatic and fixed")
    ends = {}
    for tag in ("parent", "child"):
        e = el.find(tag)
        link = None if e is None else e.get("link")
        if link is None:
            raise ModelError(f"joint {name!r} has no <{tag} link=...>")
        if link not in links:
            raise ModelError(f"joint {name!r}: {tag} link {link!r} is not a <link> of the robot "
                             f"(links: {sorted(links)})")
        ends[tag] = link
    xyz, R = _origin(el, f"joint {name!r}")
    axis_el = el.find("axis")
    axis = np.array([1.0, 0.0, 0.0]) if axis_el is None else _numbers(
        axis_el.get("xyz", "1 0 0"), 3, f"joint {name!r}: <axis> xyz")
    return dict(name=name, kind=kind, parent=ends["parent"], child=ends["child"], xyz=xyz, R=R, axis=axis)


def _topology(links: dict, joints: list):
    """The root link and, per link, its joints to children (document order); checks the tree."""
    parent_joint = {}
    for j in joints:
        if j["child"] in parent_joint:
            other = parent_joint[j["child"]]["name"]
            raise ModelError(f"link {j['child']!r} is the child of two joints ({other!r} and {j['name']!r}): "
                             "a closed loop, which URDF (a tree) cannot describe; cut the loop or "
                             "model it with constraints")
        if j["child"] == j["parent"]:
            raise ModelError(f"joint {j['name']!r} joins link {j['child']!r} to itself")
        parent_joint[j["child"]] = j
    roots = [name for name in links if name not in parent_joint]
    if len(roots) != 1:
        if not roots:
            raise ModelError("every link is the child of a joint: the joints form a closed loop "
                             "and there is no root (base) link")
        raise ModelError(f"the robot has {len(roots)} root links {roots} (links that are no joint's child); "
                         "a URDF needs exactly one root: connect the others with joints")
    children = {name: [] for name in links}
    for j in joints:
        children[j["parent"]].append(j)
    return roots[0], children


def load_urdf(path_or_xml, name: str | None = None) -> Chain:
    """Build a :class:`~mbdlib.chain.Chain` from a URDF file or string.

    Parameters
    ----------
    path_or_xml : str or os.PathLike
        A file path, or the XML text itself (a string starting with ``<``).
    name : str, optional
        Chain name (default: the ``<robot name=...>``).

    Returns
    -------
    Chain
        One link per moving joint, named after the joint's child link, in depth-first
        order from the root (parents before children; document order among siblings).
        Links behind fixed joints are merged into their parent (see the module notes).

    Examples
    --------
    >>> chain = load_urdf(data_path("double_pendulum"))
    >>> chain.joint_names, chain.link_names
    (['shoulder', 'elbow'], ['upper', 'lower'])
    >>> xml = '''<robot name="slider"><link name="rail"/>
    ...   <link name="cart"><inertial><mass value="2"/>
    ...     <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
    ...   <joint name="slide" type="prismatic"><parent link="rail"/><child link="cart"/>
    ...     <axis xyz="0 0 1"/></joint></robot>'''
    >>> load_urdf(xml)
    Chain('slider', n=1: cart <- base)
    """
    robot = _read(path_or_xml)
    links = {}
    for el in robot.findall("link"):
        lname = el.get("name")
        if not lname:
            raise ModelError("a <link> has no name attribute; every link needs a unique name")
        if lname in links:
            raise ModelError(f"link {lname!r} is defined twice; link names must be unique")
        links[lname] = el
    if not links:
        raise ModelError("the robot has no <link> elements")
    joints = [_parse_joint(el, links) for el in robot.findall("joint")]
    names = [j["name"] for j in joints]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ModelError(f"joint name(s) {dup} are used twice; joint names must be unique")
    root, children = _topology(links, joints)

    # Depth-first walk.  Each URDF link is attached to a "host": the chain link it moves
    # with (-1: the base) and its frame's pose in the host frame, (p, R).
    host = {root: (-1, np.zeros(3), np.eye(3))}
    parts = {-1: []}            # (mass, com, central inertia) in the host frame
    specs = []                  # (link name, Joint, parent index) of each moving joint
    reached = [root]
    stack = list(reversed(children[root]))
    while stack:
        j = stack.pop()
        h, p, R = host[j["parent"]]
        origin, rotation = p + R @ j["xyz"], R @ j["R"]   # child frame in the host frame
        body = _inertial(links[j["child"]])
        if j["kind"] == "fixed":
            host[j["child"]] = (h, origin, rotation)
            parts[h].append((body.mass, origin + rotation @ body.com, rotate_inertia(body.inertia, rotation)))
        else:
            idx = len(specs)
            joint = Joint(j["name"], _MOVING[j["kind"]], axis=j["axis"], origin=origin, rotation=rotation)
            specs.append((j["child"], joint, h))
            host[j["child"]] = (idx, np.zeros(3), np.eye(3))
            parts[idx] = [(body.mass, np.asarray(body.com), np.asarray(body.inertia))]
        reached.append(j["child"])
        stack.extend(reversed(children[j["child"]]))
    if len(reached) != len(links):  # only possible with a loop detached from the root
        lost = sorted(set(links) - set(reached))
        raise ModelError(f"links {lost} cannot be reached from the root {root!r}: their joints form a "
                         "closed loop")

    bodies = [_combine(parts[i], specs[i][0]) for i in range(len(specs))]
    _check_mass(specs, bodies)
    chain = Chain(name=name or robot.get("name") or "urdf")
    for (lname, joint, parent), body in zip(specs, bodies, strict=True):
        chain.add_link(lname, joint, body, parent)
    return chain


def _check_mass(specs, bodies) -> None:
    """Every moving joint must carry some mass (else the mass matrix is singular)."""
    carried = [b.mass for b in bodies]
    for i in reversed(range(len(specs))):   # children come after parents
        if specs[i][2] >= 0:
            carried[specs[i][2]] += carried[i]
    for i, m in enumerate(carried):
        if m == 0:
            lname, joint, _ = specs[i]
            raise ModelError(f"joint {joint.name!r} moves only massless links (link {lname!r} and what "
                             "hangs from it have no <inertial>), so the mass matrix would be singular; "
                             "give a link an <inertial> or make the joint fixed")
