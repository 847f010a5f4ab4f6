"""The errors mbdlib raises.

Every error is a ``ValueError`` (so ``except ValueError`` keeps working) and
its message names the argument, body or joint at fault and says what to do.
"""


class MbdError(ValueError):
    """Base class of all mbdlib errors."""


class ShapeError(MbdError):
    """An argument has the wrong shape or type (e.g. a 2-vector where a 3-vector is needed)."""


class RotationError(MbdError):
    """A matrix is not a rotation (not orthonormal, or det != +1), or a quaternion is zero."""


class SingularityError(MbdError):
    """The requested quantity does not exist at this configuration (e.g. gimbal lock)."""


class ModelError(MbdError):
    """A body, joint or model is physically invalid (negative mass, bad inertia, ...)."""
