"""common factors (reverse mode, shape-specialized builds): the two contributions of a
quadratic form to its argument's adjoint share their scalar factor; it multiplies their sum once.

    bx = s * t1                         (s: a number, or a name the probe saw as a scalar)
    bt1 = s * x                    ->   bx = s * (t1 + np.dot(x, A))
    bx = bx + np.dot(bt1, A)

The gradient of x^T A x (energies, Gaussian log-densities, least squares) is s * (A x + A^T x);
the chain rule writes it as s * A x plus A^T (s * x): one multiplication of a vector more. The
rewrite applies where an adjoint is first bound to s * X and next (nothing reading or binding it,
or X's names, in between) has s * Y added, or the matrix product of a name bound once to s * v
and read only there (a scalar comes out of a matrix product: np.dot(s * v, A) = s * np.dot(v, A)).
"""
import gast

from ..analysis.shapes import common_char
from ..syntax.naming import bound_counts, clone, loaded_names, names_in, number_value


def _same(a, b):
    if isinstance(a, gast.Name) and isinstance(b, gast.Name):
        return a.id == b.id
    if number_value(a) is not None and number_value(b) is not None:
        return gast.dump(a) == gast.dump(b)
    return False


class Factor:
    def __init__(self, fdef, facts):
        self.fdef = fdef
        self.derived = facts.derived
        self.shape_of_name = facts.shape_of
        self.float_of = facts.float_of  # name -> the probe's float dtype character, or None
        self.counts = facts.binds
        self.loads = facts.loads
        self.defs = {}  # name bound once at the top level -> its value
        self.merged = False  # (whether two contributions became one)

    def scaled(self, value):
        """(s, X) for s * X or X * s with s a number or a scalar name, else None."""
        if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult)):
            return None
        for s, rest in ((value.left, value.right), (value.right, value.left)):
            if number_value(s) is not None or (isinstance(s, gast.Name)
                                              and self.shape_of_name(s.id) == ()):
                return s, rest
        return None

    def contribution(self, value, s):
        """Y with value == s * Y: s * Y itself, or np.dot(u, M) / np.dot(M, u) with u bound once
        to s * v and read only there (then Y is the product with v); else None."""
        scaled = self.scaled(value)
        if scaled is not None and _same(scaled[0], s):
            return scaled[1]
        if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
                and isinstance(value.func.value, gast.Name) and value.func.value.id == "np"
                and value.func.attr in ("dot", "matmul") and len(value.args) == 2
                and not value.keywords):
            return None
        for k, arg in enumerate(value.args):
            if isinstance(arg, gast.Name) and self.loads.get(arg.id) == 1 and arg.id in self.defs:
                inner = self.scaled(self.defs[arg.id])
                if inner is not None and _same(inner[0], s):
                    args = list(value.args)
                    args[k] = clone(inner[1])  # (u's definition still holds it)
                    return gast.Call(func=value.func, args=args, keywords=[])
        return None

    def run(self):
        body = self.fdef.body
        first = {}  # adjoint -> index of its first binding, while nothing has touched it since
        j = 0
        while j < len(body):
            stmt = body[j]
            target = (stmt.targets[0].id if isinstance(stmt, gast.Assign) and len(stmt.targets)
                      == 1 and isinstance(stmt.targets[0], gast.Name) else None)
            start = first.pop(target, None) if target is not None else None
            if start is not None and self.merge(start, j):
                j -= 1  # the first binding went: this statement, and those after it, moved up
                first = {b: i - 1 if i > start else i for b, i in first.items()}
            else:
                names = names_in(stmt)
                # a binding or read of an adjoint, or of a name its first value reads, ends it
                first = {b: i for b, i in first.items()
                         if b not in names and not (names & set(bound_counts(stmt))
                                                    & loaded_names(body[i]))}
                if target is not None and target in self.derived and self.scaled(
                        stmt.value) is not None and target not in loaded_names(stmt):
                    first[target] = j
                if target is not None and self.counts.get(target) == 1:
                    self.defs[target] = stmt.value
            j += 1
        return self.fdef

    def merge(self, i, j):
        """body[i]: b = s * X; body[j]: b = b + E. Whether they became b = s * (X + Y)."""
        body = self.fdef.body
        b = body[i].targets[0].id
        value = body[j].value
        if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)
                and isinstance(value.left, gast.Name) and value.left.id == b):
            return False
        s, x = self.scaled(body[i].value)
        y = self.contribution(value.right, s)
        if y is None or b in loaded_names(gast.Expr(value=y)):
            return False
        if common_char(gast.Tuple(elts=[s, x, y], ctx=gast.Load()), self.float_of) is None:
            return False  # X + Y would round in another dtype than s * X + s * Y
        body[j].value = gast.BinOp(left=s, op=gast.Mult(), right=gast.BinOp(
            left=x, op=gast.Add(), right=y))
        del body[i]
        self.merged = True
        return True


def factor_contributions(fdef, facts):
    """The pass (see the module docstring). facts.float_of(name): the float dtype character of
    name's values, or None (all must agree: one dtype, one rounding)."""
    factor = Factor(fdef, facts)
    factor.run()
    if not factor.merged:
        facts.unchanged()
    return fdef
