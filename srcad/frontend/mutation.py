"""mutation fence: refuse writes into arrays srcad cannot model.

srcad treats every name as holding a value. NumPy arrays are objects that several names, views
and containers can share, so a write into one (`y[i] = v`, `y += v` on an array, `y.sort()`)
may change what other names hold without any assignment to them. srcad models a write into an
array only when nothing else that is read afterwards can see that array: the array was made by
the function (arithmetic, `np.zeros`, `x.copy()`, ...), and no other name, view or container
read later shares it. Everything else is refused here, at the user's line:

    y = x.copy()
    v = y[1:]            # v is a view of y
    v += x[:-1]          ->  SrcadError: `v += ...` writes into an array that y shares
    return np.sum(y)

    x[0] = 1.0           ->  SrcadError: a store into an argument (the caller's array)
    np.add.at(y, i, x)   ->  SrcadError: np.add.at writes into y in place

The analysis is a may-point-to analysis over the ANF form, flow-sensitive (a rebinding makes a
new object; a branch joins; a loop iterates to a fixed point), with liveness: a name that shares
storage with the written array matters only if it is read after the write. Its summary (which
names may share storage) tells the reverse pass which restores of stored arrays views depend on.

    y = x.copy(); t1 = y[1:]; t3 = t1 * t2; y[1:] = t3
    (t1 is a view of y: the adjoint of t3 = t1 * t2 reads y's old values through it, so the store
     must be undone before it, even where the adjoint reads y itself only for its shape)
"""
import builtins
import collections.abc
import functools
import inspect
import io
import random
import types

import gast
import numpy as np

from .parse import parse_function
from .resolve import canonical_name
from ..runtime import HELPERS
from ..syntax.naming import loaded_names, walk_breadth
from ..syntax.nodes import call, flatten, name as load, parameter_ids, SHAPE_ATTRIBUTES

OUTSIDE = "outside"  # storage of globals, closure cells and what unknown calls return

# numpy functions whose result may share memory with their first argument
VIEWS = {f"numpy.{name}" for name in (
    "reshape", "ravel", "transpose", "squeeze", "expand_dims", "swapaxes", "moveaxis",
    "rollaxis", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray",
    "asarray_chkfinite", "require", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to",
    "broadcast_arrays", "diagonal", "diag", "real", "imag", "flip", "fliplr", "flipud", "rot90",
    "split", "array_split", "hsplit", "vsplit", "dsplit", "unstack", "matrix_transpose",
    "permute_dims", "squeeze")}

# numpy functions that write into an argument (ufunc methods such as np.add.at: below)
WRITERS = {f"numpy.{name}": hint for name, hint in (
    ("copyto", "assign a new array: y = np.where(mask, src, y), or y = src.copy()"),
    ("put", "use a store: y.flat[idx] = v on a copy, or y = np.where(...)"),
    ("place", "use a store into a copy: y[mask] = v"),
    ("putmask", "use a store into a copy: y[mask] = v, or y = np.where(mask, v, y)"),
    ("fill_diagonal", "add a diagonal: y = y + np.diag(v - np.diag(y))"),
    ("put_along_axis", "build the array with np.where or a store into a copy"),
)}
WRITERS["numpy.random.shuffle"] = "use a permutation: y = y[rng.permutation(len(y))]"

# methods of arrays (and lists) that write into them
WRITING_METHODS = {
    "sort": "y = np.sort(y)", "fill": "y = np.full_like(y, v)", "resize": "y = np.resize(y, n)",
    "put": "a store into a copy", "itemset": "a store: y[i] = v", "partition": "np.partition",
    "setfield": "a new array", "byteswap": "a new array", "reverse": "y = y[::-1]",
    "extend": "y = y + list(...)", "insert": "build a new list", "remove": "build a new list",
    "clear": "y = []", "update": "build a new dict", "setdefault": "build a new dict",
    "popitem": "build a new dict", "shuffle": "y = y[rng.permutation(len(y))]",
}

# every method that changes its object: the writers above and the list ops srcad follows
# inside a function (append, pop), which change a list another function holds
CHANGING_METHODS = frozenset(WRITING_METHODS) | {"append", "pop"}

# the special methods behind y[i] = v, del y[i], y.a = v and y += v, called by name
IN_PLACE_SPECIALS = frozenset({"__setitem__", "__delitem__", "__setattr__", "__delattr__"} | {
    f"__i{op}__" for op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow",
                            "lshift", "rshift", "and", "xor", "or")})

# the types whose writing methods (WRITING_METHODS, IN_PLACE_SPECIALS) a call may reach through
# a global or a closure cell: arrays (y.fill(v), y.__setitem__(i, v)), and generators whose
# shuffle permutes its argument in place (rng.shuffle(y), random.shuffle(items))
WRITTEN_OBJECTS = (np.ndarray, np.random.Generator, np.random.RandomState, random.Random)


def writing_method(op, name):
    """Whether op, what a call's function resolves to (a bound method y.fill of a global array,
    random.shuffle, np.ndarray.fill itself), writes into its object or its argument: its name
    is one of WRITING_METHODS or IN_PLACE_SPECIALS and it belongs to one of WRITTEN_OBJECTS.
    (The probe puts back the items of lists, dicts and sets, and the attributes of the user's
    objects, but not the items of an array: a write into a global array would happen twice on
    the first call, and a permutation of an array f differentiates is not differentiated.)"""
    if name not in WRITING_METHODS and name not in IN_PLACE_SPECIALS:
        return False
    owner = getattr(op, "__self__", None)
    if owner is None or isinstance(owner, type):  # (an unbound one: np.ndarray.fill)
        owner = getattr(op, "__objclass__", None) or owner
        return isinstance(owner, type) and issubclass(owner, WRITTEN_OBJECTS)
    return isinstance(owner, WRITTEN_OBJECTS)


def changed_root(node):
    """The name whose value node may change in place, or None: p += v, p[i] = v, p.x = v,
    p.append(v), p.sort() (a method of CHANGING_METHODS)."""
    if isinstance(node, gast.AugAssign):
        target = node.target
    elif isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(node.ctx, gast.Store):
        target = node.value
    elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and (
            node.func.attr in CHANGING_METHODS):
        target = node.func.value
    else:
        return None
    while isinstance(target, (gast.Subscript, gast.Attribute)):
        target = target.value
    return target.id if isinstance(target, gast.Name) else None

# builtins whose result is a new object not sharing storage with the arguments
_NEW_BUILTINS = {"abs", "len", "float", "int", "round", "range", "bool", "sum", "pow",
                 "divmod", "complex", "isinstance", "print", "repr", "str", "hash", "id"}


# numpy functions that may return a list (of arrays), or an object array of what they are given
_LISTS = ("split", "meshgrid", "broadcast_arrays", "atleast", "numpy.array", "numpy.asarray",
          "unique", "nonzero", "where", "gradient", "histogram", "linalg")


def _new(site):
    return frozenset({("new", site)})


def _external(objects):
    return {o for o in objects if o == OUTSIDE or o[0] == "param"}


class _Facts:
    """The points-to state: name -> frozenset of abstract objects, ("new", site) for storage
    made at a statement, ("param", name) for an argument's, OUTSIDE for the rest. A block
    updates its state in place (a branch and a loop body run on a copy); bound: the names set
    since the state was made, so that joining a branch or a loop body back costs the names it
    bound, not the whole table (which made a function of many loops quadratic)."""

    def __init__(self, table=None):
        self.table = dict(table or {})
        self.bound = set()

    def copy(self):
        return _Facts(self.table)

    def set(self, name, objects):
        self.table[name] = objects
        self.bound.add(name)

    def join_into(self, *states):
        """This state becomes the join of the states, copies of it that went on (each name
        holds what it holds in any of them: a name none of them bound keeps its value here);
        returns whether a name's objects changed."""
        changed = False
        empty = frozenset()
        for name in set().union(*(state.bound for state in states)):
            objects = empty.union(*(state.table.get(name, empty) for state in states))
            if self.table.get(name) != objects or name not in self.table:
                changed = True
            self.set(name, objects)
        return changed


def _copy_groups(body):
    """name -> a representative of the names joined to it by copies `a = b` anywhere in the
    body (two names of one group may be two names for one list)."""
    parent = {}

    def find(n):
        while parent.get(n, n) != n:
            n = parent[n]
        return n
    for stmt in flatten(body):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name):
            parent[find(stmt.targets[0].id)] = find(stmt.value.id)
    return {n: find(n) for n in parent} | {find(n): find(n) for n in parent}


class MutationFence:
    """Checks the writes of an ANF function body; `shares` then maps each name to the names that
    may share its storage (for reverse.resolve_saves)."""

    def __init__(self, fdef, scope, info):
        self.fdef = fdef
        self.scope = scope
        self.info = info
        self.live = {}  # id(stmt) -> names read after it
        self.seen = {}  # name -> every object it may hold somewhere
        self.sites = {}
        self.values = {}  # name -> the value it was last bound to (ANF temporaries: once)
        self.arrays = set()  # objects made by numpy calls: arrays, which copy stores (a set,
        # added to in place: a new frozenset per numpy call was quadratic)
        self.updates = {}  # id(stmt) -> (stmt, the operand, its objects, the parameters whose
        # objects names read afterwards may hold): updates in place (y += e) of what may be an
        # argument's or an outside array (_insert_update_checks)

    # liveness -----------------------------------------------------------------------------
    def liveness(self, stmts, live):
        """Record, backwards, the names read after each statement the checks ask about
        (needs_live); returns the names live before the block. (The set is updated in place
        and copied only for those statements: a copy for every statement was quadratic in a
        function with many names live at once.)"""
        live = set(live)
        for stmt in reversed(stmts):
            if self.needs_live(stmt):
                self.live[id(stmt)] = set(live)
            if isinstance(stmt, gast.If):
                live = (self.liveness(stmt.body, live) | self.liveness(stmt.orelse, live)
                        | loaded_names(stmt.test))
            elif isinstance(stmt, (gast.For, gast.While)):
                header = loaded_names(stmt.iter if isinstance(stmt, gast.For) else stmt.test)
                inner = set(live) | header
                while True:  # what the body reads may be read again on the next turn
                    again = self.liveness(stmt.body, inner) | inner
                    if again == inner:
                        break
                    inner = again
                live = inner
            elif isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
                live.discard(stmt.targets[0].id)
                live |= loaded_names(stmt.value)
            else:
                live |= loaded_names(stmt)
        return live

    def needs_live(self, stmt):
        """Whether a check asks which names are read after stmt (sharing): stores into arrays,
        in-place updates, expression statements (lst.append), and calls of functions that are
        not the libraries' (the user's may update their arguments)."""
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
            return True
        if getattr(stmt, "augmented", None) is not None:
            return True
        if isinstance(stmt.value, gast.Call):
            op = self.scope.lookup(stmt.value.func, unwrap=False)  # (not a srcad
            # derivative's function: looking at that may build it)
            return op is None or canonical_name(op) is None
        return False

    # what a value may point to ------------------------------------------------------------
    def site(self, node):
        return self.sites.setdefault(id(node), len(self.sites))

    def points(self, node, facts):
        if isinstance(node, gast.Name):
            found = facts.table.get(node.id)
            return found if found is not None else frozenset({OUTSIDE})
        if isinstance(node, (gast.Constant, gast.BinOp, gast.UnaryOp, gast.Compare)):
            return _new(self.site(node))
        if isinstance(node, gast.BoolOp):  # `a or b` is one of them
            return frozenset().union(*(self.points(v, facts) for v in node.values))
        if isinstance(node, gast.Subscript):  # an item or a view of the base (or a copy)
            return self.points(node.value, facts)
        if isinstance(node, gast.Attribute):
            if node.attr in SHAPE_ATTRIBUTES:
                return _new(self.site(node))
            if self.scope.lookup(node) is not None and self.library(node):
                return _new(self.site(node))  # np.pi
            return self.points(node.value, facts)  # obj.W: part of obj
        if isinstance(node, (gast.Tuple, gast.List)):  # a container holds references
            return _new(self.site(node)).union(*(self.points(e, facts) for e in node.elts))
        if isinstance(node, gast.Call):
            return self.points_of_call(node, facts)
        return _new(self.site(node))

    def library(self, node):
        value = self.scope.lookup(node)
        return value is not None and canonical_name(value) is not None

    def points_of_call(self, node, facts):
        args = list(node.args) + [kw.value for kw in node.keywords]
        of_args = frozenset().union(*(self.points(a, facts) for a in args)) if args else (
            frozenset())
        op = self.scope.lookup(node.func)
        name = canonical_name(op) if op is not None else None
        if name is not None:
            if name in VIEWS or (name in ("numpy.array", "numpy.asarray") and any(
                    kw.arg == "copy" for kw in node.keywords)):
                return self.points(node.args[0], facts) if node.args else of_args
            made = _new(self.site(node))
            if name.startswith("numpy.") and not any(word in name for word in _LISTS):
                self.arrays |= made  # (np.zeros, np.empty, np.copy, ...: an array, not a list)
            return made
        if op is not None and getattr(builtins, getattr(op, "__name__", ""), None) is op:
            if op.__name__ in _NEW_BUILTINS:
                return _new(self.site(node))
            return _new(self.site(node)) | of_args  # list(x), max(a, b), zip(...)
        if op is not None and op.__name__ in _FRESH_HELPERS and HELPERS.get(op.__name__) is op:
            return _new(self.site(node))  # (desugar's: a copy of y, a number)
        if op is None and isinstance(node.func, gast.Attribute):  # a method: lst.pop(), ...
            return _new(self.site(node)) | self.points(node.func.value, facts) | of_args
        return of_args | {OUTSIDE}  # a user function may return what it was given, or a global

    # statements ---------------------------------------------------------------------------
    def run(self, params, check=True):
        self.liveness(self.fdef.body, set())
        self.copied = _copy_groups(self.fdef.body)
        facts = _Facts({p: frozenset({("param", p)}) for p in params})
        self.block(self.fdef.body, facts, check=check)
        return self

    def block(self, stmts, facts, check):
        for stmt in stmts:
            facts = self.statement(stmt, facts, check)
        return facts

    def statement(self, stmt, facts, check):
        """The state after stmt: facts, updated in place."""
        if isinstance(stmt, gast.If):
            facts.join_into(self.block(stmt.body, facts.copy(), check),
                            self.block(stmt.orelse, facts.copy(), check))
            return facts
        if isinstance(stmt, (gast.For, gast.While)):
            entry = facts.copy()
            if isinstance(stmt, gast.For) and isinstance(stmt.target, gast.Name):
                entry.set(stmt.target.id, _new(self.site(stmt)))  # a range loop's int
            while True:  # the state at the head of the loop, to a fixed point
                if not entry.join_into(entry, self.block(stmt.body, entry.copy(), check=False)):
                    break
            entry.join_into(entry, self.block(stmt.body, entry.copy(), check))
            facts.join_into(entry)  # (what the loop bound, as the loop leaves it)
            return facts
        if isinstance(stmt, gast.Assign):
            target = stmt.targets[0]
            if isinstance(target, gast.Subscript):
                if check:
                    self.check_store(stmt, target.value.id, facts)
                held = facts.table.get(target.value.id, frozenset())
                if held and held <= self.arrays:  # into an array numpy made: values copied
                    return facts
                stored = self.points(stmt.value, facts)  # (a list keeps a reference)
                return self.bind(facts, target.value.id, held | stored)
            if check and getattr(stmt, "augmented", None) is not None:
                self.check_in_place(stmt, facts)
            if check and isinstance(stmt.value, gast.Call):
                self.check_writing_method(stmt.value)
                self.check_helper_writes(stmt.value, stmt, facts)
            self.values[target.id] = stmt.value
            return self.bind(facts, target.id, self.points(stmt.value, facts))
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
            return self.call_statement(stmt, facts, check)
        return facts

    def bind(self, facts, name, objects):
        """facts with name bound to objects, updated in place: a block's facts are its own (a
        branch or a loop body runs on a copy), and a copy per binding made the fence quadratic
        in the length of the function."""
        facts.set(name, frozenset(objects))
        self.seen[name] = self.seen.get(name, frozenset()) | objects
        return facts

    def sharing(self, stmt, name, objects, facts):
        """The function's names other than `name`, read after stmt, that may share storage with
        `objects`. (Free names such as np or a global read directly are not the function's: a
        write into what they hold is refused as a write into an array it did not make.)"""
        return sorted(n for n in self.live.get(id(stmt), ()) if n != name
                      and facts.table.get(n, frozenset()) & objects)

    def check_store(self, stmt, name, facts):
        objects = facts.table.get(name, frozenset({OUTSIDE}))
        outside = _external(objects)
        if outside:
            what = "an argument" if any(o != OUTSIDE for o in outside) else (
                "an array it did not make (a global, a closure variable, or what a function "
                "returned)")
            raise self.info.error(stmt.targets[0], f"this store writes into {name}, which may be "
                                                   f"{what}: srcad differentiates stores into "
                                                   f"arrays the function makes itself",
                                  hint=f"store into a copy: {name} = {name}.copy() first (a "
                                       f"derivative call never changes its arguments)")
        others = self.sharing(stmt, name, objects, facts)
        if others:
            raise self.info.error(stmt.targets[0], f"this store writes into {name}, and "
                                                   f"{', '.join(others)} (read afterwards) may "
                                                   f"share its memory (a view, or another name "
                                                   f"for the same array): srcad does not model "
                                                   f"writes seen through another name",
                                  hint=f"take a copy where the other name is made "
                                       f"({others[0]} = ....copy()), or store through one name")

    def check_in_place(self, stmt, facts):
        """`y += e` (desugared to y = y + e): in Python, on an array, a write into y's array.
        After ANF the statement is y_1 = y + e, or t = y + e; y = t in a loop."""
        value, target = stmt.value, stmt.targets[0].id
        if isinstance(value, gast.Name):  # t = y + e; y_1 = t: the operation is t's
            value = self.values.get(value.id, value)
        operand = value.left.id if isinstance(value, gast.BinOp) and isinstance(
            value.left, gast.Name) else target
        objects = facts.table.get(operand, frozenset({OUTSIDE}))
        if _external(objects):  # (whether another input shares it: known only at run time)
            read = set().union(*(facts.table.get(n, ()) for n in self.live.get(id(stmt), ())
                                 if n != target))
            self.updates[id(stmt)] = stmt, operand, objects, {
                o[1] for o in read if o != OUTSIDE and o[0] == "param"}
        others = [n for n in self.sharing(stmt, operand, objects, facts) if n != target]
        if others:
            symbol = _SYMBOLS.get(stmt.augmented, "op")
            raise self.info.error(stmt, f"`{operand} {symbol}= ...` writes into the array "
                                        f"{operand} holds, and {', '.join(others)} (read "
                                        f"afterwards) may share it (a view, or another name for "
                                        f"the same array): srcad does not model writes seen "
                                        f"through another name",
                                  hint=f"write {operand} = {operand} {symbol} ... (a new array), "
                                       f"or write into the array itself (y[1:] {symbol}= ...)")

    def call_statement(self, stmt, facts, check):
        call = stmt.value
        func = call.func
        if (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                and func.value.id in facts.table and func.attr in ("append", "pop")):
            holder = func.value.id
            others = [n for n in self.live.get(id(stmt), ()) if n != holder and self.copied.get(
                n, n) == self.copied.get(holder, holder) and facts.table.get(n, frozenset())
                & facts.table[holder]] if check else []
            if others:  # (the derivative's list of tangents or adjoints is the holder's alone)
                raise self.info.error(call, f"{holder}.{func.attr}(...) changes the list "
                                            f"{holder} holds, and {', '.join(others)} (read "
                                            f"afterwards) may be another name for it: srcad "
                                            f"does not model changes seen through another name",
                                      hint="use one name for the list, or bind the second "
                                           "name to a copy, list(...), where it is bound")
            if func.attr == "append" and call.args:  # the list keeps a reference
                return self.bind(facts, holder, facts.table[holder] | self.points(call.args[0],
                                                                                  facts))
            return facts
        if not check:
            return facts
        op = self.scope.lookup(func)
        name = canonical_name(op) if op is not None else None
        ufunc_method = isinstance(getattr(op, "__self__", None), np.ufunc)
        if name in WRITERS or ufunc_method:
            label = name.replace("numpy.", "np.") if name else f"np.{op.__self__.__name__}." \
                                                               f"{op.__name__}"
            hint = WRITERS.get(name) or ("build the result as a new array (np.add.at(y, idx, "
                                         "v) into an array y the function made, by its name, "
                                         "is differentiated)")
            raise self.info.error(call, f"{label} writes into its argument in place: srcad "
                                        f"does not differentiate in-place calls", hint=hint)
        if isinstance(func, gast.Attribute) and op is None:
            hint = WRITING_METHODS.get(func.attr, "assign the result of a function that returns "
                                                  "a new array")
            raise self.info.error(call, f"a call of the method .{func.attr}() whose result is not "
                                        f"used may change its object in place: srcad does not "
                                        f"differentiate such calls", hint=hint)
        self.check_writing_method(call)
        self.check_helper_writes(call, stmt, facts)
        return facts

    def check_writing_method(self, call):
        """A call of an array's (or a generator's) writing method that srcad resolves through a
        global or a closure cell (buf.fill(v), buf.__setitem__(i, v), rng.shuffle(y)), whether
        its result is used or not: refused (mutation.writing_method)."""
        func = call.func
        op = self.scope.lookup(func)
        name = func.attr if isinstance(func, gast.Attribute) else getattr(op, "__name__", None)
        if name is None or not writing_method(op, name):
            return
        shown = f".{name}()" if isinstance(func, gast.Attribute) else f"{name}()"
        raise self.info.error(call, f"the call of {shown} writes into an array in place (its "
                                    f"object's, or its argument's): srcad does not "
                                    f"differentiate in-place calls",
                              hint=WRITING_METHODS.get(name, "assign a new array: y = y + v, "
                                                             "or a store into a copy"))

    def check_helper_writes(self, call, stmt, facts):
        """A call of a function of the user's that changes an argument (b[0] = v, b += v):
        refused, whether its result is used or not; except where it only updates parameters
        (b -= v) into arrays this function made, that nothing read after the call can see
        (no name, view or other argument of the call shares them): srcad differentiates the
        helper's update as a new value (b = b - v), which is what the call computes then."""
        op = self.scope.lookup(call.func)
        own = getattr(op, "__name__", "")
        writes = op is not None and canonical_name(op) is None and getattr(
            builtins, own, None) is not op and HELPERS.get(own) is not op and _writes_parameters(
            op)  # (a runtime helper, in generated code differentiated again, has templates)
        if writes and not self._unseen_updates(op, call, stmt, facts):
            where = f" (line {writes.lineno}: {writes.text})" if isinstance(writes, _Write) else ""
            raise self.info.error(call, f"{getattr(op, '__qualname__', op)} changes an argument "
                                        f"in place{where}: srcad does not "
                                        f"differentiate calls that change their arguments",
                                  hint="return the new value from the helper and assign it "
                                       "(b = b + v, not b += v; self.h = v: return v)")

    def _unseen_updates(self, op, call, stmt, facts):
        """Whether op only updates parameters in place (p += v) and each array the call passes
        for one is storage this function made that nothing read after stmt shares, nor another
        argument of the call."""
        updated = _updated_parameters(op)
        if not updated or any(isinstance(a, gast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            return False
        try:
            bound = inspect.signature(op).bind(*call.args, **{k.arg: k.value
                                                              for k in call.keywords})
        except (TypeError, ValueError):
            return False
        arguments = bound.arguments
        rebound = {t.id for t in getattr(stmt, "targets", ()) if isinstance(t, gast.Name)}
        for param in updated:
            argument = arguments.get(param)
            if isinstance(argument, gast.Constant):
                continue  # (a number: an update makes a new one)
            if not isinstance(argument, gast.Name):
                return False  # (a default: the helper would change it for later calls)
            objects = facts.table.get(argument.id, frozenset({OUTSIDE}))
            if _external(objects) or set(self.sharing(stmt, None, objects, facts)) - rebound:
                return False  # (an argument's or a global's storage; or seen afterwards: not
                # through the names this statement binds anew)
            for other, value in arguments.items():
                if other != param and isinstance(value, gast.Name) and (
                        facts.table.get(value.id, frozenset({OUTSIDE})) & objects):
                    return False  # (the helper would see its update through the other)
        return True


_SYMBOLS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
            gast.FloorDiv: "//", gast.Mod: "%", gast.MatMult: "@", gast.BitAnd: "&",
            gast.BitOr: "|", gast.BitXor: "^", gast.LShift: "<<", gast.RShift: ">>"}


def _updated_parameters(func):
    """The parameters func changes in place only by updates of the parameter itself (p += v,
    which srcad differentiates as p = p + v), or None if it changes one otherwise (a store, a
    writing method); read from its source."""
    try:
        fdef, _ = parse_function(func)
    except Exception:
        return None
    params = set(parameter_ids(fdef))
    updated = set()
    for node in walk_breadth(fdef):
        if isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not fdef:
            return None  # (a nested function's writes are not followed here)
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) and (
                node.target.id in params):
            updated.add(node.target.id)
    return updated if updated and not _writes_parameters(func, updates=False) else None


# methods whose result may be their object's storage: a view of it, or an item it holds
_SHARING_METHODS = frozenset({
    "reshape", "ravel", "view", "transpose", "swapaxes", "squeeze", "diagonal", "get", "values",
    "items", "setdefault", "pop", "popitem", "__getitem__"})
# builtins whose result is, or yields, the items of their arguments
_SHARING_BUILTINS = frozenset({"iter", "reversed", "zip", "enumerate", "getattr", "next", "max",
                               "min", "list", "tuple", "sorted"})
# numpy functions that write into their first argument (WRITERS, by attribute name) or, as
# runtime helpers the frontend writes into the function that return a new value: added_at (a
# copy of y, frontend/desugar.py's np.add.at) and scalar_of (x.item(): a number)
_FRESH_HELPERS = frozenset({"added_at", "scalar_of"})
# ufunc methods, into the first argument of .at (np.add.at(y, i, v))
_WRITER_NAMES = frozenset(name.rsplit(".", 1)[1] for name in WRITERS) | {"at"}
_VIEW_NAMES = frozenset(name.rsplit(".", 1)[1] for name in VIEWS)


def _stored_roots(target):
    """The names whose storage a target writes into: y for y[i] = v and y.a[i] = v, each item's
    for a tuple or list target (y[i], y[j] = y[j], y[i]); None for a store into an expression
    (f()[i] = v)."""
    if isinstance(target, (gast.Tuple, gast.List)):
        return [root for item in target.elts for root in _stored_roots(item)]
    if isinstance(target, gast.Starred):
        return _stored_roots(target.value)
    if isinstance(target, (gast.Subscript, gast.Attribute)):
        return [changed_root(target)]
    return []


def _shares(value, names):
    """Whether the value of an expression may be (or hold, or view) the storage of one of names:
    a name, an item, attribute or view of one (numpy's view functions, x.reshape, d.get), a
    container holding one, or what zip, enumerate, list, ... give of one. Arithmetic and other
    calls make new values (a helper that returns its own argument is not followed)."""
    if isinstance(value, gast.Name):
        return value.id in names
    if isinstance(value, (gast.Subscript, gast.Attribute, gast.Starred)):
        return _shares(value.value, names)
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Constant)):
        return False
    if isinstance(value, gast.Call):
        func = value.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and (
                func.value.id in ("np", "numpy")):
            return func.attr in _VIEW_NAMES and any(_shares(a, names) for a in value.args)
        if isinstance(func, gast.Attribute):
            return func.attr in _SHARING_METHODS and _shares(func.value, names)
        if isinstance(func, gast.Name) and func.id in _SHARING_BUILTINS:
            return any(_shares(a, names) for a in value.args)
        return False
    return any(_shares(child, names) for child in gast.iter_child_nodes(value)
               if isinstance(child, gast.expr))


def _parameter_holders(fdef, params):
    """The parameters and the names that may hold their storage (b = a, row = a[i], v = a.T,
    for row in a, b, c = a, d), to a fixed point, over the whole function."""
    bindings = []  # (the names a binding binds, the value it binds them from)
    for node in walk_breadth(fdef):
        if isinstance(node, gast.Assign):
            bindings += [(_bound_names(t), node.value) for t in node.targets]
        elif isinstance(node, (gast.For, gast.comprehension)):
            bindings.append((_bound_names(node.target), node.iter))
        elif isinstance(node, gast.withitem) and node.optional_vars is not None:
            bindings.append((_bound_names(node.optional_vars), node.context_expr))
    holders = set(params)
    while True:
        more = {n for names, value in bindings if _shares(value, holders) for n in names}
        if more <= holders:
            return holders
        holders |= more


def _bound_names(target):
    """The plain names a binding target binds (x, and a, b of (a, b) = ...)."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, (gast.Tuple, gast.List)):
        return [n for item in target.elts for n in _bound_names(item)]
    if isinstance(target, gast.Starred):
        return _bound_names(target.value)
    return []


class _Write:
    """Where a helper writes into a parameter's storage (truthy): its line number and text."""

    def __init__(self, node, info):
        self.lineno = getattr(node, "lineno", None) or info.first_line  # (the file's lines)
        self.text = (info.line(self.lineno) or "").strip()


def _writes_parameters(func, updates=True):
    """Where a user function may write into the storage of one of its parameters (a _Write), or
    None: a store (y[i] = v, y.a = v, a tuple target's items), a writing method (y.fill(v),
    y.__setitem__), out=, np.copyto and the other WRITERS, np.add.at, through the parameter or
    any name that may hold its storage (_parameter_holders); or an update of one in place
    (b += e writes into the caller's array when b is one). Read from its source; None when
    there is none to read."""
    try:
        fdef, info = parse_function(func)
    except Exception:
        return None
    params = set(parameter_ids(fdef))
    holders = _parameter_holders(fdef, params)
    writing = frozenset(WRITING_METHODS) | IN_PLACE_SPECIALS | {"append", "pop"}
    for node in walk_breadth(fdef):
        if updates and isinstance(node, gast.AugAssign) and isinstance(
                node.target, gast.Name) and node.target.id in params:
            return _Write(node, info)
        if isinstance(node, (gast.Assign, gast.AugAssign)):
            for target in node.targets if isinstance(node, gast.Assign) else [node.target]:
                if any(root is None or root in holders for root in _stored_roots(target)):
                    return _Write(node, info)
        if isinstance(node, gast.Call):
            func_node = node.func
            if isinstance(func_node, gast.Attribute) and func_node.attr in writing and (
                    _shares(func_node.value, holders)):
                return _Write(node, info)
            if isinstance(func_node, gast.Attribute) and func_node.attr in _WRITER_NAMES and (
                    node.args and _shares(node.args[0], holders)):
                return _Write(node, info)
            if any(k.arg == "out" and _shares(k.value, holders) for k in node.keywords):
                return _Write(node, info)
    return None


def check_outside_iterators(fdef, scope, info):
    """Refuse reading an iterator the function does not make (a global or closure generator,
    itertools.count(), a data loader's iterator): next(batches), for b in batches,
    zip(batches, ...), a helper given it. Any use takes items from it, and srcad runs the
    function more than once for one derivative call at times (the first call's shape probe,
    verify mode's reference, a Jacobian's rows): an iterator cannot be put back as it was, so
    each run would take the next item, and the first gradient would be another item's than the
    value's."""
    for node in walk_breadth(fdef):
        if not (isinstance(node, gast.Name) or isinstance(node, gast.Attribute) and isinstance(
                node.value, gast.Name)) or not isinstance(node.ctx, gast.Load):
            continue
        found = scope.lookup(node)
        if isinstance(found, collections.abc.Iterator) and not isinstance(found, io.IOBase):
            # (a file is an iterator of its lines, but written to, print(v, file=log), it is
            # a file: srcad does not put files back, as the README says)
            raise info.error(node, "this reads an iterator the function does not make, which "
                                   "gives the next item each time it is read: srcad may run "
                                   "the function more than once for one derivative call (the "
                                   "first call's shape probe, verify mode, the rows of a "
                                   "Jacobian), and each run would take another item",
                             hint="take the item before the call and pass it in as an argument "
                                  "(loss(w, next(batches)))")


def check_mutations(fdef, scope, info, params):
    """Raise SrcadError at the first write srcad cannot model; return name -> the names that may
    share its storage somewhere in the function. (srcad's own generated code, differentiated
    again for Hessians, writes only into arrays it owns, by construction (inplace.py): it is
    not checked, only summarized.)"""
    generated = hasattr(scope.func, "__srcad_sync__")
    fence = MutationFence(fdef, scope, info).run(params, check=not generated)
    if fence.updates:
        _insert_update_checks(fdef, fence.updates, scope, info)
    holders = {}  # object -> the names that may hold it (one pass, not one per pair of names)
    for name, objects in fence.seen.items():
        for o in objects:
            holders.setdefault(o, []).append(name)
    shares = {}
    for name, objects in fence.seen.items():
        shares[name] = {other for o in objects for other in holders[o] if other != name}
    return shares


def _insert_update_checks(fdef, updates, scope, info):
    """Before each update in place (y += e) of what may be an argument's array or an outside
    one, a check that no other input of f shares it (runtime.check_own_update): f's other
    arguments that names read after the update may hold, and the arrays, lists, dicts and
    objects it reads from globals and closures.
    The fence sees names, not objects: two arguments may be one array (f(x, x)), a local may
    hold a global array (w = W; w += g, which Python writes into W). In Python the other name
    sees the update; the derivative computes y + e as a new value (it writes into no array it
    was given), which is f's value only where nothing else holds that storage."""
    args = fdef.args
    params = [a.id for a in args.posonlyargs + args.args + [args.vararg] + args.kwonlyargs
              + [args.kwarg] if a is not None]
    free = []
    for name in sorted(scope.user_globals | scope.user_cells):
        found, value = scope.free_value(name)
        if found and _may_hold_arrays(value):
            free.append(name)
    checks = {}
    for key, (stmt, operand, objects, read) in updates.items():
        others = [p for p in params if p in read and ("param", p) not in objects] + [
            n for n in free if n != operand]  # (an argument read only before the update sees
        # f's values; a global's array changed is changed for good: every one f reads)
        if not others:
            continue
        line = getattr(stmt, "lineno", None) or info.first_line
        text = (info.line(line) or "").strip()
        short = info.filename.replace("\\", "/").rsplit("/", 1)[-1]
        where = f"`{text}` ({short}:{line})"  # (a string constant: written escaped)
        check = gast.Expr(value=call(
            ["check_own_update"], load(operand),
            gast.Tuple(elts=[load(n) for n in others], ctx=gast.Load()),
            gast.Tuple(elts=[gast.Constant(value=n, kind=None) for n in others],
                       ctx=gast.Load()),
            gast.Constant(value=where, kind=None)))
        for node in walk_breadth(check):
            gast.copy_location(node, stmt)
        checks[key] = check
    if checks:
        _each_statement(fdef.body, lambda s: [checks[id(s)], s] if id(s) in checks else [s])
        # (known to the passes after this one, the shape probe's namespace among them: resolve
        # ran before, the name is not the user's)
        scope.injected.setdefault("check_own_update", HELPERS["check_own_update"])


def drop_number_update_checks(stmts, kinds):
    """The update checks (_insert_update_checks) of the names the shape probe saw bound to
    numbers (kinds: the probe's), dropped: `s *= k` of a float makes a new float, in Python too
    (code specialized to the arguments keeps the kinds it was built for: the signature keys a
    float by its type, a guard a global's)."""
    def kept(stmt):
        value = stmt.value if isinstance(stmt, gast.Expr) else None
        return [] if (isinstance(value, gast.Call) and isinstance(value.func, gast.Name)
                      and value.func.id == "check_own_update" and kinds.get(
                          getattr(value.args[0], "id", None)) == "scalar") else [stmt]
    _each_statement(stmts, kept)


def _each_statement(stmts, rewrite):
    """The blocks (stmts and the ones nested in them) with each statement replaced by the
    statements rewrite(stmt) gives."""
    out = []
    for stmt in stmts:
        for field in ("body", "orelse"):
            block = getattr(stmt, field, None)
            if isinstance(block, list):
                _each_statement(block, rewrite)
        out += rewrite(stmt)
    stmts[:] = out


def _may_hold_arrays(value):
    """Whether a free value may hold storage f updates in place: an array, a list, tuple or
    dict (their items), an object (its attributes); not a number, string, function, class or
    module."""
    if isinstance(value, (np.ndarray, list, tuple, dict)):
        return True
    return hasattr(value, "__dict__") and not isinstance(value, (
        type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
        types.MethodType, functools.partial))
