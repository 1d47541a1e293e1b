"""optimize/algebra.py: a random expression read as a signed product (or a sum of them) and
written back computes what the expression computes (float64, to rounding), in each of the
spellings the passes use; and the spellings themselves."""
import random

import astor
import gast
import numpy as np
import pytest

from srcad.optimize.algebra import (Term, add, drop_head_sign, negate_head, number_or_factor,
                                    read_product, write, write_sum)

VALUES = {  # away from 0: a cancelled x / x is 1 there, and rounding stays relative
    "a": np.array([0.7, -1.3, 1.9]),
    "b": np.array([[1.1], [-0.6]]),
    "c": np.array([[0.9, -1.7, 1.2], [1.4, 0.8, -0.55]]),
    "x": 1.35,
    "y": -0.8,
}
NAMES = sorted(VALUES)


def _product(rng, depth):
    """Source of a random product: names, numbers, unary -, * and /, ** by a small int."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.25:
            return repr(rng.choice([2.0, 0.5, -3.0, 1.5, 3, -1, 1]))
        return rng.choice(NAMES)
    kind = rng.random()
    if kind < 0.15:
        return f"-({_product(rng, depth - 1)})"
    if kind < 0.3:
        return f"({_product(rng, depth - 1)}) ** {rng.choice([2, 3, 4, 1])}"
    op = rng.choice(["*", "*", "/"])
    return f"({_product(rng, depth - 1)}) {op} ({_product(rng, depth - 1)})"


def _sum(rng):
    terms = [_product(rng, rng.randint(1, 3)) for _ in range(rng.randint(1, 4))]
    out = terms[0]
    for term in terms[1:]:
        out += f" {rng.choice(['+', '-'])} ({term})"
    return out


def _value(source):
    with np.errstate(all="ignore"):
        return np.asarray(eval(source, {"np": np}, dict(VALUES)), dtype=np.float64)


def _scale(node):
    """The largest magnitude of the expression's parts: rounding is relative to it."""
    parts = [n for n in gast.walk(node) if isinstance(n, (gast.BinOp, gast.UnaryOp, gast.Name,
                                                            gast.Constant))]
    return max(np.max(np.abs(_value(_source(p)))) for p in parts)


def _source(node):
    assign = gast.Assign(targets=[gast.Name(id="r", ctx=gast.Store(), annotation=None,
                                            type_comment=None)], value=node, type_comment=None)
    module = gast.gast_to_ast(gast.Module(body=[assign], type_ignores=[]))
    return astor.to_source(module).strip()[len("r = "):]


def _names(node):
    return Term(1, ((node.id, 1),)) if isinstance(node, gast.Name) else (
        Term(node.value) if isinstance(node, gast.Constant) else None)


SPELLINGS = {  # how each pass reads and writes products
    "cancel": (dict(powers=4, merge=True, safe=True),
               dict(grouped=True, each=False, float_alone=True, sign_inside=True)),
    "proportional": (dict(whole_denominators=True), dict()),
    "ordered": (dict(powers=4), dict()),
}


def _read_sum(node, options):
    """A Sum of the terms of + and -, each a product read with these options."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
        left, right = _read_sum(node.left, options), _read_sum(node.right, options)
        if isinstance(node.op, gast.Sub):
            right = tuple(t.negated() for t in right)
        return left + right
    leaf = _names if options.get("merge") else number_or_factor
    term = read_product(node, leaf, **options)
    assert term is not None
    return (term,)


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_products_read_and_written_compute_the_same(spelling):
    rng = random.Random(1234)
    read_options, write_options = SPELLINGS[spelling]
    for _ in range(150):
        source = _product(rng, 4)
        node = gast.parse(source, mode="eval").body
        term = read_product(node, _names if read_options.get("merge") else number_or_factor,
                            **read_options)
        assert term is not None, source
        negative, written = write(term, **write_options)
        text = _source(written)
        got = -_value(text) if negative else _value(text)
        expected = _value(source)
        if read_options.get("merge"):  # (a cancelled factor's shape goes too: cancel.py
            got = np.broadcast_to(got, expected.shape)  # broadcasts the result back)
        assert got.shape == expected.shape
        assert np.allclose(got, expected, rtol=1e-12, atol=1e-12 * _scale(node)), (
            source, text)


def test_sums_read_and_written_compute_the_same():
    rng = random.Random(98)
    for _ in range(150):
        source = _sum(rng)
        node = gast.parse(source, mode="eval").body
        terms = _read_sum(node, {})
        negative, written = write_sum(terms)
        text = _source(written)
        got = -_value(text) if negative else _value(text)
        assert np.allclose(got, _value(source), rtol=1e-12, atol=1e-12 * _scale(node)), (
            source, text)


def test_like_terms_are_collected_and_a_cancelled_one_is_refused():
    x, y = gast.parse("x", mode="eval").body, gast.parse("y", mode="eval").body
    two_x = (Term.of(2.0, (x,)),)
    total = add(two_x, (Term.of(3.0, (x,)), Term.of(1, (y,))))
    assert [t.coef for t in total] == [5.0, 1]
    assert add(two_x, (Term.of(-2.0, (x,)),)) is None  # x - x is not 0 for x = inf


@pytest.mark.parametrize("source, options, text", [
    ("-2.0 * x / y ** 2", SPELLINGS["cancel"], "-(2.0 * x) / y ** 2"),
    ("2.0 * x * z / y / w", SPELLINGS["cancel"], "2.0 * (x * z) / (y * w)"),
    ("2.0 * x * z / y / w", SPELLINGS["ordered"], "2.0 * x * z / y / w"),
    ("x / (y * w)", SPELLINGS["proportional"], "x / (y * w)"),
    ("3 / x", SPELLINGS["proportional"], "3 / x"),
    ("3 / x", SPELLINGS["cancel"], "3.0 / x"),
    ("x * y / x", SPELLINGS["cancel"], "y"),
])
def test_spellings(source, options, text):
    read_options, write_options = options
    node = gast.parse(source, mode="eval").body
    term = read_product(node, _names if read_options.get("merge") else number_or_factor,
                        **read_options)
    negative, written = write(term, **write_options)
    assert ("-" if negative else "") + _source(written) == text


def test_the_sign_heading_a_product():
    node = gast.parse("a * b / c", mode="eval").body
    node = negate_head(node)
    assert _source(node) == "-a * b / c"
    assert drop_head_sign(node) and _source(node) == "a * b / c"
    assert not drop_head_sign(node)
