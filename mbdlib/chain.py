"""Kinematic chains and trees: joints, link frames and the bodies they carry.

A :class:`Chain` is a list of :class:`Link` objects.  Link ``i`` carries a
body frame ``i`` whose origin is joint ``i``; it hangs from its parent link
(index ``parent``, ``-1`` for the fixed base, whose frame is the global frame)
through its :class:`Joint`.  Parents always come before their children, so one
pass from ``0`` to ``n - 1`` visits every link after its parent: this is the
order of the outward recursions in :mod:`mbdlib.kinematics`.

Notation of Ma, Xu & Li (1988), which the recursions follow:

* ``R`` (the source's R^i_{i-1}) turns parent-frame components into frame-i
  components.  In this library a DCM maps body components to global ones, so
  ``R = A_{p,i}.T`` where ``A_{p,i}`` is the DCM of frame i relative to its
  parent (returned by :meth:`Joint.transform`).
* ``l`` (the source's l_{i-1}) is the vector from the parent's joint to joint
  i, in parent-frame components (:meth:`Joint.transform` returns it as ``p``).
* ``k`` (the source's k_i) is the unit joint axis in frame i.
* ``d`` (the source's d_i) is the vector from joint i to the centre of mass
  C_i in frame i: the ``com`` of the link's body.

Every parameter may be a number or a sympy expression: a chain with symbolic
lengths gives symbolic kinematics.

References: Ma Xiangfeng, Xu Xiangrong, Li Degao, "A recursive algorithm of
robot dynamics based on Kane's dynamical equation", J. Beijing Univ. Iron &
Steel Technol. 10(2), 1988.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from . import _backend as bk
from ._backend import as_backend
from .bodies import RigidBody
from .errors import ModelError
from .rotations import check_rotation, dcm_from_axis_angle, rot_x, rot_y, rot_z

__all__ = ["Joint", "Link", "Chain", "JOINT_KINDS"]

#: Joint kinds the kinematics understands (one degree of freedom each).
#: ``"fixed"`` URDF joints have no coordinate: :func:`mbdlib.urdf.load_urdf` merges them into their parent.
JOINT_KINDS = ("revolute", "prismatic")

_ELEMENTARY = (rot_x, rot_y, rot_z)


def _unit_axis(axis, joint_name: str):
    """The joint axis as a unit vector; a zero axis is a modelling error."""
    k = bk.vector(axis, 3, name=f"axis of joint {joint_name!r}")
    if bk.is_symbolic(k):
        norm2 = sp.simplify(bk.dot(k, k))
        if norm2 == 0:
            raise ModelError(f"joint {joint_name!r}: the axis is zero; give a direction such as (0, 0, 1)")
        return k if sp.simplify(norm2 - 1) == 0 else k / sp.sqrt(norm2)
    norm = np.linalg.norm(k)
    if not np.isfinite(norm) or norm < 1e-12:
        raise ModelError(f"joint {joint_name!r}: the axis {tuple(k)} is zero or not finite; "
                         "give a nonzero direction such as (0, 0, 1)")
    return k / norm


class Joint:
    """A one-degree-of-freedom joint between a parent frame and a child frame.

    Parameters
    ----------
    name : str
        Joint name, used in error messages.
    kind : {"revolute", "prismatic"}
        Rotation about ``axis`` by ``q`` (rad), or sliding along it by ``q`` (m).
    axis : array_like, shape (3,)
        Joint axis in CHILD-frame components (the source's ``k_i``); normalised.
    origin : array_like, shape (3,)
        Position of the joint, i.e. of the child-frame origin, in parent-frame
        components at ``q = 0`` (the source's ``l_{i-1}``).
    rotation : array_like, shape (3, 3), optional
        DCM of the child frame relative to the parent at ``q = 0`` (default the
        identity), as a URDF joint's ``rpy`` would give.  Numeric rotations are
        checked (:func:`~mbdlib.rotations.check_rotation`); symbolic ones only for shape.

    Notes
    -----
    The child frame relative to the parent, as a function of ``q``
    (:meth:`transform`):

    * revolute:  ``A_pi = rotation @ Rot(axis, q)``,  ``p_i = origin``;
    * prismatic: ``A_pi = rotation``,  ``p_i = origin + rotation @ (axis * q)``.

    Examples
    --------
    >>> j = Joint("elbow", axis=(0, 0, 2), origin=(1, 0, 0))
    >>> j.axis
    array([0., 0., 1.])
    >>> A, p = j.transform(np.pi / 2)
    >>> np.round(A @ [1, 0, 0], 12) + 0.0
    array([0., 1., 0.])
    """

    def __init__(self, name: str, kind: str = "revolute", axis=(0, 0, 1), origin=(0, 0, 0), rotation=None):
        self.name = str(name)
        if kind not in JOINT_KINDS:
            raise ModelError(f"joint {self.name!r}: unknown kind {kind!r}; use one of {JOINT_KINDS}")
        self.kind = kind
        self.axis = _unit_axis(axis, self.name)
        self.origin = bk.vector(origin, 3, name=f"origin of joint {self.name!r}")
        if rotation is None:
            self.rotation = np.eye(3)
        elif bk.is_symbolic(rotation):
            self.rotation = bk.matrix(rotation, (3, 3), name=f"rotation of joint {self.name!r}")
        else:
            self.rotation = check_rotation(rotation, name=f"rotation of joint {self.name!r}")

    @property
    def is_symbolic(self) -> bool:
        """True if any parameter of the joint is a sympy expression."""
        return bk.is_symbolic(self.axis, self.origin, self.rotation)

    def _elementary_index(self):
        """0, 1 or 2 if the (numeric) axis is +x, +y or +z, else None."""
        try:
            return self._elementary
        except AttributeError:
            pass
        index = None
        if not bk.is_symbolic(self.axis):
            for i in range(3):
                if np.array_equal(self.axis, np.eye(3)[i]):
                    index = i
        object.__setattr__(self, "_elementary", index)  # a cache, not part of the joint's value
        return index

    def transform(self, q, symbolic: bool = False):
        """DCM and position of the child frame relative to the parent.

        Parameters
        ----------
        q : float or sympy expression
            Joint coordinate (angle in rad or displacement in m).
        symbolic : bool
            Force sympy results even if ``q`` and the joint are numeric.

        Returns
        -------
        A_pi : ndarray or sympy.Matrix, shape (3, 3)
            Child-frame components -> parent-frame components.
        p : ndarray (3,) or sympy.Matrix (3, 1)
            Child origin (joint position) in parent-frame components.

        Examples
        --------
        >>> A, p = Joint("slide", "prismatic", axis=(1, 0, 0)).transform(sp.Symbol("s"))
        >>> p.T
        Matrix([[s, 0, 0]])
        """
        sym = symbolic or bk.is_symbolic(q) or self.is_symbolic
        rotation = as_backend(self.rotation, sym)
        axis = as_backend(self.axis, sym)
        origin = as_backend(self.origin, sym)
        if self.kind == "revolute":
            e = self._elementary_index()
            rot = _ELEMENTARY[e](q) if e is not None else dcm_from_axis_angle(axis, q)
            return rotation @ as_backend(rot, sym), origin
        return rotation, origin + rotation @ (axis * q)

    def __repr__(self) -> str:
        axis = tuple(self.axis) if bk.is_symbolic(self.axis) else tuple(float(c) for c in self.axis)
        return f"Joint({self.name!r}, {self.kind!r}, axis={axis})"


@dataclass(frozen=True)
class Link:
    """A link of a chain: its joint to the parent, the body it carries, the parent index.

    ``parent`` is the index of the parent link in the chain, ``-1`` for the base.
    The body frame is the joint's child frame; ``body.com`` is the source's d_i.
    """

    name: str
    joint: Joint
    body: RigidBody
    parent: int = -1


class Chain:
    """An open kinematic chain (or tree) of links, base first.

    Parameters
    ----------
    links : iterable of Link, optional
        Links in order (each parent before its children).
    name : str
        Name used in messages and ``repr``.

    Examples
    --------
    >>> arm = Chain.planar([1.0, 0.5])
    >>> arm
    Chain('planar arm', n=2: link1 <- base, link2 <- link1)
    >>> arm.joint_names
    ['joint1', 'joint2']
    """

    def __init__(self, links=None, name: str = "chain"):
        self.name = str(name)
        self._links: list[Link] = []
        for link in links or ():
            if not isinstance(link, Link):
                raise ModelError(f"chain {self.name!r}: expected Link objects, got {type(link).__name__}")
            self.add_link(link.name, link.joint, link.body, link.parent)

    def add_link(self, name: str, joint: Joint, body: RigidBody, parent=None) -> int:
        """Append a link and return its index.

        Parameters
        ----------
        name : str
            Link name (unique in the chain).
        joint : Joint
            The joint to the parent.
        body : RigidBody
            The body the link carries (its frame is the joint's child frame).
        parent : int or str, optional
            Index or name of the parent link; ``-1`` or ``"base"`` for the
            base.  Default: the previous link (a serial chain).
        """
        name = str(name)
        if not isinstance(joint, Joint):
            raise ModelError(f"link {name!r}: joint must be a Joint, got {type(joint).__name__}")
        if not isinstance(body, RigidBody):
            raise ModelError(f"link {name!r}: body must be a RigidBody, got {type(body).__name__}")
        if name in self.link_names or name == "base":
            raise ModelError(f"chain {self.name!r}: a link named {name!r} already exists (or is reserved)")
        if joint.name in self.joint_names:
            raise ModelError(f"chain {self.name!r}: a joint named {joint.name!r} already exists")
        if parent is None:
            parent = len(self._links) - 1
        elif parent == "base":
            parent = -1
        elif isinstance(parent, str):
            if parent not in self.link_names:
                raise ModelError(f"link {name!r}: parent {parent!r} is not a link of chain {self.name!r} "
                                 f"(links so far: {self.link_names}); add the parent first")
            parent = self.link_names.index(parent)
        if not isinstance(parent, (int, np.integer)) or not -1 <= parent < len(self._links):
            raise ModelError(f"link {name!r}: parent index {parent!r} does not exist yet (chain "
                             f"{self.name!r} has {len(self._links)} links); add the parent first, "
                             "or use -1 for the base")
        self._links.append(Link(name, joint, body, int(parent)))
        return len(self._links) - 1

    # ----------------------------------------------------------------- queries
    @property
    def links(self) -> list[Link]:
        """The links, base first (a copy of the list)."""
        return list(self._links)

    @property
    def n(self) -> int:
        """Number of joints = degrees of freedom = length of ``q``."""
        return len(self._links)

    def __len__(self) -> int:
        return len(self._links)

    @property
    def link_names(self) -> list[str]:
        return [link.name for link in self._links]

    @property
    def joint_names(self) -> list[str]:
        return [link.joint.name for link in self._links]

    @property
    def parents(self) -> list[int]:
        """Parent index of each link (-1 for the base)."""
        return [link.parent for link in self._links]

    @property
    def is_symbolic(self) -> bool:
        """True if any joint or body parameter is a sympy expression."""
        return any(link.joint.is_symbolic or bk.is_symbolic(link.body.com, link.body.mass, link.body.inertia)
                   for link in self._links)

    def index(self, link) -> int:
        """Index of a link given by index or name (negative indices count from the end)."""
        if isinstance(link, str):
            if link not in self.link_names:
                raise ModelError(f"chain {self.name!r} has no link {link!r}; links: {self.link_names}")
            return self.link_names.index(link)
        if isinstance(link, (int, np.integer)) and -self.n <= link < self.n:
            return int(link) % self.n
        raise ModelError(f"link {link!r} is not an index or name of a link of chain {self.name!r} "
                         f"(n = {self.n})")

    def ancestors(self, i) -> list[int]:
        """Indices of the links between the base and link ``i`` (both excluded), base side first."""
        i = self.index(i)
        path = []
        p = self._links[i].parent
        while p != -1:
            path.append(p)
            p = self._links[p].parent
        return path[::-1]

    def __repr__(self) -> str:
        names = ["base"] + self.link_names
        links = ", ".join(f"{lk.name} <- {names[lk.parent + 1]}" for lk in self._links)
        return f"Chain({self.name!r}, n={self.n}: {links})"

    def __str__(self) -> str:
        names = ["base"] + self.link_names
        rows = [f"{self.name}: {self.n} joints"]
        for i, lk in enumerate(self._links):
            rows.append(f"  {i}: {lk.name:<12} joint {lk.joint.name!r} ({lk.joint.kind}), "
                        f"parent {names[lk.parent + 1]}, mass {lk.body.mass}")
        return "\n".join(rows)

    # ---------------------------------------------------------------- builders
    @classmethod
    def planar(cls, lengths, masses=None, inertias=None, name: str = "planar arm") -> Chain:
        """A planar serial arm: revolute joints about z, links along x, uniform rods.

        Joint 1 is at the global origin, joint i+1 at ``(L_i, 0, 0)`` in frame i.
        Link i is a uniform rod: centre of mass at ``(L_i/2, 0, 0)``, central
        moment of inertia about z ``m_i L_i^2 / 12`` unless ``inertias`` gives it.

        Parameters
        ----------
        lengths : sequence of float or sympy expressions, length n
        masses : sequence, length n, optional
            Default 1 kg each.
        inertias : sequence, length n, optional
            Central moments of inertia about z (kg m^2); default those of the rods.

        Examples
        --------
        >>> L1, L2 = sp.symbols("L1 L2", positive=True)
        >>> Chain.planar([L1, L2]).links[1].joint.origin.T
        Matrix([[L1, 0, 0]])
        """
        lengths = list(lengths)
        n = len(lengths)
        masses = [1] * n if masses is None else list(masses)
        if len(masses) != n or (inertias is not None and len(inertias) != n):
            raise ModelError(f"Chain.planar: got {n} lengths, {len(masses)} masses"
                             + ("" if inertias is None else f" and {len(inertias)} inertias")
                             + "; give one per link")
        chain = cls(name=name)
        for i, (length, m) in enumerate(zip(lengths, masses, strict=True)):
            origin = (0, 0, 0) if i == 0 else (lengths[i - 1], 0, 0)
            if inertias is None:
                body = RigidBody.rod(m, length, name=f"link{i + 1}")
            else:
                Iz = inertias[i]
                body = RigidBody(m, com=(length / 2, 0, 0), inertia=(0, Iz, Iz), name=f"link{i + 1}",
                                 allow_degenerate=True)  # a slender rod with the given I_z
            chain.add_link(f"link{i + 1}", Joint(f"joint{i + 1}", "revolute", (0, 0, 1), origin), body)
        return chain

    @classmethod
    def spatial_arm_example(cls, name: str = "spatial arm") -> Chain:
        """A 4-joint spatial arm: waist about z, shoulder and elbow about y, a sliding tip.

        Dimensions (m, kg): column (a cylinder) height 0.5, upper arm 0.4, forearm 0.3
        (uniform rods along x); the fourth joint slides along the forearm (a telescopic
        tip, a 0.2 m rod).  Used by the book as a small but fully spatial example.

        >>> Chain.spatial_arm_example().n
        4
        """
        chain = cls(name=name)
        chain.add_link("column", Joint("waist", "revolute", (0, 0, 1)),
                       RigidBody.cylinder(4.0, 0.05, 0.5, com=(0, 0, 0.25), name="column"))
        chain.add_link("upper_arm", Joint("shoulder", "revolute", (0, 1, 0), origin=(0, 0, 0.5)),
                       RigidBody.rod(2.0, 0.4, name="upper_arm"))
        chain.add_link("forearm", Joint("elbow", "revolute", (0, 1, 0), origin=(0.4, 0, 0)),
                       RigidBody.rod(1.5, 0.3, name="forearm"))
        chain.add_link("tip", Joint("slide", "prismatic", (1, 0, 0), origin=(0.3, 0, 0)),
                       RigidBody.rod(0.5, 0.2, name="tip"))
        return chain
