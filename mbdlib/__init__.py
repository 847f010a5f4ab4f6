"""mbdlib: the small multibody-dynamics library behind the course.

The modules follow the chain of ideas of the book, and imports only point
"down" the chain::

    rotations -> bodies -> chain -> kinematics -> (dynamics, constraints, ...)

Conventions (stated once, in the book's "Conventions" page):

* SI units; gravity is always an explicit argument.
* A direction cosine matrix ``A`` maps body components to global ones,
  ``r_p = r_i + A @ s_p``.
* Euler sequences are named as in ``scipy.spatial.transform.Rotation``:
  uppercase intrinsic, lowercase extrinsic.
* Quaternions (Euler parameters) are scalar-first ``(e0, e1, e2, e3)``.
"""

from .errors import MbdError, ModelError, RotationError, ShapeError, SingularityError

__all__ = ["MbdError", "ModelError", "RotationError", "ShapeError", "SingularityError"]
__version__ = "0.1.0"
