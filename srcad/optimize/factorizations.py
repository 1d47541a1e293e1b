"""factorizations (reverse mode, shape-specialized builds): a matrix that the gradient factors
more than once is factored once. numpy's solve, inv, det and slogdet each run LAPACK's LU
factorization of their matrix again; a Gaussian process's gradient solves with K in the
primal, with K^T in the adjoint of that solve, and inverts K for slogdet's adjoint:

    t1 = np.linalg.slogdet(K)                        lu_1 = lu_factors(K)
    alpha = np.linalg.solve(K, y)                    t1 = lu_slogdet(lu_1, K)
    ...                                       ->     alpha = lu_solve(lu_1, K, y, False)
    gb_1 = np.linalg.solve(np.swapaxes(K, -1, -2),   ...
                           solve_column(balpha, y))  gb_1 = lu_solve(lu_1, K, ..., True)
    ... np.linalg.inv(K) ...                         ... lu_inverse(lu_1, K) ...

The helpers (templates/numpy_linalg.py) give numpy's numbers up to rounding: the same LAPACK
routines (getrf, getrs, from SciPy's build of them), the same LinAlgError for a singular matrix where numpy raises one, and numpy's
own functions where SciPy is missing. Each takes the matrix too, and has the templates of the
numpy function it stands for, so the code stays differentiable (lu_factors is a cache). Applies to a float64 square matrix the probe saw, named
by a parameter or a name bound once at the top level and never stored into, where two or more
such calls in top-level statements read it; the factors are made before the first of them.
Where the code returns f's values (value_and_grad, a callee's record), which must be f's to the
bit, the calls that compute them (the primal's: statements that bind no derived name) stay
numpy's: lu_slogdet's sum of logarithms adds in another order than numpy's slogdet (the last
bit of a log-determinant differed), and SciPy's LAPACK may be another build than numpy's.
"""
import gast

from ..analysis.defuse import feeding_values
from ..syntax.naming import number_value, walk
from ..syntax.nodes import assign, call, dotted_parts, name

_CALLS = {("np", "linalg", "solve"): "solve", ("np", "linalg", "inv"): "inv",
          ("np", "linalg", "slogdet"): "slogdet"}
FACTORING = tuple(".".join(parts) for parts in _CALLS)  # (the pass runs where one is called)


def _transposed(node):
    """a for np.swapaxes(a, -1, -2) (the adjoint's transpose) of a name a, else None."""
    if (isinstance(node, gast.Call) and dotted_parts(node.func) == ["np", "swapaxes"]
            and len(node.args) == 3 and isinstance(node.args[0], gast.Name)
            and sorted(number_value(a) or 0 for a in node.args[1:]) == [-2, -1]):
        return node.args[0]
    return None


class Factorizations:
    def __init__(self, fdef, facts):
        self.fdef = fdef
        self.shape_of, self.float_of = facts.shape_of, facts.float_of
        self.binds, self.params, self.fresh_name = facts.binds, facts.params, facts.fresh_name
        self.derived = facts.derived if facts.returns_values else None  # (None: every call)
        self.values = feeding_values(fdef, facts.derived) if facts.returns_values else set()

    def computes_values(self, stmt):
        """Whether a statement computes f's values, which the code returns (see the module
        docstring): it binds no derived name (an adjoint, a template's temporary), or one whose
        value reaches such a statement (analysis/defuse.feeding_values)."""
        if self.derived is None:
            return False
        targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target] if (
            isinstance(stmt, gast.AugAssign)) else []
        bound = [n.id for t in targets for n in walk(t) if isinstance(n, gast.Name)]
        return not any(b in self.derived and b not in self.values for b in bound)

    def use(self, node):
        """(matrix name, what, transposed) for a factoring call of a matrix, else None."""
        if not (isinstance(node, gast.Call) and not node.keywords):
            return None
        what = _CALLS.get(tuple(dotted_parts(node.func) or ()))
        if what is None or len(node.args) != (2 if what == "solve" else 1):
            return None
        matrix, transposed = node.args[0], False
        if what == "solve" and _transposed(matrix) is not None:
            matrix, transposed = _transposed(matrix), True
        if not isinstance(matrix, gast.Name):
            return None
        return matrix.id, what, transposed

    def eligible(self, ident):
        shape = self.shape_of(ident)
        return (shape is not None and len(shape) == 2 and shape[0] == shape[1]
                and self.float_of(ident) == "d"
                and (self.binds.get(ident, 0) == 1 or (ident in self.params
                                                       and not self.binds.get(ident))))

    def run(self):
        body = self.fdef.body
        stored = {n.value.id for n in walk(self.fdef) if isinstance(n, gast.Subscript)
                  and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name)} | {
            n.target.id for n in walk(self.fdef) if isinstance(n, gast.AugAssign)
            and isinstance(n.target, gast.Name)}
        uses = {}  # matrix -> [(statement index, call node, what, transposed)]
        nested = set()  # matrices factored inside loops or branches too: left alone
        for index, stmt in enumerate(body):
            top = not isinstance(stmt, (gast.For, gast.While, gast.If, gast.With, gast.Try))
            if top and self.computes_values(stmt):
                continue
            for node in walk(stmt):
                found = self.use(node)
                if found is None:
                    continue
                ident, what, transposed = found
                if top:
                    uses.setdefault(ident, []).append((index, node, what, transposed))
                else:
                    nested.add(ident)
        inserts = []
        for ident, calls in uses.items():
            if len(calls) < 2 or ident in nested or ident in stored or not self.eligible(ident):
                continue
            factors = self.fresh_name("lu")
            for _, node, what, transposed in calls:  # (each takes the matrix as well: its
                if what == "solve":  # derivatives flow through it, the factors are a cache)
                    new = call(["lu_solve"], name(factors), name(ident), node.args[1],
                               gast.Constant(value=transposed, kind=None))
                elif what == "inv":
                    new = call(["lu_inverse"], name(factors), name(ident))
                else:
                    new = call(["lu_slogdet"], name(factors), name(ident))
                node.func, node.args, node.keywords = new.func, new.args, []
            inserts.append((calls[0][0], assign(factors, call(["lu_factors"], name(ident)))))
        for index, stmt in sorted(inserts, key=lambda pair: -pair[0]):
            body.insert(index, stmt)
        return self.fdef


def share_factorizations(fdef, facts):
    """The pass (see the module docstring)."""
    return Factorizations(fdef, facts).run()
