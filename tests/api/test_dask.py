"""Generated derivatives on dask arrays: the call builds a graph and computes nothing (no eager
computation: the runtime helpers never branch on a lazy array's values), and the graph, computed
once, gives the numbers the same derivative gives on NumPy arrays. Then on a dask.distributed
cluster, over arrays of several chunks. dask is an optional dependency (the `dask` extra):
without it these tests are skipped."""
import contextlib

import numpy as np
import pytest

import srcad

from test_duck_arrays import (broadcasting, division, elementwise, loop, products,
                              reductions, scans_and_joins, selections)

dask = pytest.importorskip("dask", reason="dask is an optional dependency (pip install "
                                          "'srcad[dask]')")
da = pytest.importorskip("dask.array", reason="dask.array is not installed")


@contextlib.contextmanager
def counted_computes(get=None):
    """The computations dask runs inside the block, one item per call of the scheduler (a
    compute(), or np.asarray, float() or an `if` on a dask array)."""
    calls = []
    get = get or dask.get

    def counting(graph, keys, **kwargs):
        calls.append(keys)
        return get(graph, keys, **kwargs)
    with dask.config.set(scheduler=counting):
        yield calls


def close(actual, expected):
    """Same numbers to 1e-12 relative (dask sums chunk by chunk, NumPy pairwise)."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            close(a, e)
        return
    assert np.shape(actual) == np.shape(expected)
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=0)


# --- functions --------------------------------------------------------------------------------

def linear_algebra(x, A):
    K = A @ A.T + 6.0 * np.diag(np.ones_like(x))  # (np.eye would be a NumPy array)
    L = np.linalg.cholesky(K)
    return (np.sum(np.log(np.diag(L))) + np.dot(x, np.linalg.solve(K, x))
            + np.sum(np.diagonal(A, 1) ** 2) + np.trace(A))


FUNCTIONS = [elementwise, reductions, products, division, selections, broadcasting, loop,
             scans_and_joins, linear_algebra]


def arguments(n=12, chunks=4):
    rng = np.random.default_rng(7)
    x = rng.uniform(0.5, 1.5, n)
    A = rng.normal(size=(n, n)) / np.sqrt(n)
    return (x, A), (da.from_array(x, chunks=chunks), da.from_array(A, chunks=chunks))


# --- no eager computation, the NumPy numbers ----------------------------------------------------

@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradients_on_dask_arrays_build_a_graph_and_give_the_numpy_numbers(func):
    (x, A), (dx, dA) = arguments()
    rng = np.random.default_rng(1)
    tx, tA = rng.normal(size=x.shape), rng.normal(size=A.shape)
    derivatives = [  # (derivative, its numpy arguments, its dask arguments)
        (srcad.grad(func, wrt=(0, 1), verify=False), (x, A), (dx, dA)),
        (srcad.vjp(func, wrt=0, verify=False), (x, A, 0.7), (dx, dA, 0.7)),
        (srcad.jvp(func, wrt=(0, 1), verify=False), (x, A, tx, tA),
         (dx, dA, da.from_array(tx, chunks=4), da.from_array(tA, chunks=4))),
        (srcad.value_and_grad(func, wrt=1, verify=False), (x, A), (dx, dA)),
    ]
    for derivative, numpy_args, dask_args in derivatives:
        expected = derivative(*numpy_args)
        with counted_computes() as computes:
            lazy = derivative(*dask_args)
        assert computes == [], f"{derivative.__name__} computed {len(computes)} times"
        assert all(isinstance(part, da.Array) for part in
                   (lazy if isinstance(lazy, tuple) else (lazy,)))
        with counted_computes() as computes:
            (actual,) = dask.compute(lazy)
        assert len(computes) == 1
        close(actual, expected)


def test_a_float32_dask_argument_gets_a_float32_gradient_lazily():
    (x, A), (dx, dA) = arguments()
    with counted_computes() as computes:
        g = srcad.grad(division, verify=False)(dx.astype(np.float32), dA.astype(np.float32))
    assert computes == [] and g.dtype == np.float32
    expected = srcad.grad(division, verify=False)(x.astype(np.float32), A.astype(np.float32))
    np.testing.assert_allclose(g.compute(), expected, rtol=1e-5)


def test_dask_arrays_of_one_chunk_each():
    # one chunk per array: the graph is the whole computation in one task per op
    (x, A), _ = arguments()
    dx, dA = da.from_array(x, chunks=-1), da.from_array(A, chunks=-1)
    with counted_computes() as computes:
        g = srcad.grad(products, wrt=(0, 1), verify=False)(dx, dA)
    assert computes == []
    close(dask.compute(g)[0], srcad.grad(products, wrt=(0, 1), verify=False)(x, A))


def zero_over_zero(x, A):
    return np.sum(np.sqrt(x) * A[0])  # sqrt's slope at 0 is inf, its adjoint A[0] is 0 there:
    # safe_div's 0 / 0 = 0


def test_safe_div_zero_over_zero_is_zero_on_dask_arrays_too():
    """safe_div's guard (a zero adjoint over a zero divisor gives 0, not nan) is an np.where on a
    lazy array where NumPy's path looks for NaNs first: the same numbers."""
    x = np.array([0.0, 1.5, 2.0, 0.0, 3.0, 0.5])
    A = np.array([[0.0, 1.0, 2.0, 0.0, -1.0, 0.5]] * 6)
    expected = srcad.grad(zero_over_zero, verify=False)(x, A)
    with counted_computes() as computes:
        g = srcad.grad(zero_over_zero, verify=False)(da.from_array(x, chunks=2), A)
    assert computes == []
    with np.errstate(divide="ignore", invalid="ignore"):  # (dask's tasks divide 0 / 0 for it)
        actual = g.compute()
    np.testing.assert_array_equal(actual, expected)
    assert actual[0] == 0.0 and actual[3] == 0.0


def ties(x, A):
    return np.sum(np.maximum(x, A[0])) + np.max(x)


def test_ties_of_maximum_and_max_share_the_adjoint_on_dask_arrays_too():
    """tie_mask and unreduce_extremum skip their tie pass on NumPy arrays when nothing ties (a
    look at the values); on dask arrays they always take it: the same numbers, ties or not."""
    x = np.array([1.0, 2.0, 3.0, 3.0, 0.5, -1.0])
    A = np.array([[1.0, 0.0, 5.0, 3.0, 0.5, 2.0]] * 6)
    for first in (x, x + np.linspace(0.0, 0.1, 6)):  # with ties, then without
        expected = srcad.grad(ties, wrt=(0, 1), verify=False)(first, A)
        with counted_computes() as computes:
            g = srcad.grad(ties, wrt=(0, 1), verify=False)(da.from_array(first, chunks=2),
                                                            da.from_array(A, chunks=2))
        assert computes == []
        for a, e in zip(dask.compute(g)[0], expected):
            np.testing.assert_array_equal(a, e)


def test_a_python_if_on_the_data_of_a_dask_array_computes_it():
    """The user's own `if` on a value must know the value: dask computes it at each test of it
    the derivative makes, the primal sweep's and the adjoint sweep's (reverse mode tests the kept
    condition again, and dask computes it again). srcad's own code adds none; np.where keeps
    such a choice lazy."""
    def relu_sum(x):
        s = np.sum(x)
        if s > 0:
            return s * 2.0
        return -s

    with counted_computes() as computes:
        g = srcad.grad(relu_sum, verify=False)(da.from_array(np.arange(1.0, 9.0), chunks=4))
    assert len(computes) == 2  # `if s > 0`, and the adjoint sweep's `if` on the same test
    np.testing.assert_array_equal(g.compute(), np.full(8, 2.0))


def repeated_fit(w, X, k=3):
    s = 0.0
    for i in range(k):
        s = s + np.sum(np.tanh(X @ w) * (i + 1))
    return s


def test_a_numpy_parameter_with_dask_data_through_a_loop():
    """The adjoint of w starts as zeros of w's kind (NumPy) and gathers the loop's contributions,
    dask arrays. The in-place pass wrote bw += g there, which NumPy cannot do with a dask array
    (NotImplementedError from dask); the code for any arguments no longer updates an argument's
    zeros in place (bw = bw + g: a dask array from the first turn)."""
    rng = np.random.default_rng(2)
    w, X = rng.normal(size=5), rng.normal(size=(40, 5))
    with counted_computes() as computes:
        g = srcad.grad(repeated_fit, verify=False)(w, da.from_array(X, chunks=(10, 5)))
    assert computes == [] and isinstance(g, da.Array)
    close(g.compute(), srcad.grad(repeated_fit, verify=False)(w, X))


def squared_modulus(z):
    return np.sum(np.abs(z) ** 2)


def test_a_complex_dask_argument_is_refused_as_a_complex_numpy_array_is():
    """The code for any arguments (what a dask array runs) cannot differentiate with respect to
    complex values. A complex NumPy array is refused; a complex dask array was not (the check read
    NumPy arrays only) and got a gradient: it is refused by its dtype, without computing it."""
    z = da.from_array(np.array([1 + 2j, 3 - 1j]), chunks=1)
    with counted_computes() as computes:
        with pytest.raises(srcad.SrcadError, match="complex"):
            srcad.grad(squared_modulus, verify=False)(z)
    assert computes == []


def cholesky_off_diagonal(K):
    L = np.linalg.cholesky(K)
    return np.sum(np.log(np.diag(L))) + np.sum(L[1:, 0] * np.arange(1.0, K.shape[0]))


def upper_off_diagonal(K):  # what cholesky_off_diagonal computes on a dask array
    U = np.linalg.cholesky(K).T
    return np.sum(np.log(np.diag(U))) + np.sum(U[1:, 0] * np.arange(1.0, K.shape[0]))


def test_np_linalg_cholesky_of_a_dask_array_is_the_upper_factor_and_the_gradient_follows_it():
    """np.linalg.cholesky(K) of a dask array is da.linalg.cholesky(K), whose default is the upper
    factor U = L^T (NumPy's is L). The template read its value as L: the gradient of
    sum(log(diag(L))) (the same either way) came out wrong, 0.06 off. The factor's orientation is
    now told by np.where on its triangles (lazily): the gradient is that of what f computes on
    the dask array, here U's first column below the diagonal (zeros)."""
    rng = np.random.default_rng(5)
    M = rng.normal(size=(6, 9))
    K = M @ M.T + np.eye(6)
    with counted_computes() as computes:
        g = srcad.grad(cholesky_off_diagonal, verify=False)(da.from_array(K, chunks=3))
    assert computes == []
    close(g.compute(), srcad.grad(upper_off_diagonal, verify=False)(K))
    assert not np.allclose(g.compute(), srcad.grad(cholesky_off_diagonal, verify=False)(K))


def test_jacobian_hessian_and_check_grads_refuse_dask_arrays():
    """A dask array was no leaf of the trees these build their NumPy results from: jacobian
    returned f's value as the Jacobian. Now refused, without computing anything."""
    _, (dx, dA) = arguments()
    with counted_computes() as computes:
        for make in (lambda: srcad.jacobian(products), lambda: srcad.hessian(products)):
            with pytest.raises(srcad.SrcadError, match="takes NumPy arrays"):
                make()(dx, dA)
        with pytest.raises(srcad.SrcadError, match="takes NumPy arrays"):
            srcad.check_grads(products, (dx, dA))
    assert computes == []


def test_hessian_vector_products_on_dask_arrays_are_graphs():
    (x, A), (dx, dA) = arguments()
    v = np.linspace(-1.0, 1.0, x.size)
    hessp, hvp = srcad.hessp(products, verify=False), srcad.hvp(products, verify=False)
    dv = da.from_array(v, chunks=4)
    with counted_computes() as computes:
        lazy = hessp(dx, dv, dA), hvp(dx, dA, dv)
    assert computes == []
    close(dask.compute(lazy)[0], (hessp(x, v, A), hvp(x, A, v)))


# --- dask.distributed ----------------------------------------------------------------------------

def regression_loss(w, X, y):
    r = X @ w - y
    return np.mean(r * r) + 0.01 * np.sum(np.log(1.0 + w * w))


def smooth(x):
    d = x[1:] - x[:-1]
    return np.sum(np.sqrt(1.0 + d * d)) + np.mean(np.maximum(x, 0.0) ** 2)


def test_gradients_computed_on_a_distributed_cluster_over_many_chunks():
    distributed = pytest.importorskip("distributed", reason="dask.distributed is an optional "
                                                            "dependency")
    rng = np.random.default_rng(3)
    X, w = rng.normal(size=(400, 30)), rng.normal(size=30)
    y = X @ w + 0.1 * rng.normal(size=400)
    x = rng.normal(size=4000)
    dX = da.from_array(X, chunks=(100, 30))  # four chunks of rows
    dy = da.from_array(y, chunks=100)
    dx = da.from_array(x, chunks=1000)  # four chunks
    w0 = w + 0.5
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                            dashboard_address=None) as client:
        with counted_computes(client.get) as computes:
            gw = srcad.grad(regression_loss, verify=False)(da.from_array(w0, chunks=10), dX, dy)
            gX = srcad.grad(regression_loss, wrt=1, verify=False)(w0, dX, dy)
            gx = srcad.grad(smooth, verify=False)(dx)
            assert computes == []  # the gradients are graphs
            gw, gX, gx = dask.compute(gw, gX, gx)  # on the cluster, once
        assert len(computes) == 1
    close(gw, srcad.grad(regression_loss, verify=False)(w0, X, y))
    close(gX, srcad.grad(regression_loss, wrt=1, verify=False)(w0, X, y))
    close(gx, srcad.grad(smooth, verify=False)(x))
