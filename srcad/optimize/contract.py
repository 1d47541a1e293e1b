"""sums of products as contractions (reverse mode, shape-specialized builds): an adjoint that
sums an elementwise product of arrays over some of its axes is one np.einsum, which reduces as
it multiplies and forms no array of the product's shape, or where it is a matrix product per
batch, one np.matmul (BLAS):

    bdiff = np.reshape(bd2, (64, 64, 1)) * 2 * diff
    bt1 = bdiff.sum(axis=(1,), keepdims=True)
    bt2 = -bdiff.sum(axis=(0,), keepdims=True)
        ->
    bt1 = 2 * np.matmul(bd2[:, None, :], diff)
    bt2 = -(2 * np.matmul(bd2.T[:, None, :], diff.transpose((1, 0, 2))).transpose((1, 0, 2)))

Pairwise code meets this: the adjoint of `x[:, None, :] - x[None, :, :]` sums an N x N x 3
adjoint back to N x 3 twice, and numpy's reduction over a middle axis with a short last axis
is slow (62 us for 64 x 64 x 3; einsum: 16 us, with no 64 x 64 x 3 product formed; np.matmul
of the (1, 64) rows by the (64, 3) matrices: 3.6 us). A sum of every item of the product of two
arrays of one shape is a dot product, np.vdot (BLAS: 1.2 us for 64 x 64, against 7 us to
multiply and sum). A batch of dot products (no axis kept that only one array has) stays an
einsum, which does those faster than np.matmul.

Applies to x.sum(...) / np.sum(x, ...) with constant axes and keepdims, in the value of a
top-level assignment to a derivative name, where x is a product (a * b * ... / q) of two or
three arrays and any numbers or 0-d values, or a name bound once at the top level to one, with
nothing between that binding and the sum changing what it reads. A derivative name bound so to
a product, read as a factor, stands for its factors (the adjoint's temporaries bz = g * 2 * z,
share = bz / s are not formed). A divisor q must be the same along the summed axes: the sum
of x / q is then sum(x) / q. Each array is a name or expression whose shape the probe knows,
or a view of one that only inserts axes of length 1 (np.reshape(v, (64, 64, 1)), v[:, None,
:]): the einsum reads v itself. Of three arrays, two of the product's whole shape are
multiplied first where the sum of the two that are left is one np.matmul (7 us for
512 x 8 x 4, where einsum of three takes 16). All of them hold floats of one dtype (einsum of
ints or bools is not their product's sum). Below MIN_SIZE elements in the product, einsum's
fixed cost (about a microsecond) outweighs the gain, and the code stays as written. The terms
are the same, but for the divisions, done once per sum instead of once per term; only the
order of the additions changes.
"""
import string

import gast
import numpy as np

from ..analysis.defuse import feeding_values
from ..analysis.shapes import broadcast_of, common_char, expression_shape, reduction
from ..syntax.naming import clone, walk
from ..syntax.nodes import call, constant_node, dotted_parts, is_comment

MIN_SIZE = 1000  # elements of the product (about where einsum overtakes multiply-and-sum)
_LETTERS = string.ascii_letters


class Contract:
    def __init__(self, fdef, facts):
        self.fdef = fdef
        self.contracted_any = False  # (whether a sum became a contraction)
        self.shape_of = facts.shape_of
        self.float_of = facts.float_of
        self.top_once = facts.top_once
        self.derived = facts.derived
        # (where the code returns f's values, the derived names that feed them keep their sums:
        # a contraction adds in another order, and f's values must be f's to the bit)
        self.values = feeding_values(fdef, facts.derived) if facts.returns_values else set()

    def shape(self, node):
        """The shape of node's value: expression_shape's, and that of a unit-axis view and of
        a product of such views."""
        found = expression_shape(node, self.shape_of)
        if found is not None:
            return found
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            left, right = self.shape(node.left), self.shape(node.right)
            return broadcast_of([left, right])
        view = self.unit_view(node)
        if view is not None:
            return _view_shape(self.shape(view[0]), view[1], node)
        return None

    def unit_view(self, node):
        """(v, positions) where node is a view of v that only inserts axes of length 1, v's
        axes landing at `positions` of node's; else None."""
        parts = dotted_parts(node.func) if isinstance(node, gast.Call) else None
        if parts == ["np", "reshape"] and len(node.args) == 2 and not node.keywords:
            base, target = node.args
            if not (isinstance(target, gast.Tuple) and all(
                    isinstance(e, gast.Constant) and type(e.value) is int for e in target.elts)):
                return None
            target = [e.value for e in target.elts]
            shape = self.shape(base)
            if shape is None or [n for n in shape if n != 1] != [n for n in target if n != 1]:
                return None
            kept = [i for i, n in enumerate(target) if n != 1]
            # v's axes of length 1 have no place of their own: the einsum sums them away
            positions, k = [], 0
            for n in shape:
                positions.append(kept[k] if n != 1 else None)
                k += n != 1
            return base, positions
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Tuple):
            items = node.slice.elts
            if not all(_is_none(e) or _is_full_slice(e) for e in items):
                return None
            shape = self.shape(node.value)
            positions = [i for i, e in enumerate(items) if not _is_none(e)]
            if shape is None or len(positions) != len(shape):
                return None
            return node.value, positions
        return None

    def operand(self, node, full):
        """(expression, einsum labels) for an array factor of a product shaped `full`, its axes
        right-aligned with full's; axes of length 1 where full's are longer get labels of their
        own (summed away). None where its shape is unknown."""
        view = self.unit_view(node)
        if view is not None:
            base, positions = view
            shape, view_shape = self.shape(base), self.shape(node)
        else:
            base, shape = node, self.shape(node)
            view_shape, positions = shape, list(range(len(shape or ())))
        if shape is None or view_shape is None or len(view_shape) > len(full):
            return None
        offset = len(full) - len(view_shape)
        labels = []
        for n, position in zip(shape, positions):
            axis = None if position is None else offset + position
            if axis is not None and n == full[axis]:
                labels.append(axis)
            elif n == 1:
                labels.append(None)  # a length-1 axis: a label of its own
            else:
                return None
        return base, labels

    def contraction(self, node, body, index):
        """The einsum expression for the reduction `node` in body[index]'s value, or None."""
        found = reduction(node, self.shape_of, self.shape)
        if found is None or node.func.attr != "sum":
            return None
        operand, full, axes, keepdims = found
        product = operand
        if isinstance(operand, gast.Name):
            product = self.bound_before(operand.id, body, index)
            if product is None:
                return None
        if int(np.prod(full)) < MIN_SIZE:
            return None
        for deep in (True, False):  # through the derivative names the product reads, or not
            numbers, arrays, divisors = [], [], []
            self.gather(product, body, index, deep, numbers, arrays, divisors)
            value = self.contracted(numbers, arrays, divisors, full, axes, keepdims)
            if value is not None:
                return value
        return None

    def bound_before(self, var, body, index):
        """The value of var's one top-level binding before body[index], where nothing between
        them changes what it reads; else None."""
        definition = self.top_once.get(var)
        at = self.position.get(id(definition), index)
        if at >= index or self.changed_between(definition.value, body[at + 1:index]):
            return None
        return definition.value

    def gather(self, node, body, index, deep, numbers, arrays, divisors):
        """The factors of a product a * b / q ... (a unary minus is a factor -1), sorted into
        numbers, arrays and divisors (the whole right operand of a /). deep: a derivative name
        bound to a product before body[index] stands for its factors (an adjoint's temporary,
        bz = g * 2 * z, share = bz / s)."""
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Mult, gast.Div)):
            self.gather(node.left, body, index, deep, numbers, arrays, divisors)
            if isinstance(node.op, gast.Mult):
                self.gather(node.right, body, index, deep, numbers, arrays, divisors)
            else:
                divisors.append(node.right)
        elif isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            numbers.append(constant_node(-1))
            self.gather(node.operand, body, index, deep, numbers, arrays, divisors)
        else:
            value = self.bound_before(node.id, body, index) if (
                deep and isinstance(node, gast.Name) and node.id in self.derived) else None
            if isinstance(value, (gast.BinOp, gast.UnaryOp)):
                self.gather(value, body, index, deep, numbers, arrays, divisors)
            else:
                (numbers if self.shape(node) == () else arrays).append(node)

    def contracted(self, numbers, arrays, divisors, full, axes, keepdims):
        """The sum over `axes` of the product of these factors as an einsum (or np.matmul, or
        np.vdot), its numbers multiplied and its divisors divided after the sum; or None."""
        if common_char(gast.Tuple(elts=numbers + arrays + divisors, ctx=gast.Load()),
                       self.float_of) not in ("f", "d", "g"):
            return None
        if not 2 <= len(arrays) <= 3 or not all(self.outside(q, full, axes, keepdims)
                                                  for q in divisors):
            return None
        operands = [self.operand(a, full) for a in arrays]
        if any(o is None for o in operands):
            return None
        free = iter(_LETTERS[len(full):])
        specs = ["".join(_LETTERS[label] if label is not None else next(free)
                         for label in labels) for _, labels in operands]
        kept = [i for i in range(len(full)) if i not in axes]
        if not set(kept) <= {label for _, labels in operands for label in labels}:
            return None
        out = "".join(_LETTERS[i] for i in kept)
        bases = [clone(base) for base, _ in operands]
        # the layout asked for: the kept axes in order, and with keepdims a None per summed axis
        layout = [_LETTERS[i] if i in kept else None for i in range(len(full))] if (
            keepdims) else list(out)
        if len(operands) == 2 and not kept and specs[0] == specs[1] == _LETTERS[:len(full)]:
            # every axis summed, two arrays of the product's shape: a dot product (BLAS)
            value, labels = call(["np", "vdot"], *bases), []
        else:
            value, labels = batched_matmul(bases, specs, out) or batched_matmul(
                *_merged(bases, specs, _LETTERS[:len(full)]), out) or (
                call(["np", "einsum"], constant_node(",".join(specs) + "->" + out), *bases),
                list(out))
        if labels != layout:
            value = _arranged(value, labels, layout)
        for number in reversed(numbers):
            value = gast.BinOp(left=clone(number), op=gast.Mult(), right=value)
        for divisor in divisors:
            value = gast.BinOp(left=value, op=gast.Div(), right=clone(divisor))
        return value

    def outside(self, q, full, axes, keepdims):
        """Whether q is the same along the summed axes (so the sum of x / q is sum(x) / q),
        and divides the sum item by item: its shape, right-aligned with full's, broadcasts into
        it with length 1 at every summed axis it has, and has none without keepdims (where the
        sum's axes are the kept ones only, and q's must land on them)."""
        shape = self.shape(q)
        if shape is None:
            return False
        offset = len(full) - len(shape)
        if offset < 0 or (not keepdims and any(axis >= offset for axis in axes)):
            return False
        return all(n == 1 if offset + i in axes else n in (1, full[offset + i])
                   for i, n in enumerate(shape))

    @staticmethod
    def changed_between(value, stmts):
        """Whether a statement between a product's binding and its sum could change what the
        product reads: anything but `name = value` of other names (stores into arrays, in-place
        updates, loops and calls for their effects are all taken as changes)."""
        read = {n.id for n in walk(value) if isinstance(n, gast.Name)}
        for stmt in stmts:
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], gast.Name)
                    and stmt.targets[0].id not in read):
                if not is_comment(stmt):
                    return True
        return False

    def run(self):
        body = self.fdef.body
        self.position = {id(stmt): i for i, stmt in enumerate(body)}
        for index, stmt in enumerate(body):
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], gast.Name)
                    and stmt.targets[0].id in self.derived
                    and stmt.targets[0].id not in self.values):
                continue
            stmt.value = self.rewrite(stmt.value, body, index)
        return self.fdef

    def rewrite(self, node, body, index):
        if isinstance(node, gast.Call):
            found = self.contraction(node, body, index)
            if found is not None:
                self.contracted_any = True
                return found
        for field, value in gast.iter_fields(node):
            if isinstance(value, gast.AST):
                setattr(node, field, self.rewrite(value, body, index))
            elif isinstance(value, list):
                setattr(node, field, [self.rewrite(v, body, index)
                                      if isinstance(v, gast.AST) else v for v in value])
        return node


def _merged(bases, specs, full):
    """The three arrays of a product as two, where two of them have its whole shape: their
    product is formed (an array of the product's shape, but then one np.matmul, 7 us for
    512 x 8 x 4, where einsum of three takes 16). Else (None, None)."""
    whole = [i for i, spec in enumerate(specs) if spec == full]
    if len(bases) != 3 or len(whole) < 2:
        return None, None
    i, j = whole[:2]
    other = 3 - i - j
    return ([gast.BinOp(left=bases[i], op=gast.Mult(), right=bases[j]), bases[other]],
            [full, specs[other]])


def batched_matmul(bases, specs, out):
    """(np.matmul(...), its axes' labels, None for an axis of length 1) for the einsum of two
    arrays, where one label is summed and found in both, and every other label is kept: found
    in both (a batch axis, by which matmul broadcasts) or in one (at most one such label each,
    at least one in all: a matrix-vector or matrix product per batch). None otherwise. matmul
    runs each product through BLAS where einsum loops over every item (64 x 64 x 3, summed
    over a middle axis: 3.6 us against 16; at 256 x 256 x 3, 34 against 230). A batch of dot
    products, with no label free, stays an einsum, which is faster at those."""
    if bases is None or len(bases) != 2:
        return None
    (a, sa), (b, sb) = zip(bases, specs)
    if set(sa) > set(sb):  # the smaller one first: a row vector (1 x n) times n x m (measured)
        (a, sa), (b, sb) = (b, sb), (a, sa)
    summed = [label for label in sa if label in sb and label not in out]
    free_a = [label for label in sa if label not in sb]
    free_b = [label for label in sb if label not in sa]
    if len(summed) != 1 or len(free_a) > 1 or len(free_b) > 1 or not free_a + free_b or (
            not set(free_a + free_b) <= set(out)):
        return None
    batch = [label for label in out if label in sa and label in sb]
    left = _arranged(a, list(sa), batch + (free_a or [None]) + summed)
    right = _arranged(b, list(sb), batch + summed + (free_b or [None]))
    return call(["np", "matmul"], left, right), batch + (free_a or [None]) + (free_b or [None])


def _arranged(value, labels, layout):
    """value, whose axes carry `labels` (None: an axis of length 1), with its axes arranged as
    `layout` asks: axes of length 1 dropped or inserted (a view), the others transposed."""
    if len(labels) == len(layout) and labels.count(None) == layout.count(None) and (
            set(labels) == set(layout)):  # the same axes: one transposition
        units = iter(i for i, label in enumerate(labels) if label is None)
        return _transposed(value, tuple(next(units) if label is None else labels.index(label)
                                        for label in layout))
    if None in labels:  # drop the axes of length 1
        value = _indexed(value, [0 if label is None else _full() for label in labels])
        labels = [label for label in labels if label is not None]
    order = [label for label in layout if label is not None]
    value = _transposed(value, tuple(labels.index(label) for label in order))
    if None in layout:
        value = _indexed(value, [constant_node(None) if label is None else _full()
                                 for label in layout]) if order else call(
            ["np", "reshape"], value, constant_node((1,) * len(layout)))
    return value


def _transposed(value, permutation):
    if permutation == tuple(range(len(permutation))):
        return value
    if permutation == (1, 0):
        return gast.Attribute(value=value, attr="T", ctx=gast.Load())
    return gast.Call(func=gast.Attribute(value=value, attr="transpose", ctx=gast.Load()),
                     args=[constant_node(permutation)], keywords=[])


def _indexed(value, items):
    items = [constant_node(item) if isinstance(item, int) else item for item in items]
    return gast.Subscript(value=value, slice=gast.Tuple(elts=items, ctx=gast.Load()),
                          ctx=gast.Load())


def _full():
    return gast.Slice(lower=None, upper=None, step=None)


def _is_none(node):
    return isinstance(node, gast.Constant) and node.value is None


def _is_full_slice(node):
    return isinstance(node, gast.Slice) and node.lower is None and node.upper is None and (
        node.step is None)


def _view_shape(shape, positions, node):
    """The shape of a unit-axis view of a value shaped `shape` (its axes at `positions`)."""
    if isinstance(node, gast.Subscript):
        ndim = len(node.slice.elts)
    else:
        ndim = len(node.args[1].elts)
    out = [1] * ndim
    for n, position in zip(shape, positions):
        if position is not None:
            out[position] = n
    return tuple(out)


def contract_sums(fdef, facts):
    """The pass (see the module docstring)."""
    contract = Contract(fdef, facts)
    contract.run()
    if not contract.contracted_any:
        facts.unchanged()
    return fdef
