"""keep dtypes (specialized builds): `y -= e` on an array keeps y's dtype.

Python runs `y -= e` on a numpy array in place: the result is cast back to y's dtype. desugar.py
writes it `y = y - e`, which is the same value, except that numpy may promote: a float32 array
minus a float64 scalar (np.sin(0.7)) is float64. Where the shape probe saw that happen, the
statement is written as the in-place operation computes it, the promoted result cast back:

    y_1 = y - t2        (y float32, y_1 float64)   ->   t8 = np.asarray(y, dtype=np.float64)
                                                        t9 = t8 - t2
                                                        y_1 = np.asarray(t9, dtype=np.float32)

so f's value, and the gradient's dtype, are what f computes: the promotion is written out too,
and the adjoint of each conversion is cast back to the dtype converted from (cast_back), so the
gradient of y stays float32.
"""
import gast

from ..syntax.nodes import flatten

_DTYPES = {"f": "float32", "e": "float16", "d": "float64", "g": "longdouble"}


def keep_in_place_dtypes(fdef, kinds, floats, fresh):
    """Rewrite, in place, the augmented assignments the probe saw promote an array's dtype;
    returns whether it rewrote one."""
    changed = False
    for block in list(_blocks(fdef)):
        out = []
        for stmt in block:
            casts = _promoted(stmt, kinds, floats)
            if casts is not None:
                changed = True
                back, up = casts
                promoted, temp = fresh("t"), fresh("t")
                out.append(_assign(promoted, _as_dtype(stmt.value.left, up), stmt))
                stmt.value.left = _name(promoted)
                out.append(_assign(temp, stmt.value, stmt))
                stmt.value = _as_dtype(_name(temp), back)
            out.append(stmt)
        block[:] = out
    return changed


def _promoted(stmt, kinds, floats):
    """The numpy dtype names to cast an augmented assignment's result back to and its left
    operand up to, or None."""
    if getattr(stmt, "augmented", None) is None or not isinstance(stmt.value, gast.BinOp):
        return None
    old, new = stmt.value.left, stmt.targets[0]
    if not (isinstance(old, gast.Name) and isinstance(new, gast.Name)) or old.id == new.id:
        return None  # (y = y - e in a loop: one name, one dtype seen for both)
    before, after = floats.get(old.id), floats.get(new.id)
    if kinds.get(old.id) != "array" or not before or not after or before == after:
        return None
    if before not in _DTYPES or after not in _DTYPES:
        return None
    return _DTYPES[before], _DTYPES[after]


def _assign(ident, value, at):
    return gast.copy_location(gast.Assign(
        targets=[gast.Name(id=ident, ctx=gast.Store(), annotation=None, type_comment=None)],
        value=value, type_comment=None), at)


def _as_dtype(value, dtype):
    return gast.Call(func=gast.Attribute(value=_name("np"), attr="asarray", ctx=gast.Load()),
                     args=[value], keywords=[gast.keyword(arg="dtype", value=gast.Attribute(
                         value=_name("np"), attr=dtype, ctx=gast.Load()))])


def _blocks(fdef):
    yield fdef.body
    for stmt in flatten(fdef.body):
        for field in ("body", "orelse"):
            child = getattr(stmt, field, None)
            if isinstance(child, list) and child:
                yield child


def _name(ident):
    return gast.Name(id=ident, ctx=gast.Load(), annotation=None, type_comment=None)
