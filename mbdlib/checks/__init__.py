"""The modelling checklist of the course as a report.

Document 001 (§5) of the course ends with a checklist of seven steps: (1) inertial frame, gravity
direction, one unit system; (2) mass, centre of mass and inertia of each body, with the point and
frame of each tensor; (3) joint types and connectivity; (4) ``DOF = coordinates − independent
constraints``; (5) assemble M, Q, Φ_q and check symmetry and sparsity; (6) step size and
stabilization, static equilibrium and small displacements first; (7) watch constraint violation,
energy and solver effort.  :func:`check_model` runs the checks of steps 1-6 (and 7 when a
simulation result is given) on a model and returns a :class:`CheckReport`: one :class:`CheckItem`
per check, each with a status, what was measured, and, when something looks wrong, a fix that names
the body or joint.  :func:`check_simulation` runs step 7 alone.

Supported models: :class:`mbdlib.PlanarModel`, :class:`mbdlib.RelativeModel`, :class:`mbdlib.SpatialModel`,
:class:`mbdlib.ChainModel`, :class:`mbdlib.Chain` (then ``gravity`` must be given: a chain does not store
it), :class:`mbdlib.mechanisms.FourBarArm`, and any :class:`mbdlib.ConstrainedSystem` (``model.system()``).

>>> from mbdlib import PlanarModel
>>> m = PlanarModel(gravity=(0.0, -9.81))
>>> rod = m.add_body("rod", mass=1.0, inertia=1 / 3, position=(0.5, 0.0))   # m L²/3: about the end!
>>> pin = m.add_revolute(m.ground, rod, point_i=(0.0, 0.0), point_j=(-0.5, 0.0), name="pin")
>>> report = check_model(m, expected_dof=1, small_displacement=False)
>>> report.ok, [item.key for item in report.warnings]
(True, ['inertia_plausibility'])
>>> print(report["inertia_plausibility"].fix)
body 'rod': give the moment of inertia about the centre of mass (a uniform rod: m L²/12), not about a joint
>>> print(str(report).splitlines()[-1])
7 passed, 1 warning, 0 failed
"""

from __future__ import annotations

import html
import textwrap
from dataclasses import dataclass, field

from .. import _validate
from ..errors import ModelError
from . import items, motion
from .views import ModelView, view_of

__all__ = ["CheckItem", "CheckReport", "check_model", "check_simulation", "STATUSES"]

STATUSES = ("pass", "warn", "fail", "info")


@dataclass(frozen=True)
class CheckItem:
    """One check of the list.

    Attributes
    ----------
    key : str
        Stable identifier (``"units"``, ``"gravity"``, ``"mass"``, ... see the module notes).
    step : int
        The step of the source's checklist, 1 ... 7 (document 001, §5).
    title : str
    status : {"pass", "warn", "fail", "info"}
    detail : str
        What was measured, with numbers (3 significant digits).
    fix : str
        "" for pass/info; otherwise an imperative sentence naming the body/joint and the remedy.
    values : dict
        The measured numbers (unrounded), for tests and exercise checks; not shown in the table.
    """

    key: str
    step: int
    title: str
    status: str
    detail: str
    fix: str = ""
    values: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ModelError(f"CheckItem {self.key!r}: status must be one of {STATUSES}, got {self.status!r}")


class CheckReport:
    """The checklist of one model: items in the order of the source's steps.

    ``report[key]`` gives one :class:`CheckItem`; ``str(report)`` a fixed-width table with a
    ``-> fix:`` line under each warning or failure and a one-line verdict; notebooks show an HTML
    table (``_repr_html_``).  Everything is deterministic (no timings, no addresses).
    """

    COLUMNS = ("step", "check", "status", "detail")
    WIDTH = 64                      # width of the detail column of the text table

    def __init__(self, items_, name: str = "model"):
        self.items = list(items_)
        self.name = str(name)

    def __getitem__(self, key: str) -> CheckItem:
        for item in self.items:
            if item.key == key:
                return item
        raise KeyError(f"no check {key!r} in this report; the checks are {self.keys()}")

    def __contains__(self, key) -> bool:
        return any(item.key == key for item in self.items)

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def keys(self) -> list[str]:
        return [item.key for item in self.items]

    @property
    def failed(self) -> list[CheckItem]:
        return [item for item in self.items if item.status == "fail"]

    @property
    def warnings(self) -> list[CheckItem]:
        return [item for item in self.items if item.status == "warn"]

    @property
    def ok(self) -> bool:
        """True when no check failed (warnings allowed)."""
        return not self.failed

    def verdict(self) -> str:
        n_pass = sum(item.status == "pass" for item in self.items)
        n_warn, n_fail = len(self.warnings), len(self.failed)
        return f"{n_pass} passed, {_validate.plural(n_warn, 'warning')}, {n_fail} failed"

    def to_rows(self) -> list[dict]:
        """One dict per item: step, key, title, status, detail, fix."""
        return [dict(step=i.step, key=i.key, title=i.title, status=i.status, detail=i.detail, fix=i.fix)
                for i in self.items]

    def raise_if_failed(self) -> None:
        """Raise :class:`ModelError` listing every failed check and its fix."""
        if self.failed:
            lines = [f"step {i.step} {i.key}: {i.detail} -> {i.fix}" for i in self.failed]
            raise ModelError(f"model {self.name!r} failed {len(lines)} check(s):\n" + "\n".join(lines))

    def __str__(self) -> str:
        w_key = max([len("check")] + [len(i.key) for i in self.items])
        head = f"{'step':<4}  {'check':<{w_key}}  {'status':<6}  detail"
        indent = " " * (4 + 2 + w_key + 2 + 6 + 2)
        lines = [f"checklist of {self.name}", head, "-" * (len(indent) + self.WIDTH)]
        for i in self.items:
            detail = textwrap.wrap(i.detail, self.WIDTH) or [""]
            lines.append(f"{i.step:<4}  {i.key:<{w_key}}  {i.status:<6}  {detail[0]}")
            lines.extend(indent + d for d in detail[1:])
            if i.fix:
                fix = textwrap.wrap("-> fix: " + i.fix, self.WIDTH)
                lines.extend(indent + d for d in fix)
        lines.append(self.verdict())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"CheckReport({self.name!r}: {self.verdict()})"

    def _repr_html_(self) -> str:
        rows = []
        for i in self.items:
            fix = f"<br><span class='mbd-fix'>&rarr; fix: {_html_text(i.fix)}</span>" if i.fix else ""
            rows.append(f"<tr class='mbd-{i.status}'><td>{i.step}</td><td>{html.escape(i.key)}</td>"
                        f"<td class='mbd-status mbd-{i.status}'>{i.status}</td>"
                        f"<td>{_html_text(i.detail)}{fix}</td></tr>")
        style = ("<style>.mbd-checks td{text-align:left;vertical-align:top}"
                 ".mbd-status.mbd-pass{color:#1a7f37}.mbd-status.mbd-warn{color:#9a6700;font-weight:bold}"
                 ".mbd-status.mbd-fail{color:#cf222e;font-weight:bold}.mbd-status.mbd-info{color:#57606a}"
                 ".mbd-fix{font-style:italic}" + _ACCENT_CSS + "</style>")
        head = "".join(f"<th>{c}</th>" for c in self.COLUMNS)
        return (f"{style}<table class='mbd-checks'><caption>checklist of {html.escape(self.name)}</caption>"
                f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
                f"<tfoot><tr><td colspan='4'>{html.escape(self.verdict())}</td></tr></tfoot></table>")


# A dot or two dots over a letter (Φ̇, q̈) as a positioned accent, not a combining character: a browser's
# text font places a combining dot at lower-case height, inside a capital such as Φ, where it disappears.
_ACCENTS = {"\u0307": "mbd-dot", "\u0308": "mbd-ddot"}
_TALL = "bdfhklλδθ"  # lower-case letters as tall as a capital: the accent goes higher, as over a capital
_ACCENT_CSS = (".mbd-acc{position:relative;display:inline-block}"
               ".mbd-acc::after{position:absolute;left:0;right:0;text-align:center;top:-0.12em}"
               ".mbd-acc.mbd-tall::after{top:-0.3em}"
               '.mbd-dot::after{content:"\\02D9"}.mbd-ddot::after{content:"\\00A8"}')


def _html_text(text: str) -> str:
    """``text`` escaped for HTML, each letter with a combining dot (U+0307) or diaeresis (U+0308) as a span
    whose accent is drawn above it by :data:`_ACCENT_CSS` (the title attribute keeps the character)."""
    out, k = [], 0
    while k < len(text):
        ch = text[k]
        mark = text[k + 1] if k + 1 < len(text) else ""
        if mark in _ACCENTS and not ch.isspace():
            tall = " mbd-tall" if ch.isupper() or ch in _TALL else ""
            out.append(f"<span class='mbd-acc {_ACCENTS[mark]}{tall}' title='{html.escape(ch + mark)}'>"
                       f"{html.escape(ch)}</span>")
            k += 2
        else:
            out.append(html.escape(ch))
            k += 1
    return "".join(out)


def _items(raw) -> list[CheckItem]:
    return [CheckItem(**r) for r in raw]


def check_model(model, q=None, *, gravity=None, units: str = "SI", expected_dof=None, name=None, alpha=None,
                beta=None, step=None, result=None, small_displacement: bool = True) -> CheckReport:
    """Run the modelling checklist (document 001, §5) on a model.

    Parameters
    ----------
    model : PlanarModel, RelativeModel, SpatialModel, ChainModel, Chain, FourBarArm or a ConstrainedSystem
    q : array_like, shape (n,), optional
        Configuration to check (default: the assembled one; zeros for a chain; (0, π/2) for the
        four-bar arm).
    gravity : array_like, shape (3,) for a Chain, optional
        Required for a chain (not given: the "gravity" check fails); for the other models the
        model's own gravity is used (a different ``gravity`` here gives a warning).
    units : str
        The unit system the model is written in, as stated by the modeller.
    expected_dof : int, optional
        The degrees of freedom the modeller expects (e.g. by Grübler's count by hand).
    name : str, optional
        Name shown in the report.
    alpha, beta : float, optional
        Baumgarte gains to judge (step 6 "stabilization"); taken from ``result`` if it is a
        Baumgarte run.
    step : float, optional
        Integration step to judge them against [s].
    result : SimulationResult, optional
        A simulation of the model: adds the step-7 checks.
    small_displacement : bool
        Run a short (~0.5 s; 0.2 s for a chain) projection simulation from a small perturbation.

    Returns
    -------
    CheckReport
        Items (keys): step 1 ``units``, ``gravity``; step 2 ``mass``, ``inertia``,
        ``inertia_plausibility``; step 3 ``joints``, ``connectivity``; step 4 ``dof``, ``redundant``;
        step 5 ``mass_matrix``, ``sparsity``; step 6 ``statics``, ``small_displacement`` (if asked),
        ``stabilization`` (if gains are known); step 7 ``violation``, ``energy``, ``solver_effort``
        (if ``result``).

    Raises
    ------
    ModelError
        Unsupported model type, or symbolic data.
    ShapeError
        ``q`` or ``gravity`` of the wrong shape.
    """
    view = view_of(model, q, gravity, name)
    if result is not None and alpha is None and beta is None and result.scheme.name == "baumgarte":
        alpha, beta = result.scheme.alpha, result.scheme.beta
    raw = items.step1(view, units) + items.step2(view) + items.step3(view) + items.step4(view, expected_dof)
    raw += items.step5(view) + motion.step6(view, small_displacement, alpha, beta, step, result)
    if result is not None:
        raw += motion.step7(view, result, alpha, beta)
    return CheckReport(_items(raw), view.name)


def check_simulation(model, result, *, alpha=None, beta=None, name=None) -> CheckReport:
    """Step 7 of the checklist alone: constraint violation, energy, solver effort of ``result``.

    Parameters
    ----------
    model : as for :func:`check_model` (a Chain needs no gravity here: the result has the energy)
    result : mbdlib.SimulationResult
    alpha, beta : float, optional
        Baumgarte gains (default: those stored in the result).

    Returns
    -------
    CheckReport
        Items ``violation``, ``energy``, ``solver_effort``.
    """
    view: ModelView = view_of(model, None, None, name, need_gravity=False)
    if alpha is None and beta is None and getattr(getattr(result, "scheme", None), "name", "") == "baumgarte":
        alpha, beta = result.scheme.alpha, result.scheme.beta
    return CheckReport(_items(motion.step7(view, result, alpha, beta)), view.name)
