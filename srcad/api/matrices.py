"""Whole derivative matrices and their products, built on the derivatives of derivatives.py:
jacobian (one sweep of the derivative code over a stack of all basis vectors where every
operation it runs has a batching rule, batched.py; else one sweep per output or input),
hessian (by any of the four mode pairs), hvp and hessp (SciPy's argument order).

    jac = srcad.jacobian(f, wrt=0, mode="forward")     J with shape out.shape + x.shape
    hess = srcad.hessian(f)                            forward over the generated gradient
"""
import numpy as np

from ..analysis.shapes import signature_of
from ..errors import SrcadError, VerifyError
from . import html, trees
from .batched import Batched, NotBatchable
from ..analysis.isolation import Replayed, roots_of
from .derivatives import bound, derivative
from .dispatch import COTANGENT
from .verify import first_difference, scale_of


def _basis(shape, dtype=float):
    size = int(np.prod(shape, dtype=int))
    for i in range(size):
        e = np.zeros(size, dtype=dtype)
        e[i] = 1.0
        yield e.reshape(shape) if shape != () else e.reshape(())


def _as_float_array(value):
    return np.asarray(value, dtype=np.result_type(np.asarray(value).dtype, np.float64)
                      if not np.issubdtype(np.asarray(value).dtype, np.floating)
                      else np.asarray(value).dtype)


def jacobian(func, wrt=0, mode="reverse", *, has_aux=False, disable=None, verify=None,
             vectorize=True):
    """jac(*args) -> J with shape out.shape + x.shape (a tuple of them if wrt is a tuple).
    has_aux=True: func returns (out, aux), and jac(*args) -> (J of out, aux).
    vectorize: one sweep of the derivative code over a stack of all basis vectors (batched.py)
    where every operation it runs has a batching rule; False: one sweep per vector."""
    if mode not in ("reverse", "forward"):
        raise SrcadError(f"mode must be 'reverse' or 'forward', got {mode!r}")
    made = bound(func, jacobian, wrt, mode, has_aux=has_aux, disable=disable, verify=verify,
                 vectorize=vectorize)  # (a bound method: of its function, self first)
    if made is not None:
        return made
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    if has_aux:
        inner = derivative(func, "reverse", "vjp_aux", tuple(positions), disable, verify)
        if mode == "forward":
            raise SrcadError("jacobian(has_aux=True) is built in reverse mode only",
                             hint="use mode='reverse' (the default)")
    else:
        inner = derivative(func, mode, "vjp" if mode == "reverse" else "jvp", tuple(positions),
                           disable, verify)

    unbatchable = set()  # signatures whose code has an operation without a batching rule

    def jac(*args, **kwargs):
        """Blocks out_leaf.shape + in_leaf.shape; for trees of parameters (or outputs), trees
        of them: the output's structure, each leaf replaced by the input's structure. Each
        sweep sees the state f reaches as one call of f would (a generator it draws from:
        every row of one draw; isolation.Replayed), and leaves it so."""
        trees.refuse_other_arrays("jacobian", args, kwargs)
        with Replayed(roots_of(func, args, kwargs)) as replay:
            if vectorize and not has_aux:
                swept = _in_one_sweep(inner, func, mode, positions, args, kwargs, unbatchable,
                                      replay)
                if swept is not None:
                    if inner.verify:  # (the sweep per vector is the reference)
                        _check_sweep(inner, swept, per_vector(replay, *args, **kwargs))
                    return swept if isinstance(wrt, tuple) else swept[0]
            return per_vector(replay, *args, **kwargs)

    def per_vector(replay, *args, **kwargs):
        blocks = []
        if mode == "reverse":
            replay.next_run()
            value = func(*args, **kwargs)
            if has_aux:
                value, aux = value
            value = trees.top_level_float(value)
            rows = [(j, replay.call(inner, *args, e, **kwargs))
                    for j, e in trees.one_hot(value)]
            if has_aux:
                rows = [(j, row[0]) for j, row in rows]
            for k, position in enumerate(positions):
                x = trees.top_level_float(args[position])
                stacked = {}
                for j, out_leaf in enumerate(trees.leaves(value)):
                    mine = [trees.leaves_like(x, trees.top_level_float(r[k]))
                            for jj, r in rows if jj == j]
                    for l, in_leaf in enumerate(trees.leaves(x)):
                        shape = np.shape(in_leaf)
                        stacked[j, l] = np.array(
                            [np.asarray(m[l], dtype=float).reshape(shape) for m in mine]
                        ).reshape(np.shape(out_leaf) + shape)
                blocks.append(trees.blocks(value, x, stacked))
        else:
            for k, position in enumerate(positions):
                x = trees.top_level_float(args[position])
                columns, value = {}, None
                for l, e in trees.one_hot(x):
                    tangents = [e if j == k else trees.tree_map(
                        lambda leaf: np.zeros(np.shape(leaf)), trees.top_level_float(args[p]))
                                for j, p in enumerate(positions)]
                    value = trees.top_level_float(replay.call(inner, *args, *tangents,
                                                              **kwargs))
                    columns.setdefault(l, []).append(trees.leaves(value))
                if value is None:  # (no input entries: the output's structure from f)
                    value = trees.top_level_float(replay.call(func, *args, **kwargs))
                stacked = {}
                for j, out_leaf in enumerate(trees.leaves(value)):
                    for l, in_leaf in enumerate(trees.leaves(x)):
                        shape = np.shape(out_leaf) + np.shape(in_leaf)
                        cols = [np.asarray(c[j], dtype=float) for c in columns.get(l, [])]
                        stacked[j, l] = (np.stack(cols, axis=-1) if cols else
                                         np.zeros(shape)).reshape(shape)
                blocks.append(trees.blocks(value, x, stacked))
        result = tuple(blocks) if isinstance(wrt, tuple) else blocks[0]
        return (result, aux) if has_aux else result

    jac.__name__ = f"{getattr(func, '__name__', 'f')}_jacobian"
    return html.Shown(jac, "jacobian", func, wrt, lambda: inner, recipe=(
        _remade, (jacobian, (func, wrt, mode), dict(has_aux=has_aux, disable=disable,
                                                    verify=verify, vectorize=vectorize))))


def _in_one_sweep(inner, func, mode, positions, args, kwargs, unbatchable, replay=None):
    """The Jacobian blocks (one per position) from one sweep of the derivative code run on a
    stack of all the basis vectors (batched.py), or None where that does not apply: inputs or
    outputs that are not one float array or number, or code with an operation that has no
    batching rule (then remembered for these arguments' signature). replay: jac's Replayed
    (None: the global random states alone)."""
    replay = replay if replay is not None else Replayed(())
    signature = signature_of(args, kwargs)
    if signature is None or signature in unbatchable or any(
            not _plain_float(args[p]) for p in positions):
        return None
    try:
        entry = inner.specialize(args, kwargs)
        if mode == "forward":
            blocks = []
            for k, position in enumerate(positions):
                x = args[position]
                tangents = [_basis_stack(np.shape(x)) if j == k else np.zeros(np.shape(args[p]))
                            for j, p in enumerate(positions)]
                names = inner.outline.tangent_names
                replay.next_run()
                out = inner.invoke(entry, args, kwargs, dict(zip(names, tangents)))
                if not _plain_float(out, stacked=True):
                    return None
                shape = np.shape(out)
                blocks.append(np.moveaxis(out.data, 0, -1).reshape(shape + np.shape(x))
                              if isinstance(out, Batched) else np.zeros(shape + np.shape(x)))
            return tuple(blocks)
        value = replay.call(func, *args, **kwargs)
        if not _plain_float(value):
            return None
        replay.next_run()
        grads = inner.invoke(entry, args, kwargs, {COTANGENT: _basis_stack(np.shape(value))})
        grads = grads if len(positions) > 1 else (grads,)
        if not all(_plain_float(g, stacked=True) for g in grads):
            return None
        return tuple(g.data.reshape(np.shape(value) + np.shape(args[p])) if isinstance(
            g, Batched) else np.zeros(np.shape(value) + np.shape(args[p]))
                     for g, p in zip(grads, positions))
    except NotBatchable:
        unbatchable.add(signature)
        return None
    except Exception as exc:  # a batching rule's error: the sweep per vector will tell, and
        stored = isinstance(exc, ValueError) and (  # verify mode raises it. (numpy's words
            "setting an array element with a sequence" in str(exc))  # for a stack stored
        if inner.verify and not stored:  # into one item of a plain array: it takes the stack
            raise  # for a sequence before it asks for an array, which NotBatchable refuses)
        unbatchable.add(signature)
        return None


def _plain_float(value, stacked=False):
    """A float array or number (stacked: or a stack of them): what one sweep's Jacobian takes
    and gives (trees and integer arguments take the sweep per vector)."""
    if stacked and isinstance(value, Batched):
        return value.dtype.kind == "f"
    return (isinstance(value, (np.ndarray, np.floating)) and value.dtype.kind == "f") or (
        type(value) is float)


def _basis_stack(shape):
    """Every basis vector of arrays of this shape, stacked: the identity, one per row."""
    size = int(np.prod(shape, dtype=int))
    return Batched(np.eye(size).reshape((size,) + tuple(shape)))


def _check_sweep(inner, swept, expected):
    """Verify mode: the one-sweep Jacobian against the sweep per vector."""
    expected = expected if isinstance(expected, tuple) else (expected,)
    difference = first_difference(expected, swept, scale=scale_of(expected, swept))
    if difference is not None:
        raise VerifyError(f"srcad's Jacobian in one sweep (of {inner.__name__}) differs from the "
                          f"one a sweep per vector gives: {difference}; please report this bug")


HESSIAN_MODES = ("forward-over-reverse", "reverse-over-reverse", "reverse-over-forward",
                 "forward-over-forward")


def hessian(func, wrt=0, *, mode="forward-over-reverse", disable=None, verify=None,
            vectorize=True):
    """hess(*args) -> the Hessian of a scalar f with respect to argument wrt, shaped
    x.shape + x.shape. mode: the outer and inner modes; forward over the generated gradient by
    default (one forward sweep of the gradient per input entry); reverse-over-reverse, one reverse
    sweep of it per entry; reverse-over-forward, the gradient of each directional derivative;
    forward-over-forward, a second directional derivative per pair of entries (n^2 sweeps: small
    n, or a check of the others). vectorize: the sweeps of the first two modes in one, as
    jacobian's."""
    if isinstance(wrt, tuple):
        raise SrcadError("srcad.hessian takes one argument position (wrt=int)",
                         hint="build the blocks with srcad.jacobian(srcad.grad(f, wrt=i), "
                              "wrt=j, mode='forward')")
    if mode not in HESSIAN_MODES:
        raise SrcadError(f"hessian's mode must be one of {', '.join(HESSIAN_MODES)}, got {mode!r}")
    made = bound(func, hessian, wrt, mode=mode, disable=disable, verify=verify,
                 vectorize=vectorize)
    if made is not None:
        return made
    outer, inner = mode.split("-over-")
    if inner == "reverse":
        gradient = derivative(func, "reverse", "grad", wrt, disable, verify)
        hess = jacobian(gradient, wrt=wrt, mode=outer, disable=disable, verify=verify,
                        vectorize=vectorize)
        runs = derivative(gradient, outer, "vjp" if outer == "reverse" else "jvp", (wrt,),
                          disable, verify)  # (the code each sweep runs, for .source)
    elif outer == "reverse":
        directional = derivative(func, "forward", "jvp", wrt, disable, verify)
        of_direction = runs = derivative(directional, "reverse", "grad", wrt, disable, verify)

        def hess(*args, **kwargs):
            trees.refuse_other_arrays("hessian", args, kwargs)
            x = _as_float_array(args[wrt])
            with Replayed(roots_of(func, args, kwargs)) as replay:
                columns = [np.asarray(replay.call(of_direction, *args, e, **kwargs), dtype=float)
                           for e in _basis(x.shape, x.dtype)]
            return _stacked(columns, x.shape)
    else:
        directional = derivative(func, "forward", "jvp", wrt, disable, verify)
        second = runs = derivative(directional, "forward", "jvp", wrt, disable, verify)

        def hess(*args, **kwargs):
            trees.refuse_other_arrays("hessian", args, kwargs)
            x = _as_float_array(args[wrt])
            basis = list(_basis(x.shape, x.dtype))
            with Replayed(roots_of(func, args, kwargs)) as replay:
                columns = [np.array([replay.call(second, *args, e, u, **kwargs) for u in basis],
                                    dtype=float) for e in basis]
            return _stacked(columns, x.shape)
    hess.__name__ = f"{getattr(func, '__name__', 'f')}_hessian"
    return html.Shown(hess, "hessian", func, wrt, lambda: runs, recipe=(
        _remade, (hessian, (func, wrt), dict(mode=mode, disable=disable, verify=verify,
                                             vectorize=vectorize))))


def _stacked(columns, shape):
    """The Hessian from its columns (each the derivative of the gradient along one entry)."""
    if not columns:
        return np.zeros(shape + shape)
    return np.stack([np.reshape(c, shape) for c in columns], axis=-1).reshape(shape + shape)


def hvp(func, wrt=0, *, disable=None, verify=None):
    """hvp(*args, v) -> H v without forming H: forward mode over the generated gradient (a
    srcad derivative itself, so it composes further)."""
    gradient = derivative(func, "reverse", "grad", wrt, disable, verify)
    return derivative(gradient, "forward", "jvp", wrt, disable, verify)


def hessp(func, wrt=0, *, disable=None, verify=None):
    """SciPy's Hessian-vector product, hessp(x, p, *args) -> H p: the direction p comes right
    after the argument at position wrt (scipy.optimize.minimize(..., hessp=srcad.hessp(f)))."""
    if not isinstance(wrt, int) or isinstance(wrt, bool):
        raise SrcadError("srcad.hessp takes one argument position (wrt=int), as SciPy's hessp",
                         hint="for several arguments, pack them into one array")
    product = hvp(func, wrt, disable=disable, verify=verify)

    def hessp_(*args, **kwargs):
        if len(args) < wrt + 2:
            raise TypeError(f"hessp(*args, p, *more): the direction p comes after argument "
                            f"{wrt}")
        return product(*args[:wrt + 1], *args[wrt + 2:], args[wrt + 1], **kwargs)

    hessp_.__name__ = f"{getattr(func, '__name__', 'f')}_hessp"
    return html.Shown(hessp_, "hessp", func, wrt, lambda: product, recipe=(
        _remade, (hessp, (func, wrt), dict(disable=disable, verify=verify))))


def _remade(maker, args, kwargs):
    """maker(*args, **kwargs): how pickle makes a hessian, hessp or jacobian again."""
    return maker(*args, **kwargs)
