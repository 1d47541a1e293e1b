"""Which int and bool arguments of a specialized build have values the build does not read.

A specialized build is keyed by its arguments' signature, which holds the values of ints and
bools, since a value can decide the code: a loop bound the unroller writes out, a shape the
probe records, a branch the probe saw taken. But an int whose value only feeds arithmetic (a
step counter in `lr = 0.1 * 0.99 ** step`, a weight in `k * x`) decides none of that: the code
reads it at run time, whatever it is. For such an argument the API keys the build by type
alone, so a counter that changes every call costs one build, not one per call.

The test runs on the code the probe ran (after ANF and its versioning: each operation is one
statement `t = a op b`). It follows the value through everything computed from it and keeps
it in the key unless every read of the argument, and of each name computed from it, is one of

    t1 = 0.99 ** step         arithmetic with a number or an array: + - * /, a sign, a power
    t2 = np.exp(t1)           a NumPy function of it alone (ONE_OPERAND), np.dot with a number
                              or array
    lr = t2                   a copy
    return out                the output

each of whose results has a type and shape that the value does not change (so the probe's
facts about them hold for every value), and which are followed in turn. Anything else (an
index, a slice, a shape, a test or comparison, a call of another function, a store into a
container, a loop's range) reads the value: it stays in the key. A float computed from the int
must not reach such places either (the build is not correct for every value of a float that
decides a shape). When unsure, the value stays in the key: a rebuild is slow; a build used for
a value it was not correct for would give wrong numbers.

The same holds for the free values the code reads (globals, closure variables, attributes of
them), which no signature keys: value_guards says what the build assumed of each, and the API
checks it at every call (see "What a specialized build assumed", below).
"""
import types

import gast
import numpy as np

from ..syntax.naming import bound_counts, parents, walk
from ..syntax.nodes import dotted_parts, SHAPE_ATTRIBUTES

_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.MatMult)
_SIGNS = (gast.USub, gast.UAdd)
_FLOATS = ("f", "d", "g")  # the probe's dtype characters of float32, float64, longdouble
# NumPy functions of one operand whose result's type and shape the values do not change:
# elementwise (out of their domain: nan, never another type) and whole sums
ONE_OPERAND = frozenset(["exp", "expm1", "log", "log1p", "sqrt", "sin", "cos", "tanh", "sum",
                         "mean"])
# NumPy 2 (NEP 50) takes a Python int's dtype from its type, not its value: k * x has x's
# dtype for every k. NumPy 1 looked at the value (a large int could widen a float32 result),
# so there every value stays in the key.
_WEAK_INTS = int(np.__version__.split(".")[0]) >= 2


def unread_values(fdef, args, kwargs, wrt_names, kinds, floats, read=()):
    """The arguments of the example (positions in args, names in kwargs) that are ints or bools
    whose values the code does not read (see the module docstring). fdef: the function as the
    probe ran it; kinds, floats: the probe's (shapes.probe); wrt_names: the differentiated
    parameters, and read: parameters whose values an earlier pass read (the unroller's loop
    bounds): their values are kept."""
    if not _WEAK_INTS:
        return frozenset()
    counts = bound_counts(fdef)
    slots = _slots(fdef, args, kwargs)
    candidates = {name for name, (slot, value) in slots.items()
                  if type(value) in (int, bool) and name not in wrt_names and name not in read
                  and counts.get(name) == 1}  # (bound once: only as the parameter)
    if not candidates:
        return frozenset()
    ints = {name for name, (slot, value) in slots.items()
            if type(value) in (int, bool) and counts.get(name) == 1}
    reads = _reads(fdef, kinds, floats, ints)
    return frozenset(slots[name][0] for name in candidates if not _value_read(name, reads))


def _slots(fdef, args, kwargs):
    """parameter name -> (its slot: a position in args or a keyword's name, the value given)
    for the parameters the example gives by name (an extra positional argument, packed into
    *args, has none)."""
    positional = [p.id for p in fdef.args.posonlyargs + fdef.args.args]
    slots = {name: (i, value) for i, (name, value) in enumerate(zip(positional, args))}
    by_keyword = {p.id for p in fdef.args.args + fdef.args.kwonlyargs}
    slots.update({name: (name, value) for name, value in kwargs.items() if name in by_keyword})
    return slots


def _reads(fdef, kinds, floats, ints):
    """name -> how the code reads it, one item per read: ("follow", target) for a read whose
    result (see the module docstring) is assigned to the name target, ("return", None) for
    the output, ("other", None) for every other read. ints: the parameters that are ints."""
    parent_of = parents(fdef)
    local = bound_counts(fdef)
    reads = {}
    for node in walk(fdef):
        if type(node) is gast.Name and type(node.ctx) is gast.Load:
            reads.setdefault(node.id, []).append(_how(node, parent_of, kinds, floats, ints,
                                                      local))
    return reads


def _how(node, parent_of, kinds, floats, ints, local):
    """How the statement around a read of a name uses it (see _reads)."""
    parent = parent_of.get(id(node))
    if type(parent) is gast.Return:
        return "return", None
    if _assigns_name(parent) and parent.value is node:
        return "follow", parent.targets[0].id  # a copy
    statement = parent_of.get(id(parent)) if parent is not None else None
    if _assigns_name(statement) and statement.value is parent and (
            _arithmetic(parent, node, kinds, floats, ints)
            or _numpy(parent, node, floats, ints, local)):
        return "follow", statement.targets[0].id
    return "other", None


def _assigns_name(node):
    return (type(node) is gast.Assign and len(node.targets) == 1
            and type(node.targets[0]) is gast.Name)


def _arithmetic(expression, operand, kinds, floats, ints):
    """Whether expression is arithmetic on operand (an int, or a number or array computed from
    one as _reads follows) whose result's type and shape the operand's value does not change:
    a sign; + - * / with a number, a float array or an int parameter (Python's and NumPy's
    arithmetic, not a list's or string's repetition, not a user object's operator); a power
    whose type is the same for every value (an int to an int's power is an int or a float by
    the exponent's sign, and a negative Python float to a float's power a complex)."""
    if type(expression) is gast.UnaryOp:
        return isinstance(expression.op, _SIGNS)
    if type(expression) is not gast.BinOp:
        return False
    other = expression.right if expression.left is operand else expression.left
    if isinstance(expression.op, gast.Pow):
        if expression.left is operand:  # x ** 2: the base's type, for any base
            return type(other) is gast.Constant and type(other.value) is int and (
                other.value >= 0)
        return _float_to_the(other, operand, kinds, floats)
    return isinstance(expression.op, _ARITHMETIC) and _numeric(other, floats, ints)


def _numeric(node, floats, ints):
    """Whether node is an int or float number, a float (or float array), or an int parameter."""
    if type(node) is gast.Constant:
        return type(node.value) in (int, float)
    return type(node) is gast.Name and (floats.get(node.id) in _FLOATS or node.id in ints)


def _float_to_the(base, exponent, kinds, floats):
    """Whether base ** exponent is a float (or a float array) for every exponent: a float
    array's power is one; a float's is one if the base is not negative or the exponent not a
    float (0.99 ** step)."""
    whole = type(exponent) is gast.Name and kinds.get(exponent.id) == "scalar" and (
        exponent.id not in floats)  # an int (or a NumPy scalar that is no float32/64)
    if type(base) is gast.Constant:
        return type(base.value) is float and (base.value >= 0 or whole)
    if type(base) is not gast.Name or floats.get(base.id) not in _FLOATS:
        return False
    return kinds.get(base.id) == "array" or whole


def _numpy(expression, operand, floats, ints, local):
    """Whether expression is np.f(operand) for f in ONE_OPERAND, or np.dot of operand and a
    number or array (_numeric), without keywords (np is NumPy: not a local name)."""
    if not (type(expression) is gast.Call and not expression.keywords
            and type(expression.func) is gast.Attribute
            and type(expression.func.value) is gast.Name and expression.func.value.id == "np"
            and "np" not in local):
        return False
    args, name = expression.args, expression.func.attr
    if name == "dot" and len(args) == 2 and operand in args:
        return _numeric(args[1] if args[0] is operand else args[0], floats, ints)
    return name in ONE_OPERAND and args == [operand]


def _value_read(param, reads):
    """Whether the value of param reaches anything but what _reads follows or returns."""
    followed, pending = {param}, [param]
    while pending:
        for how, target in reads.get(pending.pop(), ()):
            if how == "other":
                return True
            if how == "follow" and target not in followed:
                followed.add(target)
                pending.append(target)
    return False


# calls whose arguments (or whose object's method arguments) are sizes, counts or indices: a
# float read there decides a shape or a loop (np.zeros(int(n * frac)), x.reshape(k, -1))
_SIZED = frozenset(["int", "round", "range", "len", "floor", "ceil", "trunc", "zeros", "ones",
                    "empty", "full", "eye", "identity", "arange", "linspace", "reshape",
                    "resize", "tile", "repeat", "broadcast_to", "astype", "zeros_like",
                    "ones_like", "empty_like", "full_like", "split", "array_split", "roll",
                    "take", "pad", "diag", "tri", "triu", "tril", "partition", "argpartition"])


# calls whose result's shape is decided by their operands' values (which entries are nonzero,
# which are distinct, the largest bin; lstsq's residuals are empty where the matrix's rank is
# not full): an array's values read there decide a shape
_SELECTING = frozenset(["nonzero", "flatnonzero", "argwhere", "unique", "extract", "compress",
                        "trim_zeros", "lstsq", "bincount"])
# calls whose arguments are sizes or counts whatever they are called with
_SIZES = frozenset(["int", "round", "range", "floor", "ceil", "trunc", "zeros", "ones", "empty",
                    "full", "eye", "identity", "arange", "linspace", "tri"])
_LIST_CHANGES = frozenset(["append", "extend", "insert", "pop", "remove"])


def float_values_read(fdef, args, kwargs, shapes=None, free=None):
    """The arguments of the example (positions and keyword names) that are floats or arrays
    whose values may decide a shape, an index or a loop's length. The signature keys floats by
    type alone and arrays by shape and dtype, so a build specialized to one such value (its
    shapes probed) would be used for others: the API takes the code for any shapes for them
    instead. A Python or NumPy float: some name computed from it (by any statement) is read in
    an index, as an argument of a call in _SIZED, or where an array's values count. An array of
    any dtype, or a list, tuple or dict holding floats (a bool mask's values decide the
    length of x[m], an int array's the bound of x[:k[0]]): some name computed from its values
    is read in an index (x[x > 0], x[:k]; not an int array indexing whole, x[idx], whose
    result has its shape), as a size (_SIZES), by a call that selects by value (_SELECTING,
    np.where(c) of one operand), or in the test of an if or while under which a list grows or
    shrinks, or a loop that does stops early (its length then depends on the values), or that
    binds a name read after it whose shape the probe could not fix (_shapes_may_differ;
    shapes: the probe's). free: the values of the globals and closure variables the function
    reads (name -> value), followed as arguments are, and so are the numbers in a global list,
    dict or object (_holds_numbers): a build watches which object a global holds, not a value
    changed in place or a float rebound (their names are returned as slots)."""
    slots = _slots(fdef, args, kwargs)
    slots.update({name: (name, value) for name, value in (free or {}).items()
                  if name not in slots})  # (a float's value decides whatever an array's does: an
    # if under which a list grows, or that binds a name of another shape; and more, below)
    floats = {name for name, (slot, value) in slots.items()
              if isinstance(value, (float, np.floating)) and not isinstance(value, bool)}
    arrays = {name for name, (slot, value) in slots.items() if isinstance(value, np.ndarray)}
    # (of any dtype: a bool mask's values decide the length of x[m], an int array's the bound
    # of x[:k[0]]; an int array indexing as a whole, x[idx], picks items in its own shape)
    gathers = {name for name in arrays if slots[name][1].dtype.kind in "iu"}
    arrays |= {name for name, (slot, value) in slots.items() if _holds_inexact(value)}
    arrays |= {name for name, value in (free or {}).items() if _holds_numbers(value)}
    # (a list, tuple or dict of floats: the signature keys its items as a float's, by type; and
    # a global's numbers may change in place. Followed as an array's values are: its length,
    # len(params), is in the signature and the watch)
    if not floats and not arrays:
        return frozenset()
    derived = {name: {name} for name in floats | arrays}
    flows = []  # (names read, names bound) of each statement, in source order
    for stmt in _in_order(fdef.body):
        source = stmt.iter if type(stmt) is gast.For else stmt.value
        targets = stmt.target if type(stmt) in (gast.For, gast.AugAssign) else stmt.targets[0]
        flows.append((_value_names(source), {n.id for n in walk(targets)
                                             if type(n) is gast.Name}))
    changed = True
    while changed:  # every name computed from each float, through any statement (in source
        changed = False  # order: one sweep, and one more per loop that carries a value back)
        for read, bound in flows:
            for names in derived.values():
                if not bound <= names and not read.isdisjoint(names):
                    names |= bound
                    changed = True
    sized, by_values = set(), set()  # names read where a float's, an array's value decides
    loads = _loads(fdef)  # (for _shapes_may_differ: one count for the function)
    for node in walk(fdef):
        if type(node) is gast.Subscript:
            sized |= {n.id for n in walk(node.slice) if type(n) is gast.Name}
            by_values |= _value_names(node.slice) - _whole_indices(node.slice, gathers)
        elif type(node) is gast.Call:
            func = node.func
            called = func.attr if type(func) is gast.Attribute else getattr(func, "id", None)
            parts = list(node.args) + [k.value for k in node.keywords]
            if called in _SIZED:
                sized |= {n.id for part in parts + (
                    [func.value] if type(func) is gast.Attribute and called in (
                        "reshape", "astype", "repeat", "take") else []) for n in walk(part)
                    if type(n) is gast.Name}
            if called in _SIZES or called in _SELECTING or (
                    called == "where" and len(node.args) == 1 and not node.keywords):
                by_values |= {name for part in parts for name in _value_names(part)}
        elif type(node) in (gast.If, gast.While) and (
                _changes_lengths(node) or _shapes_may_differ(node, loads, shapes)):
            by_values |= _value_names(node.test)
    return frozenset(slots[name][0] for name, names in derived.items()
                     if names & ((sized | by_values) if name in floats else by_values))


def _whole_indices(index, gathers):
    """The names of int arrays (gathers) an index uses whole, as x[idx] or x[idx, :] does: the
    result's shape is theirs whatever their values (not so x[idx > 0] or x[:idx[0]])."""
    parts = index.elts if type(index) is gast.Tuple else [index]
    return {p.id for p in parts if type(p) is gast.Name and p.id in gathers}


def _holds_inexact(value):
    """Whether a list, tuple or dict holds a float or a float array (in it, or in a container
    in it, a few levels down)."""
    return _holds(value, lambda v: isinstance(v, (float, np.floating)) and not isinstance(
        v, bool) or isinstance(v, np.ndarray) and v.dtype.kind in "fc", objects=False)


def _holds_numbers(value):
    """Whether a global's value holds numbers that can change while it holds the same object
    (the watch sees another object bound, not a value changed in place): ints and floats in a
    list, dict or plain object (CFG.n_steps, SIZES[0]), a few levels down."""
    return _holds(value, lambda v: isinstance(v, (int, float, np.integer, np.floating))
                  and not isinstance(v, bool), objects=True)


def _holds(value, wanted, objects, depth=0):
    """Whether a list, tuple or dict (objects: or a plain object's attributes) holds an item
    for which wanted is true, in it or in a container in it, at most four levels down."""
    if depth > 4 or isinstance(value, (types.ModuleType, type, types.FunctionType,
                                       types.BuiltinFunctionType, np.ndarray, str, bytes)):
        return False
    if isinstance(value, (list, tuple, dict)):
        items = value.values() if isinstance(value, dict) else value
    else:
        items = getattr(value, "__dict__", None) if objects else None
        if not isinstance(items, dict):
            return False
        items = items.values()
    return any(wanted(v) or _holds(v, wanted, objects, depth + 1) for v in items)


def _in_order(stmts):
    """The assignments and for statements of a block and of the blocks in it, in source order
    (nested functions' too: what they compute may decide a shape)."""
    for stmt in stmts:
        if type(stmt) in (gast.Assign, gast.AugAssign, gast.For):
            yield stmt
        for field in ("body", "orelse", "handlers", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _in_order(inner)


def _value_names(node):
    """The names node reads the values of: not those it reads only for their shape (x.shape[0],
    len(x), np.shape(x), x.ndim), which the signature holds."""
    shapes = set()
    for n in walk(node):
        if type(n) is gast.Attribute and n.attr in SHAPE_ATTRIBUTES and type(n.value) is gast.Name:
            shapes.add(id(n.value))
        elif type(n) is gast.Call and n.args and type(n.args[0]) is gast.Name and (
                getattr(n.func, "id", None) == "len" or getattr(n.func, "attr", None) in (
                    "shape", "ndim", "size")):
            shapes.add(id(n.args[0]))
    return {n.id for n in walk(node) if type(n) is gast.Name and id(n) not in shapes}


def _loads(node):
    """name -> how many times node reads it."""
    out = {}
    for n in walk(node):
        if type(n) is gast.Name and type(n.ctx) is gast.Load:
            out[n.id] = out.get(n.id, 0) + 1
    return out


def _shapes_may_differ(block, loads, shapes):
    """Whether an if or while binds a name read outside it whose shape the probe does not know
    (its bindings had other shapes, or one did not run: m = x, then m = np.sum(m) in a branch):
    names computed from it after the block were seen with the shape of the path the probe
    took (np.tanh(m): () there, x's shape on the other path). loads: the function's (_loads);
    shapes: the probe's (None: not known, nothing is assumed)."""
    if shapes is None:
        return False
    arms = gast.Module(body=block.body + block.orelse, type_ignores=[])
    inside = _loads(arms)
    bound = {n.id for n in walk(arms) if type(n) is gast.Name and type(n.ctx) is gast.Store}
    return any(name not in shapes and loads.get(name, 0) > inside.get(name, 0)
               for name in bound)


def _changes_lengths(block):
    """Whether the body of an if or while grows or shrinks a list (xs.append(...)), or stops
    a loop early (break, continue, return): the lengths then depend on the test."""
    for node in walk(gast.Module(body=block.body + block.orelse, type_ignores=[])):
        if type(node) in (gast.Break, gast.Continue, gast.Return):
            return True
        if type(node) is gast.Call and type(node.func) is gast.Attribute and (
                node.func.attr in _LIST_CHANGES):
            return True
    return False


# What a specialized build assumed: about the free values it read (globals, closure variables and
# attributes of them): the probe ran with them, and its shapes, dtypes and branches are written
# into the code as it ran with its arguments'. The arguments are keyed by signature; the free
# values are guarded (api/cache.py checks each guard at every call, and builds anew where one
# fails): an array's type, dtype and shape, a number's type (an int's or bool's value where the
# code reads it as more than a number: value_guards), a list's, tuple's or dict's length and
# items alike, a string's value, any other object's type. A float's value that decides a shape
# makes the API take the code for any shapes instead (float_values_read).
_GUARD_DEPTH = 3  # (items of items of items: deeper ones by type)
_GUARD_ITEMS = 64  # (the items of a longer list, tuple or dict: its length and the first ones)


def guard_text(value, how, depth=0):
    """The text of what a build assumed about value (see above). how: "value" (an int's value
    too, and a list's, tuple's or dict's items), "number" (an int by its type: read in
    arithmetic only) or "type" (a list or dict the code only changes: its type)."""
    kind = type(value)
    if how == "type":
        return f"{kind.__module__}.{kind.__qualname__}"
    if kind is np.ndarray:
        return f"array {value.dtype.str} {value.shape}"
    if isinstance(value, np.generic):
        return f"scalar {value.dtype.str}"
    if kind in (int, bool):
        return f"{kind.__name__} {value}" if how == "value" else kind.__name__
    if kind in (float, complex):
        return kind.__name__
    if value is None or kind is str:
        return repr(value)
    if kind in (list, tuple) and depth < _GUARD_DEPTH:  # (items by value: read by index)
        return f"{kind.__name__} {len(value)} [" + ", ".join(
            guard_text(item, "value", depth + 1) for item in value[:_GUARD_ITEMS]) + "]"
    if kind is dict and depth < _GUARD_DEPTH:
        return f"dict {len(value)} {{" + ", ".join(
            f"{key!r}: {guard_text(item, 'value', depth + 1)}"
            for key, item in list(value.items())[:_GUARD_ITEMS]
            if type(key) in (str, int)) + "}"
    return f"{kind.__module__}.{kind.__qualname__}"


def value_guards(fdef, kinds, floats, free, paths):
    """[(path, how, text)] for a specialized build (see guard_text): each free name the code
    reads (free: name -> value; modules, functions, classes and other callables are watched as
    callees are, api/cache.py) and each attribute path it reads from one (paths, dotted:
    mylib.W, cfg.n). An int's or bool's value is guarded where the code reads it as more than a
    number (_value_read, as for arguments; an attribute path's always), so that a counter read
    in arithmetic only costs no build per value; a list or dict that the code only changes
    (LOG.append(v), seen[k] = v) by its type, so that a log growing at every call costs no
    build per call."""
    guarded = {name: value for name, value in free.items() if _guarded(value)}
    guarded.update((path, value) for path, value in paths.items() if _guarded(value))
    if not guarded:
        return []
    ints = {name for name, value in free.items() if name in guarded and type(value) in (
        int, bool)}
    reads = _reads(fdef, kinds, floats, ints) if ints else {}
    changed_only = _changed_only(fdef, set(guarded))
    out = []
    for path in sorted(guarded):
        value = guarded[path]
        how = "type" if path in changed_only and type(value) in (list, dict) else (
            "number" if path in ints and not _value_read(path, reads) else "value")
        out.append((path, how, guard_text(value, how)))
    return out


_CHANGES = _LIST_CHANGES | {"clear", "update", "setdefault", "add", "discard"}


def _changed_only(fdef, paths):
    """The free names and attribute paths (dotted) among paths that the code reads only to
    change them: the object of a method call that changes a container (append, update, ...)
    or the container of a store (seen[k] = v)."""
    parent_of = parents(fdef)
    read = set()
    for node in walk(fdef):
        if type(node) not in (gast.Name, gast.Attribute) or type(node.ctx) is not gast.Load:
            continue
        parts = dotted_parts(node)
        path = ".".join(parts) if parts is not None else None
        if path not in paths:
            continue
        parent = parent_of.get(id(node))  # (a method's receiver: the call, naming.parents)
        if type(parent) is gast.Call and type(parent.func) is gast.Attribute and (
                parent.func.value is node and parent.func.attr in _CHANGES):
            continue  # (LOG.append(v))
        if type(parent) is gast.Subscript and parent.value is node and type(
                parent.ctx) is gast.Store:
            continue  # (seen[k] = v)
        read.add(path)
    return set(paths) - read


def _guarded(value):
    """Whether a free value is guarded: not a module, nor a function, class or other callable
    (watched as callees are: api/cache.py)."""
    return not isinstance(value, types.ModuleType) and not callable(value)


def attribute_reads(fdef, free):
    """{dotted path: its value now} of the attribute chains the code reads (not calls) from a
    free name (free: name -> value): mylib.W, cfg.n, cfg.sizes."""
    if not free:
        return {}
    called = {id(node.func) for node in walk(fdef) if type(node) is gast.Call}
    out = {}
    for node in walk(fdef):
        if type(node) is not gast.Attribute or id(node) in called or (
                type(node.ctx) is not gast.Load):
            continue
        parts = dotted_parts(node)
        if parts is None or parts[0] not in free:
            continue
        value = free[parts[0]]
        try:
            for part in parts[1:]:
                value = getattr(value, part)
        except Exception:  # noqa: BLE001 - (f itself reads it: where that raises, no guard)
            continue
        out[".".join(parts)] = value
    return out


def free_value(name, cells, user_globals):
    """What a function's code reads by a free name (cells: its closure variables by name): the
    closure variable's value (None if empty), else the global's (None if there is none)."""
    cell = cells.get(name)
    if cell is None:
        return user_globals.get(name)
    try:
        return cell.cell_contents
    except ValueError:
        return None


def guards_hold(func, guards):
    """Whether each guard ([path, how, text]: value_guards) holds for what func reads now
    (a build kept on disk, read back by another process, where the values may differ)."""
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    for path, how, text in guards:
        root, *rest = path.split(".")
        value = free_value(root, cells, func.__globals__)
        try:
            for part in rest:
                value = getattr(value, part)
        except Exception:  # noqa: BLE001 - (missing, or an attribute that raises: not held)
            return False
        if guard_text(value, how) != text:
            return False
    return True
