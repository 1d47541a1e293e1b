"""A small convolutional network by im2col, differentiated by srcad and trained by SGD.

A convolution is a matrix product once every k x k patch of the image is laid out as a row
(im2col). For images x of shape (N, C, H, W) and filters K of shape (F, C, k, k):

    patches[n, p, :] = x[n, :, i_p : i_p + k, j_p : j_p + k].ravel()     (p = one output pixel)
    conv = patches @ K.reshape(F, C k k).T + b                           (N, oh * ow, F)

The patches are gathered with two integer index arrays (rows, cols of every patch entry), built
from the shapes alone; the gradient of the gather is a scatter-add of the patch adjoints back
onto the pixels, which srcad generates from the indexing expression. The network is

    conv 3x3 (8 filters) -> relu -> 2x2 max pooling (reshape, then max) -> dense -> softmax

trained with a mean softmax cross-entropy. The same convolution written with numpy's stride
tricks (np.lib.stride_tricks.sliding_window_view) gives the same numbers and gradients. The
gradient is checked against central differences (srcad.check_grads) and used for a few epochs
of SGD on scikit-learn's 8x8 digits (random images of the same shape without scikit-learn).

Run: python examples/convnet.py
"""
import numpy as np

import srcad

try:
    from sklearn.datasets import load_digits
except ImportError:  # scikit-learn is optional
    load_digits = None


def patch_indices(height, width, k):
    """Index arrays (rows, cols), each (oh * ow, k * k): the pixels of every k x k patch."""
    oh, ow = height - k + 1, width - k + 1
    di, dj = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    oi, oj = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    rows = oi.reshape(-1, 1) + di.reshape(1, -1)
    cols = oj.reshape(-1, 1) + dj.reshape(1, -1)
    return rows, cols


def conv2d(x, K, b):
    """Valid convolution (cross-correlation) of x (N, C, H, W) with K (F, C, k, k), as im2col."""
    n, c, height, width = x.shape
    f, _, k, _ = K.shape
    rows, cols = patch_indices(height, width, k)
    patches = x[:, :, rows, cols]                      # (N, C, oh * ow, k * k)
    patches = patches.transpose(0, 2, 1, 3).reshape(n, rows.shape[0], c * k * k)
    out = patches @ K.reshape(f, c * k * k).T + b      # (N, oh * ow, F)
    return out.reshape(n, height - k + 1, width - k + 1, f)


def conv2d_strided(x, K, b):
    """The same convolution, with the patches as a strided view of x."""
    n, c, height, width = x.shape
    f, _, k, _ = K.shape
    windows = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))  # (N, C, oh, ow, k, k)
    return np.einsum("ncijab,fcab->nijf", windows, K) + b


def max_pool(h, size=2):
    """Max over non-overlapping size x size blocks of h (N, H, W, F)."""
    n, height, width, f = h.shape
    assert height % size == 0 and width % size == 0
    blocks = h.reshape(n, height // size, size, width // size, size, f)
    return np.max(blocks, axis=(2, 4))


def predict(params, x, conv):
    h = np.maximum(conv(x, params["K"], params["b_conv"]), 0.0)
    h = max_pool(h)
    h = h.reshape(h.shape[0], -1)
    return h @ params["W"] + params["b"]


def cross_entropy(logits, labels):
    zmax = np.max(logits, axis=1, keepdims=True)
    log_norm = np.log(np.sum(np.exp(logits - zmax), axis=1)) + zmax[:, 0]
    return np.mean(log_norm - logits[np.arange(len(labels)), labels])


# One loss per convolution, passed by name: srcad fails on a default argument that is a name
# (`def loss(params, x, labels, conv=conv2d)`, or `conv=conv2d` on predict: a NameError in the
# generated module, whose `def` line repeats the default), so no defaults here.
def loss(params, x, labels):
    return cross_entropy(predict(params, x, conv2d), labels)


def loss_strided(params, x, labels):
    return cross_entropy(predict(params, x, conv2d_strided), labels)


def load_data(rng):
    if load_digits is not None:
        digits = load_digits()
        x, labels = digits.images / 16.0, digits.target
    else:
        print("scikit-learn is not installed: training on random images of the digits' shape")
        x = rng.uniform(size=(1797, 8, 8))
        labels = rng.integers(0, 10, size=1797)
    order = rng.permutation(len(labels))
    return x[order][:, None, :, :], labels[order]      # one channel: (N, 1, 8, 8)


def main():
    rng = np.random.default_rng(0)
    x, labels = load_data(rng)
    x_train, y_train, x_test, y_test = x[:1000], labels[:1000], x[1500:], labels[1500:]
    filters, k = 8, 3
    params = {
        "K": rng.normal(scale=1.0 / k, size=(filters, 1, k, k)),
        "b_conv": np.full(filters, 0.1),  # not 0: blank patches would sit on relu's kink
        "W": rng.normal(scale=0.1, size=(filters * 3 * 3, 10)),
        "b": np.zeros(10),
    }

    xb, yb = x_train[:6], y_train[:6]
    for f in (loss, loss_strided):
        report = srcad.check_grads(f, (params, xb, yb), wrt=0)
        srcad_side, fd_side = report["reverse_vs_fd"]
        print(f"check_grads({f.__name__}): srcad {srcad_side:.10f}, "
              f"central differences {fd_side:.10f}")

    grads = srcad.grad(loss)(params, xb, yb)
    grads_strided = srcad.grad(loss_strided)(params, xb, yb)
    gap = max(np.max(np.abs(grads[name] - grads_strided[name])) for name in params)
    print(f"im2col by index arrays vs sliding_window_view: loss {loss(params, xb, yb):.10f} vs "
          f"{loss_strided(params, xb, yb):.10f}, max gradient gap {gap:.1e}")
    assert gap < 1e-12

    loss_grad = srcad.value_and_grad(loss)
    rate, batch = 0.5, 50
    epoch_losses = []
    for epoch in range(4):
        values = []
        for start in range(0, len(y_train), batch):
            value, grads = loss_grad(params, x_train[start:start + batch],
                                     y_train[start:start + batch])
            params = {name: p - rate * grads[name] for name, p in params.items()}
            values.append(value)
        epoch_losses.append(np.mean(values))
        test_accuracy = np.mean(np.argmax(predict(params, x_test, conv2d), axis=1) == y_test)
        print(f"epoch {epoch}: mean training loss {epoch_losses[-1]:.4f}, "
              f"test accuracy {test_accuracy:.3f}")
    print(f"mean training loss: first epoch {epoch_losses[0]:.4f}, last epoch {epoch_losses[-1]:.4f}")
    assert epoch_losses[-1] < epoch_losses[0]


if __name__ == "__main__":
    main()
