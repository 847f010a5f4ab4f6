"""Items of steps 1-5 of the checklist (private helper of :mod:`mbdlib.checks`).

Each step function takes a :class:`~mbdlib.checks.views.ModelView` and returns a list of dicts
with the fields of :class:`mbdlib.checks.CheckItem` (built by :func:`item`).
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validate import plural
from ..assembly import nonzero_pattern
from ..errors import ModelError
from ..linalg import nearby_rank, rank_analysis
from .views import G_EARTH, ModelView, f3, vec

#: key -> (step of document 001 §5, title), in the order of the report
ITEMS = {
    "units": (1, "one unit system"),
    "gravity": (1, "inertial frame and gravity"),
    "mass": (2, "masses"),
    "inertia": (2, "inertia tensors"),
    "inertia_plausibility": (2, "inertia plausibility"),
    "joints": (3, "joints"),
    "connectivity": (3, "connectivity"),
    "contacts": (3, "contacts"),
    "dof": (4, "degrees of freedom"),
    "redundant": (4, "redundant constraints"),
    "mass_matrix": (5, "mass matrix: symmetric, positive definite"),
    "sparsity": (5, "sparsity of M and Φ_q"),
    "statics": (6, "static start: the mechanism falls the way gravity pulls"),
    "small_displacement": (6, "small displacement: short projection simulation"),
    "stabilization": (6, "Baumgarte gains against the step and the mechanism"),
    "violation": (7, "constraint violation"),
    "energy": (7, "energy"),
    "solver_effort": (7, "solver effort"),
}


def item(key, status, detail, fix="", **values) -> dict:
    step, title = ITEMS[key]
    return dict(
        key=key,
        step=step,
        title=title,
        status=status,
        detail=detail,
        fix=fix if status in ("warn", "fail") else "",
        values=values,
    )


# ====================================================================== step 1: frame, gravity, units
_EXPECTED_G = {"SI": G_EARTH, "mm": 1000 * G_EARTH}
_UNIT_HINTS = (
    (1000.0, "millimetres (mm/s²)"),
    (32.17 / G_EARTH, "feet (ft/s²)"),
    (386.1 / G_EARTH, "inches (in/s²)"),
)


def step1(v: ModelView, units) -> list:
    units = str(units)
    out = []
    g = v.gravity
    if g is None:
        out.append(
            item(
                "units",
                "info",
                f"unit system as stated: {units}; gravity "
                "not stated, its magnitude cannot be checked against the units",
            )
        )
    else:
        mag = float(np.linalg.norm(g))
        expected = _EXPECTED_G.get(
            "mm" if "mm" in units.lower() else units.upper().split()[0] if units else "", None
        )
        if mag == 0 or expected is None or abs(mag / expected - 1) < 0.02:
            out.append(item("units", "info", f"unit system as stated: {units}; |g| = {f3(mag)}", g=mag))
        else:
            ratio = mag / G_EARTH
            hint = next((h for r, h in _UNIT_HINTS if abs(ratio / r - 1) < 0.02), None)
            suggests = f"suggests {hint}" if hint else f"is {f3(ratio)} times Earth's {G_EARTH}"
            out.append(
                item(
                    "units",
                    "warn",
                    f"unit system as stated: {units}, but |g| = {f3(mag)} {suggests}",
                    f"write every quantity in {units}: g = {f3(expected)} (lengths, masses and inertias "
                    "in the same units)",
                    g=mag,
                )
            )
    if g is None:
        status = "fail" if v.kind == "Chain" else "warn"
        where = (
            "a Chain does not store gravity" if v.kind == "Chain" else "the model has no 'gravity' attribute"
        )
        out.append(
            item(
                "gravity",
                status,
                f"gravity not stated ({where})",
                "state gravity explicitly, e.g. check_model(model, gravity=(0, 0, -9.81)); use zeros "
                "for a mechanism in a horizontal plane",
            )
        )
        return out
    up = np.zeros(len(g))
    up[-1 if len(g) == 3 else 1] = 1.0
    axis = "+z" if len(g) == 3 else "+y"
    mag = float(np.linalg.norm(g))
    detail = f"g = {vec(g)} m/s² ({'from the model' if v.gravity_source == 'model' else 'as given'})"
    if mag == 0:
        status, fix, detail = "info", "", detail + ": no gravity"
    elif g @ up > 0.5 * mag:
        status, fix = "warn", f"gravity points up ({axis}): sign? Use g = {vec(-g)} if {axis} is up"
        detail += f", pointing up ({axis})"
    else:
        status, fix = "info", ""
        detail += f", direction {vec(g / mag)}"
    if v.gravity_note:
        status, fix = (
            "warn",
            fix or "pass the gravity of the model, or rebuild the model with the intended one",
        )
        detail += "; " + v.gravity_note
    out.append(item("gravity", status, detail, fix, gravity=np.array(g)))
    return out


# ====================================================================== step 2: mass and inertia
def _no_structure(key):
    return item(
        key, "info", "not available: a ConstrainedSystem has equations only (no bodies or joints)"
    )


def step2(v: ModelView) -> list:
    if v.bodies is None:
        return [_no_structure(k) for k in ("mass", "inertia", "inertia_plausibility")]
    bad = [b for b in v.bodies if not (np.isfinite(b.mass) and b.mass > 0)]
    masses = ", ".join(f"{b.name} {f3(b.mass)}" for b in v.bodies)
    if bad:
        mass = item(
            "mass",
            "fail",
            f"masses [kg]: {masses}",
            f"give body {bad[0].name!r} a positive mass (massless links only as virtual links with zero "
            "inertia, and then expect a singular mass matrix if nothing beyond them has mass)",
        )
    else:
        mass = item("mass", "pass", f"{plural(len(v.bodies), 'body', 'bodies')}, masses [kg]: {masses}")
    return [mass, _inertia(v), _plausibility(v)]


def _inertia(v: ModelView) -> dict:
    frame = "about the centre of mass, body-frame components"
    notes = []
    for b in v.bodies:
        I = np.asarray(b.inertia, dtype=float)
        if I.ndim == 0:
            if not (np.isfinite(I) and I > 0):
                return item(
                    "inertia",
                    "fail",
                    f"body {b.name!r}: polar moment {f3(I)} kg m² ({frame})",
                    f"give body {b.name!r} a positive moment of inertia about its centre of mass",
                )
            continue
        scale = max(float(np.max(np.abs(I))), 1e-300)
        if np.max(np.abs(I - I.T)) > 1e-9 * scale:
            return item(
                "inertia",
                "fail",
                f"body {b.name!r}: the tensor is not symmetric",
                f"make the inertia of body {b.name!r} symmetric (I_xy = I_yx, ...)",
            )
        lam = np.linalg.eigvalsh(I)
        if lam[0] < -1e-9 * scale:
            return item(
                "inertia",
                "fail",
                f"body {b.name!r}: principal moments {vec(lam)} kg m²",
                f"give body {b.name!r} a positive semi-definite inertia (products enter as −I_xy)",
            )
        if lam[0] + lam[1] < lam[2] - 1e-9 * scale:
            return item(
                "inertia",
                "fail",
                f"body {b.name!r}: principal moments {vec(lam)} break the triangle inequality I1 + I2 ≥ I3",
                f"recompute the inertia of body {b.name!r}: no real body has these principal moments",
            )
        if lam[0] <= 1e-9 * scale:
            notes.append(b.name)
    detail = (
        f"{plural(len(v.bodies), 'body', 'bodies')}: positive definite"
        + (
            " (3D: triangle inequality holds)"
            if v.dim == 3 or any(np.ndim(b.inertia) for b in v.bodies)
            else ""
        )
        + f"; tensors {frame}"
    )
    if notes:
        detail += f"; slender (a zero principal moment): {', '.join(notes)}"
    return item("inertia", "pass", detail)


def _plausibility(v: ModelView) -> dict:
    for b in v.bodies:
        I = np.asarray(b.inertia, dtype=float)
        extent = max((float(np.linalg.norm(p)) for p in b.points), default=0.0)
        if b.mass <= 0 or extent <= 1e-12:
            continue
        big = float(I) if I.ndim == 0 else float(np.max(np.linalg.eigvalsh(I)))
        k = np.sqrt(big / b.mass)  # radius of gyration about the com
        if k > extent:
            return item(
                "inertia_plausibility",
                "warn",
                f"body {b.name!r}: radius of gyration about the centre of mass {f3(k)} m exceeds its "
                f"extent {f3(extent)} m from the centre of mass to its joints: the inertia looks as if "
                "given about a joint, not about the centre of mass (parallel-axis term added twice?)",
                f"body {b.name!r}: give the moment of inertia about the centre of mass (a uniform rod: "
                "m L²/12), not about a joint",
                body=b.name,
                radius=k,
                extent=extent,
            )
    for b in v.bodies:
        I = np.asarray(b.inertia, dtype=float)
        if I.ndim != 2 or b.direction is None:
            continue
        lam, axes = np.linalg.eigh(I)
        if lam[0] >= 0.5 * lam[1]:  # no clear long axis
            continue
        d = b.direction / np.linalg.norm(b.direction)
        angle = float(np.degrees(np.arccos(min(1.0, abs(float(axes[:, 0] @ d))))))
        if angle > 30:
            return item(
                "inertia_plausibility",
                "warn",
                f"body {b.name!r}: the axis of its smallest principal moment is {f3(angle)}° from the "
                f"link direction {vec(d)}: the inertia components look as if given in another frame",
                f"body {b.name!r}: give the inertia in the link's own body frame (rotate it: A I Aᵀ)",
                body=b.name,
                angle=angle,
            )
    return item(
        "inertia_plausibility",
        "pass",
        "radii of gyration within each body's extent" + ("; long axes along the links" if v.dim == 3 else ""),
    )


# ====================================================================== step 3: joints and connectivity
def step3(v: ModelView) -> list:
    if v.joints is None:
        return [_no_structure("joints"), _no_structure("connectivity")]
    rows = [
        f"{j.name} ({j.kind}, {'-'.join(j.bodies)}, "
        + (f"{j.n_eq} eq.)" if j.n_eq else "in the coordinates)")
        for j in v.joints
    ]
    joints = item(
        "joints",
        "info",
        f"{plural(len(v.joints), 'joint')}: " + "; ".join(rows) if rows else "no joints",
        joints=[j.name for j in v.joints],
    )
    names = [b.name for b in v.bodies]
    adj = {b: set() for b in [v.ground] + names}
    contacts = getattr(v.system, "contacts", ())
    touching = [(c.bodies[0], c.bodies[-1] if len(c.bodies) > 1 else v.ground) for c in contacts]
    for a, b in list(v.edges) + [(a if a != "ground" else v.ground, b if b != "ground" else v.ground)
                                 for a, b in touching]:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    seen, todo = {v.ground}, [v.ground]
    while todo:
        for nb in adj[todo.pop()] - seen:
            seen.add(nb)
            todo.append(nb)
    loose = [b for b in names if not adj[b]]
    floating = [b for b in names if b not in seen and b not in loose]
    v.extra["loose"] = loose + floating
    if loose or floating:
        b = (loose or floating)[0]
        what = "has no joint" if loose else f"is not connected to the {v.ground}"
        conn = item(
            "connectivity",
            "warn",
            f"body {b!r} {what}"
            + (f" (also: {', '.join((loose + floating)[1:])})" if len(loose + floating) > 1 else ""),
            f"body {b!r} is not connected to the {v.ground}: a joint is missing? Add it (e.g. a revolute "
            "to its neighbour) or fix the body",
            bodies=loose + floating,
        )
    else:
        conn = item(
            "connectivity",
            "pass",
            f"{plural(len(names), 'body', 'bodies')} connected to the {v.ground}",
            bodies=[],
        )
    return [joints, conn] + ([_contacts(v, contacts)] if contacts else [])


def _contacts(v: ModelView, contacts) -> dict:
    """Each unilateral contact: its gap at the configuration (< 0: interpenetrating), e ∈ [0, 1], μ ≥ 0."""
    rows, bad = [], []
    for c in contacts:
        g = float(c.gap(v.q))
        rows.append(f"{c.name} ({c.kind}, {'-'.join(c.bodies)}): gap {f3(g)} m, e {f3(c.restitution)}, "
                    f"μ {f3(c.friction)}")
        if g < -1e-8:
            bad.append((c, f"contact {c.name!r} interpenetrates by {f3(-g)} m: move {c.bodies[0]!r} out of "
                           "contact (gap ≥ 0) in the start state"))
        if not 0.0 <= c.restitution <= 1.0:
            bad.append((c, f"contact {c.name!r}: give a restitution coefficient in [0, 1], not "
                           f"{f3(c.restitution)}"))
        if c.friction < 0.0:
            bad.append((c, f"contact {c.name!r}: give a friction coefficient ≥ 0, not {f3(c.friction)}"))
    detail = f"{plural(len(contacts), 'contact')}: " + "; ".join(rows)
    gaps = {c.name: float(c.gap(v.q)) for c in contacts}
    if bad:
        return item("contacts", "fail", detail, bad[0][1], gaps=gaps, failing=[c.name for c, _ in bad])
    return item("contacts", "pass", detail, gaps=gaps, failing=[])


# ====================================================================== step 4: DOF and redundancy
def _dof_numbers(v: ModelView):
    if v.dof_report is not None:
        r = v.dof_report(v.q)
        return dict(
            coordinates=r.coordinates,
            constraints=r.constraints,
            rank=r.rank,
            dof=r.dof,
            grubler=r.grubler,
            redundant=list(r.redundant),
            singular=bool(r.singular),
            dependent=list(r.dependent),
            involved=list(r.involved),
        )
    s = v.system
    J = np.asarray(s.phi_q(v.q, 0.0), dtype=float)
    n, m = s.n, J.shape[0]
    rank, dependent, groups = rank_analysis(J) if m else (0, [], [])
    labels = list(getattr(s, "labels", [])) or [f"row {i}" for i in range(m)]
    redundant, singular = [], False
    if dependent:
        g_rank, g_dep = nearby_rank(lambda x: s.phi(x, 0.0), lambda x: s.phi_q(x, 0.0), v.q)
        singular = g_rank > rank
        redundant = [labels[r] for r in g_dep] if not singular else []
    rows = v.row_joint or labels
    involved = sorted({rows[r] for g in groups for r in g}, key=rows.index)
    return dict(
        coordinates=n,
        constraints=m,
        rank=rank,
        dof=n - rank,
        grubler=n - m,
        redundant=redundant,
        singular=singular,
        dependent=[labels[r] for r in dependent],
        involved=involved,
    )


def step4(v: ModelView, expected_dof) -> list:
    d = _dof_numbers(v)
    v.extra["dof"] = d
    detail = (
        f"{d['coordinates']} coordinates ({v.coordinate_kind}), "
        f"{plural(d['constraints'], 'constraint equation')} "
        f"(Grübler count {d['grubler']}), rank of Φ_q {d['rank']}: DOF = {d['coordinates']} − {d['rank']} "
        f"= {d['dof']}"
    )
    values = {k: d[k] for k in ("coordinates", "constraints", "rank", "dof", "grubler")}
    if expected_dof is None:
        dof = item("dof", "info", detail, **values)
    else:
        if not isinstance(expected_dof, numbers.Integral) or expected_dof < 0:
            raise ModelError(
                f"check_model: expected_dof must be a non-negative integer, got {expected_dof!r}"
            )
        e = int(expected_dof)
        if d["dof"] == e:
            dof = item("dof", "pass", detail + ", as expected", expected=e, **values)
        elif d["dof"] < e:
            culprit = d["redundant"] or d["dependent"]
            dof = item(
                "dof",
                "fail",
                detail + f", expected {e}: over-constrained or redundant",
                "remove or relax a constraint"
                + (f" (dependent: {', '.join(culprit)})" if culprit else "")
                + f": the model has {e - d['dof']} DOF fewer than expected",
                expected=e,
                **values,
            )
        else:
            loose = v.extra.get("loose", [])
            dof = item(
                "dof",
                "fail",
                detail + f", expected {e}: a constraint is missing",
                f"add the missing joint(s): {d['dof'] - e} DOF more than expected"
                + (f" (unconnected: {', '.join(loose)})" if loose else ""),
                expected=e,
                **values,
            )
    rows = v.row_joint or []
    labels = list(getattr(v.system, "labels", []))

    def joint_of(label):
        return rows[labels.index(label)] if label in labels and len(rows) == len(labels) else label

    if d["redundant"]:
        joints = list(dict.fromkeys(joint_of(lab) for lab in d["redundant"]))
        red = item(
            "redundant",
            "fail",
            f"rank deficient at a regular configuration: dependent rows {', '.join(d['redundant'])}; "
            f"joints involved: {', '.join(d['involved'])}",
            f"replace joint {joints[0]!r} by a lower pair/point-on-line, or remove it (it repeats what "
            "the other joints already impose)",
            rows=d["redundant"],
            joints=joints,
            involved=d["involved"],
        )
    elif d["singular"]:
        red = item(
            "redundant",
            "warn",
            f"singular configuration: rank {d['rank']} here but full nearby; dependent here: "
            f"{', '.join(d['dependent'])}",
            "check the model at a configuration away from the singular "
            f"position (joints {', '.join(d['involved'])} line up)",
            rows=d["dependent"],
        )
    else:
        red = item(
            "redundant",
            "pass",
            "independent constraint equations" if d["constraints"] else "no constraint equations",
            rows=[],
        )
    return [dof, red]


# ====================================================================== step 5: M, Q, Φ_q
def _coordinate_owner(v: ModelView, k: int) -> str:
    if v.kind == "PlanarModel":
        return f"body {v.bodies[k // 3].name!r} ({'x y φ'.split()[k % 3]})"
    if v.kind == "Chain":
        return f"joint {v.model.joint_names[k]!r} (link {v.model.link_names[k]!r})"
    return f"coordinate {k}"


def step5(v: ModelView) -> list:
    M = np.asarray(v.mass_matrix(v.q_model), dtype=float)
    n = M.shape[0]
    scale = max(float(np.max(np.abs(M))), 1e-300)
    asym = float(np.max(np.abs(M - M.T))) / scale
    try:
        np.linalg.cholesky(M)
        pd = True
    except np.linalg.LinAlgError:
        pd = False
    cond = float(np.linalg.cond(M)) if pd else np.inf
    values = dict(asymmetry=asym, positive_definite=pd, cond=cond)
    if asym > 1e-12:
        i, j = np.unravel_index(np.argmax(np.abs(M - M.T)), M.shape)
        mm = item(
            "mass_matrix",
            "fail",
            f"M ({n}×{n}) is not symmetric: relative asymmetry {f3(asym)} at M[{i},{j}]",
            f"check the terms coupling {_coordinate_owner(v, int(i))} and "
            f"{_coordinate_owner(v, int(j))}: M must equal Mᵀ",
            **values,
        )
    elif not pd:
        k = int(np.argmin(np.diag(M)))
        mm = item(
            "mass_matrix",
            "fail",
            f"M ({n}×{n}) is not positive definite (Cholesky fails; "
            f"smallest eigenvalue {f3(np.linalg.eigvalsh(M)[0])})",
            f"give {_coordinate_owner(v, k)} mass and inertia: some coordinate moves no mass",
            **values,
        )
    else:
        status = "warn" if cond > 1e12 else "pass"
        mm = item(
            "mass_matrix",
            status,
            f"M ({n}×{n}) symmetric (relative asymmetry {f3(asym)}), "
            f"positive definite (Cholesky), condition number {f3(cond)}",
            "rescale the model (units) or check for a tiny mass or inertia: M is nearly singular",
            **values,
        )
    J = np.asarray(v.system.phi_q(v.q, 0.0), dtype=float)
    nnz_M = int(np.count_nonzero(nonzero_pattern(M)))
    fill_M = nnz_M / n**2
    if J.size:
        nnz_J = int(np.count_nonzero(nonzero_pattern(J)))
        fill_J = nnz_J / J.size
        jac = f"Φ_q ({J.shape[0]}×{J.shape[1]}): {nnz_J} non-zeros, fill {f3(fill_J)}"
    else:
        nnz_J, fill_J, jac = 0, 0.0, "no constraint Jacobian"
    sp_ = item(
        "sparsity",
        "info",
        f"M: {nnz_M} non-zeros of {n * n}, fill {f3(fill_M)}; {jac}",
        nnz_M=nnz_M,
        fill_M=fill_M,
        nnz_Phi_q=nnz_J,
        fill_Phi_q=fill_J,
    )
    return [mm, sp_]
