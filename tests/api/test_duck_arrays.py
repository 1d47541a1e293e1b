"""Generated derivatives on another library's arrays (NEP 18: numpy's functions dispatch to the
array's own), without converting them to NumPy arrays: what lets them run on CuPy arrays, on the
GPU, unchanged. No GPU here, so `Device` below stands for one: a thin array type whose data never
leaves it. np.asarray of it, float(), bool() (an `if` on its values) or .item() raise
HostCopy, as a copy from a GPU to the host would be a cost, and a dask array's would be a
computation. (test_cupy.py runs the same on CuPy where it is installed.)"""

import numpy as np
import pytest

import srcad


class HostCopy(AssertionError):
    """Something made a host value of a Device array."""


def _unwrap(value):
    if isinstance(value, Device):
        return value.data
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return value


def _wrap(value):
    if isinstance(value, (np.ndarray, np.generic)) and not isinstance(value, np.dtype):
        return Device(value)  # (a reduction gives a 0-d array, as CuPy's do)
    if isinstance(value, (list, tuple)):
        return type(value)(_wrap(v) for v in value)
    return value


class Device:
    """An array on a pretend device. NumPy's functions and ufuncs run on it through
    __array_function__ and __array_ufunc__ and give Device arrays (reductions 0-d ones); its
    shape and dtype are known; its values cannot be read from Python, and, as with CuPy's arrays,
    NumPy arrays cannot be mixed in (they would be copied to the device on each operation: a
    NumPy array among the operands raises TypeError)."""

    __array_priority__ = 100

    def __init__(self, data):
        self.data = np.array(data)  # (a copy: the device's own memory)

    shape = property(lambda self: self.data.shape)
    dtype = property(lambda self: self.data.dtype)
    ndim = property(lambda self: self.data.ndim)
    size = property(lambda self: self.data.size)
    T = property(lambda self: Device(self.data.T))

    def __array__(self, *args, **kwargs):
        raise HostCopy("np.asarray of a device array")

    def __bool__(self):
        raise HostCopy("the truth of a device array (an `if` on its values)")

    def __float__(self):
        raise HostCopy("float() of a device array")

    __int__ = __index__ = __complex__ = __float__

    def item(self, *args):
        raise HostCopy(".item() of a device array")

    def tolist(self):
        raise HostCopy(".tolist() of a device array")

    def __len__(self):
        return len(self.data)

    def __repr__(self):
        return f"Device({self.shape}, {self.dtype})"

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if any(isinstance(i, np.ndarray) for i in inputs):
            return NotImplemented  # (as CuPy: no NumPy arrays among the operands, a copy
            # from the host each time; NumPy and Python numbers are fine)
        out = kwargs.get("out")
        if out is not None:
            if not all(isinstance(o, Device) for o in out):
                return NotImplemented  # (as CuPy: no writes into host arrays)
            kwargs["out"] = tuple(o.data for o in out)
        result = getattr(ufunc, method)(*_unwrap(inputs), **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        if not all(issubclass(t, Device) for t in types):
            return NotImplemented  # (as CuPy: no NumPy arrays among the arguments)
        return _wrap(func(*_unwrap(args), **_unwrap(kwargs)))

    def __getitem__(self, index):
        return Device(self.data[_unwrap(index)])

    def __setitem__(self, index, value):
        self.data[_unwrap(index)] = _unwrap(value)

    def astype(self, dtype, copy=True):
        return Device(self.data.astype(dtype))

    def copy(self):
        return Device(self.data)

    def reshape(self, *shape, **kwargs):
        return Device(self.data.reshape(*shape, **kwargs))

    def __getattr__(self, name):  # array methods (sum, dot, ...): their numpy function's
        if name in ("sum", "mean", "max", "min", "prod", "dot", "transpose", "ravel", "any",
                    "all", "conj", "cumsum", "squeeze", "swapaxes"):
            method = getattr(np.ndarray, name)
            return lambda *args, **kwargs: _wrap(method(self.data, *_unwrap(args),
                                                        **_unwrap(kwargs)))
        raise AttributeError(name)


def _operator(ufunc, reflected=False):
    if reflected:
        return lambda self, other: ufunc(other, self)
    return lambda self, other: ufunc(self, other)


for _name, _ufunc in [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                      ("truediv", np.true_divide), ("pow", np.power), ("matmul", np.matmul),
                      ("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                      ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal),
                      ("and", np.logical_and), ("or", np.logical_or)]:
    setattr(Device, f"__{_name}__", _operator(_ufunc))
    setattr(Device, f"__r{_name}__", _operator(_ufunc, reflected=True))
Device.__neg__ = lambda self: np.negative(self)
Device.__pos__ = lambda self: self
Device.__hash__ = None


def test_the_device_array_refuses_host_copies():
    x = Device(np.arange(3.0))
    assert isinstance(np.sin(x) + 1.0, Device) and isinstance(np.sum(x), Device)
    for look in (np.asarray, float, bool, lambda v: v.item(), lambda v: np.sum(v) > 1 or 0):
        with pytest.raises(HostCopy):
            look(x)


# --- functions ----------------------------------------------------------------------------------

def elementwise(x, A):
    return np.sum(np.sin(x) * np.exp(x) + x ** 2 - np.tanh(x) * np.cos(A[0]))


def reductions(x, A):
    return np.mean(np.tanh(x)) + np.sum(np.mean(A ** 2, axis=0)) + np.std(A) + np.max(x * x)


def products(x, A):
    return np.sum(np.dot(A, x) ** 2) + x @ A @ x + np.sum(A.T @ A)


def division(x, A):
    return np.sum(x / (1.0 + x * x)) + np.sum(np.log(x)) + np.sum(np.sqrt(x) / A[1])


def selections(x, A):
    return np.sum(np.where(x > 1.0, x ** 2, np.maximum(x, 0.9))) + np.sum(np.minimum(A, 0.0))


def broadcasting(x, A):
    W = A[:3] + x
    return np.sum(W ** 2 * x) + np.sum(np.sum(A, axis=1, keepdims=True) * A)


def loop(x, A, k=3):
    s = 0.0
    h = x
    for i in range(k):
        h = np.tanh(A @ h + 0.1 * (i + 1))
        s = s + np.sum(h * x)
    return s


def stores(x, A):
    y = x * 1.0
    y[1:3] = A[0, 1:3] * x[0]  # a store: the overwritten values' adjoint is zeroed (zero_at)
    return np.sum(y * y) + np.sum(x[::2])


def scans_and_joins(x, A):
    return (np.sum(np.cumsum(x) ** 2) + np.prod(x[:4])
            + np.sum(np.concatenate([x, x * x]) ** 2) + np.einsum("ij,j->", A, x)
            + np.sum(np.clip(x, 0.7, 1.2) ** 2) + np.var(A, axis=0).sum())


# (not cholesky's: its derivative's template writes np.eye(n), a NumPy array, which a device
# array, as CuPy's, refuses to meet; dask takes it: test_dask.py)
FUNCTIONS = [elementwise, reductions, products, division, selections, broadcasting, loop,
             scans_and_joins, stores]


def _arguments():
    rng = np.random.default_rng(7)
    x = rng.uniform(0.5, 1.5, 6)
    A = rng.normal(size=(6, 6))
    return x, A, rng.normal(size=6), rng.normal(size=(6, 6))


@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: f.__name__)
def test_derivatives_run_on_a_device_array_without_copying_it_to_the_host(func):
    x, A, tx, tA = _arguments()
    for derivative, extra in [(srcad.grad(func, wrt=(0, 1), verify=False), ()),
                              (srcad.vjp(func, wrt=(0, 1), verify=False), (0.7,)),
                              (srcad.jvp(func, wrt=(0, 1), verify=False), (tx, tA)),
                              (srcad.value_and_grad(func, verify=False), ())]:
        expected = derivative(x, A, *extra)
        device = derivative(Device(x), Device(A), *[Device(e) for e in extra])
        _same(device, expected)


def _same(device, expected):
    if isinstance(expected, tuple):
        assert isinstance(device, tuple) and len(device) == len(expected)
        for d, e in zip(device, expected):
            _same(d, e)
        return
    assert isinstance(device, Device), type(device)  # (computed on the device)
    assert device.dtype == np.result_type(expected)
    np.testing.assert_allclose(device.data, expected, rtol=1e-12, atol=1e-15)


def test_a_float32_device_array_gets_a_float32_gradient_on_the_device():
    x, A, _, _ = _arguments()
    g = srcad.grad(division, verify=False)(Device(x.astype(np.float32)),
                                           Device(A.astype(np.float32)))
    assert isinstance(g, Device) and g.dtype == np.float32
    expected = srcad.grad(division, verify=False)(x.astype(np.float32), A.astype(np.float32))
    np.testing.assert_allclose(g.data, expected, rtol=1e-5)


def guarded(x, A):
    return np.sum(np.sqrt(x) * A[0]) + np.sum(np.maximum(x, A[1]))


def test_guards_give_the_numpy_numbers_at_zeros_and_ties_without_looking():
    """safe_div's 0 / 0 = 0 (sqrt's infinite slope where its adjoint is 0) and maximum's ties
    (half each): on NumPy arrays the helpers look for NaNs and ties first; on device arrays they
    take np.where forms over every entry. The same numbers, bit for bit."""
    x = np.array([0.0, 1.5, 2.0, 0.0, 3.0, 0.5])
    A = np.array([[0.0, 1.0, 2.0, 0.0, -1.0, 0.5], [0.5, 1.5, 1.0, 0.0, 3.0, 2.0]] * 3)
    expected = srcad.grad(guarded, wrt=(0, 1), verify=False)(x, A)
    device = srcad.grad(guarded, wrt=(0, 1), verify=False)(Device(x), Device(A))
    for d, e in zip(device, expected):
        np.testing.assert_array_equal(d.data, e)
    assert not np.isnan(device[0].data).any()


def test_a_complex_device_array_is_refused_by_its_dtype():
    with pytest.raises(srcad.SrcadError, match="complex"):
        srcad.grad(elementwise, verify=False)(Device(np.ones(6) + 1j), Device(np.eye(6)))


def test_runtime_helpers_dispatch_on_the_array_s_own_type():
    from srcad import runtime
    x = Device(np.ones((2, 3), dtype=np.float32))
    assert runtime.array_like(x) and not runtime.on_host(x)
    assert not runtime.array_like(np.ones(2)) and runtime.on_host(np.ones(2))
    assert runtime.size_of(x) == 6 and runtime.size_of(2.5) == 1
    assert runtime.float_type(x) == np.float32
    zeros = runtime.zero_gradient(x)
    assert isinstance(zeros, Device) and zeros.dtype == np.float32 and zeros.shape == (2, 3)
    seed = runtime.grad_seed(Device(np.float64(3.0)))
    assert isinstance(seed, Device) and seed.shape == ()
    assert isinstance(runtime.copy_value(x), Device) and runtime.copy_value(x) is not x


def contraction(x, A):
    return np.sum(np.einsum("ij,j->i", A, x))


def test_einsum_skips_terms_with_a_zero_tangent_on_device_arrays_too():
    """einsum's tangent skips a term with an all-zero factor (on NumPy arrays, by a look at the
    factors): A's inf times x's zero tangent is not computed, so the tangent is finite. On device
    arrays every term is computed and np.where keeps the same terms: still finite, the same
    numbers (computing the term and adding it would give inf * 0 = nan)."""
    x = np.array([1.0, 2.0, 3.0])
    A = np.array([[1.0, np.inf, 0.5], [2.0, 1.0, -1.0]])
    tx, tA = np.zeros(3), np.array([[0.5, 0.0, 1.0], [1.0, 2.0, 0.0]])
    jvp = srcad.jvp(contraction, wrt=(0, 1), verify=False)
    expected = jvp(x, A, tx, tA)
    assert np.isfinite(expected)
    device = jvp(Device(x), Device(A), Device(tx), Device(tA))
    assert isinstance(device, Device)
    np.testing.assert_array_equal(device.data, expected)


def test_jacobian_hessian_and_check_grads_refuse_device_arrays():
    """They build dense NumPy results from the arguments' leaves, and a leaf is a NumPy array or
    a float: a device (or dask) array was no leaf, so it passed through untouched and jacobian
    returned f's value as the Jacobian, check_grads checked nothing. Now refused, by name."""
    x, A, _, _ = _arguments()
    for make, args in [(lambda: srcad.jacobian(elementwise), (Device(x), A)),
                       (lambda: srcad.jacobian(products, mode="forward"), (Device(x), A)),
                       (lambda: srcad.hessian(products), (Device(x), A)),
                       (lambda: srcad.hessian(products, mode="reverse-over-forward"),
                        (Device(x), A))]:
        with pytest.raises(srcad.SrcadError, match="takes NumPy arrays"):
            make()(*args)
    with pytest.raises(srcad.SrcadError, match="check_grads takes NumPy arrays"):
        srcad.check_grads(products, (Device(x), A))


def test_hessian_vector_products_run_on_device_arrays():
    x, A, tx, _ = _arguments()
    for product in (srcad.hvp(products, verify=False), srcad.hessp(products, verify=False)):
        expected = product(x, tx, A) if product.__name__.endswith("hessp") else product(x, A, tx)
        device = (product(Device(x), Device(tx), Device(A))
                  if product.__name__.endswith("hessp") else
                  product(Device(x), Device(A), Device(tx)))
        _same(device, expected)
