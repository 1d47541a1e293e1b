"""tiles (reverse mode, shape-specialized builds): an adjoint made as zeros and then filled
slice by slice, the slices tiling it (the adjoint of an array read in parts: the gates of an
LSTM, g[:H], g[H:2 * H], ...), is the concatenation of its parts, made at its last part:

    bs = np.zeros((96,), bo.dtype)
    bs[t14:t15] = bo                           (the same statements, but the stores)
    ...                                ->      ...
    bs[H:t13] = bf
    bs[:H] = bi                                bs = np.concatenate((bi, bf, bo))

one call where there were a zero fill and a store per part, and the adjoint reads as what it
is (np.concatenate of three 32-item parts costs 2.2 us against 2.5 for the zeros and three
stores: little time; docs/performance.md). The slices' bounds are numbers in a shape-
specialized build: names bound once at the top level to sizes of the parameters (H = t1[0],
t1 = h0.shape, t13 = 2 * H: inplace.sizes_of, by which the in-place pass stores these slices).

Applies where, in one block, `A = np.zeros(shape, dtype)` is followed by stores `A[lo:hi] = v`
(a name, shaped like its slice; basic slices of the first axis, without a step) that tile A's
first axis exactly, with nothing between the zeros and the last store reading A or writing
into any array (no augmented assignment, no other store, no call that may write: only NumPy's
functions without out=, the runtime's helpers and a list's append and pop), nor binding a part
again before the last store: the parts then hold at the last store the values they held at
theirs. A and its parts are float64 (the build's fact float64: a gradient's adjoints of float64
values) and the zeros are made in a part's dtype, so the concatenation has A's dtype.
"""
import gast

from ..runtime import HELPERS
from ..syntax.naming import walk
from ..syntax.nodes import call, is_name, name, numpy_call
from .inplace import sizes_of

# array methods that do not write into their array (calls of other methods are taken to)
_READING_METHODS = {"dot", "sum", "mean", "max", "min", "copy", "reshape", "transpose",
                    "conj", "ravel", "astype", "any", "all", "prod", "cumsum", "item"}
_LIST_METHODS = {"append", "pop"}  # (write a list, not an array)


def _span(piece, size, sizes):
    """(start, stop) of a slice of an axis of this size whose bounds are int literals or sizes
    (inplace.sizes_of: the same ints in every call), without a step; else None."""
    if not isinstance(piece, gast.Slice) or piece.step is not None:
        return None
    bounds = []
    for bound in (piece.lower, piece.upper):
        if bound is None:
            bounds.append(None)
        elif isinstance(bound, gast.Constant) and type(bound.value) is int:
            bounds.append(bound.value)
        elif isinstance(bound, gast.Name) and bound.id in sizes:
            bounds.append(sizes[bound.id])
        else:
            return None
    start, stop, _ = slice(*bounds).indices(size)
    return start, max(start, stop)


def _writes_nothing(stmt):
    """Whether a statement between the zeros and the last store surely writes into no array:
    assignments to names (and tuples of names) and expressions whose calls are NumPy's
    functions without out=, the runtime's helpers, reading methods, a list's append or pop."""
    if hasattr(stmt, "comment"):
        return True
    if isinstance(stmt, gast.Assign):
        if not all(isinstance(n, (gast.Name, gast.Tuple)) for n in stmt.targets) or any(
                isinstance(n, (gast.Subscript, gast.Attribute, gast.Starred))
                for t in stmt.targets for n in walk(t)):
            return False
    elif not isinstance(stmt, gast.Expr):
        return False
    for n in walk(stmt.value):
        if not isinstance(n, gast.Call):
            continue
        if any(k.arg == "out" or k.arg is None for k in n.keywords):
            return False
        func = n.func
        if isinstance(func, gast.Name):
            if func.id not in HELPERS and func.id not in ("len", "range", "float", "abs"):
                return False
        elif isinstance(func, gast.Attribute):
            if is_name(func.value, "np"):
                continue
            if func.attr not in _READING_METHODS | _LIST_METHODS:
                return False
        else:
            return False
    return True


def _zeros(stmt):
    """(name, shape) of `A = np.zeros(shape, dtype)` with a literal shape, else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and is_name(stmt.targets[0]) and isinstance(stmt.value, gast.Call)):
        return None
    args = stmt.value.args
    if not (numpy_call(stmt.value, "zeros") and not stmt.value.keywords
            and 1 <= len(args) <= 2):
        return None
    shape = args[0]
    if isinstance(shape, gast.Constant) and isinstance(shape.value, tuple):
        shape = shape.value
    elif isinstance(shape, gast.Tuple) and all(isinstance(n, gast.Constant) for n in shape.elts):
        shape = tuple(n.value for n in shape.elts)
    else:
        return None
    if shape and all(type(n) is int for n in shape):
        return stmt.targets[0].id, shape
    return None


def _store(stmt, array):
    """(slice, part name) of `array[lo:hi] = v`, else None."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
        return None
    target = stmt.targets[0]
    if (isinstance(target, gast.Subscript) and is_name(target.value, array)
            and isinstance(target.slice, gast.Slice) and is_name(stmt.value)):
        return target.slice, stmt.value.id
    return None


def _dtype_of_a_part(zeros, parts):
    """Whether np.zeros(shape[, dtype]) makes float64 (no dtype) or a part's dtype."""
    if len(zeros.args) == 1:
        return True
    dtype = zeros.args[1]
    return (isinstance(dtype, gast.Attribute) and dtype.attr == "dtype"
            and is_name(dtype.value) and dtype.value.id in parts)


def _mentions(stmt, ident):
    return any(isinstance(n, gast.Name) and n.id == ident for n in walk(stmt))


def _binds(stmt, ident):
    return any(isinstance(n, gast.Name) and n.id == ident and not isinstance(n.ctx, gast.Load)
               for n in walk(stmt))


class Tiles:
    def __init__(self, fdef, facts):
        self.shape_of = facts.shape_of
        self.float64 = facts.float64
        self.sizes = sizes_of(fdef.body, facts.params, facts.shape_of, facts.binds)

    def block(self, stmts):
        for stmt in stmts:
            for field in ("body", "orelse"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, self.block(getattr(stmt, field)))
        made = [(k, _zeros(stmt)) for k, stmt in enumerate(stmts)]
        for k, found in reversed(made):  # (the last first: an array filled while another is
            if found is not None:  # is then made by a concatenation, which writes nothing)
                stmts = self.tile(stmts, k, *found)
        return stmts

    def tile(self, stmts, first, array, shape):
        """stmts with the zeros at stmts[first] and its stores replaced by one concatenation,
        if they tile the array; else stmts."""
        if array not in self.float64:
            return stmts
        stores = []  # (position, (start, stop), part)
        for position in range(first + 1, len(stmts)):
            stmt = stmts[position]
            found = _store(stmt, array)
            if found is None:
                if (_mentions(stmt, array) or not _writes_nothing(stmt)
                        or any(_binds(stmt, part) for _, _, part in stores)):
                    return stmts
                continue
            piece, part = found
            span = _span(piece, shape[0], self.sizes)
            if (span is None or self.shape_of(part) != (span[1] - span[0],) + shape[1:]
                    or part not in self.float64):
                return stmts
            stores.append((position, span, part))
            spans = sorted(span for _, span, _ in stores)
            if any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
                return stmts  # (overlapping parts: the later store wins)
            if spans[0][0] == 0 and spans[-1][1] == shape[0] and all(
                    a[1] == b[0] for a, b in zip(spans, spans[1:])):
                if not _dtype_of_a_part(stmts[first].value, [p for _, _, p in stores]):
                    return stmts
                return self.replace(stmts, first, array, stores)
        return stmts

    @staticmethod
    def replace(stmts, first, array, stores):
        positions = {position for position, _, _ in stores}
        parts = [name(part) for _, _, part in sorted(stores, key=lambda s: s[1])]
        last = max(positions)
        concatenation = gast.Assign(
            targets=[name(array, gast.Store())],
            value=call(["np", "concatenate"], gast.Tuple(elts=parts, ctx=gast.Load())),
            type_comment=None)
        gast.copy_location(concatenation, stmts[last])
        out = []
        for position, stmt in enumerate(stmts):
            if position == first or position in positions - {last}:
                continue
            out.append(concatenation if position == last else stmt)
        return out


def concatenate_tiles(fdef, facts):
    """The pass (see the module docstring)."""
    fdef.body = Tiles(fdef, facts).block(fdef.body)
    return fdef
