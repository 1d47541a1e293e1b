"""check_grads: does srcad's derivative of f agree with f itself?

Two independent checks, in float64, along random directions v (inputs) and w (outputs):
1. finite differences: the JVP J v against the central difference (f(x + h v) - f(x - h v)) / 2h,
   and the VJP through <v, J^T w> against <(f(x + h v) - f(x - h v)) / 2h, w>;
2. the dot-product test <J v, w> == <v, J^T w> between srcad's own forward and reverse modes. It
   has no step size: both sides are exact, so they agree to rounding (about 1e-12 relative) or
   one of the two modes is wrong.
With order=2, the same for the Hessian: H v (forward over reverse) against central differences of
the gradient, and the symmetry <H v, u> == <v, H u>; with order=3, the third derivative along
(v, u) (forward over the Hessian-vector product) against central differences of H v, and its
symmetry <T[u] v, w> == <T[w] v, u>. With has_aux=True, func returns (value, aux) and its value
is checked (and grad(func, has_aux=True) against the gradient of the value alone).
"""
import numpy as np

from . import api
from .api import compose, trees
from .analysis.isolation import Replayed, roots_of
from .errors import SrcadError


class GradCheckError(AssertionError):
    """srcad's derivative disagrees with finite differences or with its other mode."""


def _inner(a, b):
    return trees.inner(a, b)


def _random_like(value, rng):
    """A random direction shaped like value: a tree of them for a tree of parameters."""
    def draw(leaf):
        out = rng.standard_normal(np.shape(leaf))
        return float(out) if np.shape(leaf) == () and not isinstance(leaf, np.ndarray) else out
    return trees.tree_map(draw, trees.top_level_float(value))


def _shift(args, positions, direction, h):
    moved = list(args)
    for position, v in zip(positions, direction):
        moved[position] = trees.tree_map(
            lambda a, d: np.asarray(a, dtype=float) + h * np.asarray(d)
            if isinstance(a, np.ndarray) else float(a) + h * float(d),
            trees.top_level_float(args[position]), v)
    return moved


def _central(func, args, kwargs, positions, direction, h):
    plus = func(*_shift(args, positions, direction, h), **kwargs)
    minus = func(*_shift(args, positions, direction, -h), **kwargs)
    return trees.tree_map(lambda p, m: (np.asarray(p, float) - np.asarray(m, float)) / (2 * h),
                          trees.top_level_float(plus), trees.top_level_float(minus))


def _close(a, b, rtol, atol):
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def check_grads(func, args, wrt=0, order=1, kwargs=None, rtol=1e-6, atol=1e-9, exact_rtol=1e-10,
                h=1e-6, seed=0, modes=("forward", "reverse"), has_aux=False):
    """Check srcad's derivatives of `func` at `args`; raise GradCheckError with a report if any
    disagree. Returns a dict of the measured agreements."""
    if not isinstance(args, (tuple, list)):
        raise SrcadError("check_grads takes the arguments as a tuple: check_grads(f, (x, y))")
    kwargs = kwargs or {}
    trees.refuse_other_arrays("check_grads", args, kwargs)
    # every evaluation of f or of a derivative starts from the state f reaches as one call of f
    # would (a generator it draws noise from: the same draws each time), and f's state is left
    # as after one call (isolation.Replayed)
    with Replayed(roots_of(func, args, kwargs)) as replay:
        return _checked(func, args, wrt, order, kwargs, rtol, atol, exact_rtol, h, seed, modes,
                        has_aux, replay)


def _checked(func, args, wrt, order, kwargs, rtol, atol, exact_rtol, h, seed, modes, has_aux,
             replay):
    if has_aux:
        return _check_with_aux(func, args, wrt, order, kwargs, rtol, atol, exact_rtol, h, seed,
                               modes, replay)
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    rng = np.random.default_rng(seed)
    report = {}
    value = replay.call(func, *args, **kwargs)
    v = tuple(_random_like(args[p], rng) for p in positions)
    w = _random_like(value, rng)
    fd = _central(replay.wrap(func), args, kwargs, positions, v, h)
    problems = []
    if "forward" in modes:
        jv = replay.call(api.jvp(func, wrt=positions), *args, *v, **kwargs)
        report["forward_vs_fd"] = (_inner(jv, w), _inner(fd, w))
        for k, (got, want) in enumerate(zip(trees.leaves(trees.top_level_float(jv)), trees.leaves(fd))):
            got, want = np.asarray(got, float), np.asarray(want, float)
            if np.shape(got) != np.shape(want):
                problems.append(f"forward mode: output {k} tangent has shape {np.shape(got)}, "
                                f"the output has shape {np.shape(want)}")
                continue
            err = np.max(np.abs(got - want), initial=0.0)
            scale = np.max(np.abs(want), initial=0.0)
            if err > atol + rtol * 1e2 * max(scale, 1.0):
                problems.append(f"forward mode: output {k}: J v differs from central differences "
                                f"by {err:.3g} (scale {scale:.3g})")
    if "reverse" in modes:
        jtw = replay.call(api.vjp(func, wrt=positions), *args, w, **kwargs)
        for k, position in enumerate(positions):
            x = trees.top_level_float(args[position])
            got = [np.shape(g) for g in trees.leaves_like(x, jtw[k])]
            if got != trees.shapes(x):
                problems.append(f"reverse mode: the gradient of argument {position} has shapes "
                                f"{got}, the argument has shapes {trees.shapes(x)}")
        lhs, rhs = _inner(v, jtw), _inner(fd, w)
        report["reverse_vs_fd"] = (lhs, rhs)
        if not _close(lhs, rhs, rtol * 1e2, atol):
            problems.append(f"reverse mode: <v, J^T w> = {lhs!r} but central differences give "
                            f"{rhs!r} (argument(s) {positions})")
    if "forward" in modes and "reverse" in modes:
        lhs, rhs = _inner(jv, w), _inner(v, jtw)
        report["dot_product"] = (lhs, rhs)
        if not _close(lhs, rhs, exact_rtol, 1e-300 + 1e-13 * max(abs(lhs), abs(rhs), 1e-300)):
            problems.append(f"dot-product test: <J v, w> = {lhs!r} (forward) but <v, J^T w> = "
                            f"{rhs!r} (reverse): relative gap "
                            f"{abs(lhs - rhs) / max(abs(lhs), abs(rhs), 1e-300):.3g}")
    if order >= 2:
        problems += _check_second_order(func, args, kwargs, positions, rng, rtol, atol,
                                        exact_rtol, h, report, replay)
    if order >= 3:
        problems += _check_third_order(func, args, kwargs, positions, rng, rtol, atol,
                                       exact_rtol, h, report, replay)
    if problems:
        raise GradCheckError(f"srcad's derivatives of {getattr(func, '__qualname__', func)} "
                             f"disagree:\n  " + "\n  ".join(problems))
    return report


def _check_second_order(func, args, kwargs, positions, rng, rtol, atol, exact_rtol, h, report,
                        replay):
    problems = []
    for position in positions:
        v = _random_like(args[position], rng)
        u = _random_like(args[position], rng)
        hvp = replay.wrap(api.hvp(func, wrt=position))
        hv = hvp(*args, v, **kwargs)
        hu = hvp(*args, u, **kwargs)
        gradient = replay.wrap(api.grad(func, wrt=position))
        fd = _central(gradient, args, kwargs, (position,), (v,), h)
        err, scale = report[f"hvp_vs_fd_{position}"] = _gap(hv, fd)
        if err > atol + rtol * 1e2 * max(scale, 1.0):
            problems.append(f"hessian: H v for argument {position} differs from central "
                            f"differences of the gradient by {err:.3g} (scale {scale:.3g})")
        lhs, rhs = _inner(hv, u), _inner(v, hu)
        report[f"hessian_symmetry_{position}"] = (lhs, rhs)
        if not _close(lhs, rhs, exact_rtol * 10, 1e-12):
            problems.append(f"hessian symmetry: <H v, u> = {lhs!r} but <v, H u> = {rhs!r}")
    return problems


def _gap(got, differences):
    """(largest entry of |got - differences|, largest entry of |differences|) over the leaves."""
    err = max((float(np.max(np.abs(np.asarray(a, float) - b), initial=0.0))
               for a, b in zip(trees.leaves(got), trees.leaves(differences))), default=0.0)
    scale = max((float(np.max(np.abs(b), initial=0.0)) for b in trees.leaves(differences)),
                default=0.0)
    return err, scale


def _check_third_order(func, args, kwargs, positions, rng, rtol, atol, exact_rtol, h, report,
                       replay):
    """T[u] v, the derivative of H v along u (forward mode over the generated Hessian-vector
    product), against central differences of H v, and <T[u] v, w> == <T[w] v, u>."""
    problems = []
    for position in positions:
        v, u, w = (_random_like(args[position], rng) for _ in range(3))
        hvp = api.hvp(func, wrt=position)
        third = replay.wrap(api.jvp(hvp, wrt=position))
        hvp = replay.wrap(hvp)
        tuv = third(*args, v, u, **kwargs)
        fd = _central(lambda *a, **k: hvp(*a, v, **k), args, kwargs, (position,), (u,), h)
        err, scale = report[f"third_vs_fd_{position}"] = _gap(tuv, fd)
        if err > atol + rtol * 1e2 * max(scale, 1.0):
            problems.append(f"third derivative: T[u] v for argument {position} differs from "
                            f"central differences of H v by {err:.3g} (scale {scale:.3g})")
        lhs, rhs = _inner(tuv, w), _inner(third(*args, v, w, **kwargs), u)
        report[f"third_symmetry_{position}"] = (lhs, rhs)
        if not _close(lhs, rhs, exact_rtol * 10, 1e-12):
            problems.append(f"third derivative symmetry: <T[u] v, w> = {lhs!r} but "
                            f"<T[w] v, u> = {rhs!r}")
    return problems


def _check_with_aux(func, args, wrt, order, kwargs, rtol, atol, exact_rtol, h, seed, modes,
                    replay):
    """check_grads of func's value (func returns (value, aux)), and grad(func, has_aux=True)
    against that value's gradient, with aux as func returns it."""
    value_only = compose.first_item(func)
    report = _checked(value_only, args, wrt, order, kwargs, rtol, atol, exact_rtol, h, seed,
                      modes, False, replay)
    grads, aux = replay.call(api.grad(func, wrt=wrt, has_aux=True), *args, **kwargs)
    expected = replay.call(api.grad(value_only, wrt=wrt), *args, **kwargs)
    for got, want in zip(trees.leaves(grads), trees.leaves(expected)):
        if not np.allclose(got, want, rtol=exact_rtol, atol=1e-300):
            raise GradCheckError(f"grad(has_aux=True) of {getattr(func, '__qualname__', func)} "
                                 f"differs from the gradient of its value alone")
    report["aux"] = aux
    return report
