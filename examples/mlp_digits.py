"""A multilayer perceptron on handwritten digits, trained with gradients srcad generates.

The network is a list of layers, each a (W, b) tuple, applied in a plain Python loop:

    h_0 = x,   h_{l+1} = tanh(h_l W_l + b_l) * m_l / (1 - p)   (hidden layers, dropout mask m_l)
    logits = h_{L-1} W_{L-1} + b_{L-1}

and the loss is the mean softmax cross-entropy, with the log-sum-exp written out the stable way
(subtract the row maximum before exponentiating):

    logsumexp(z) = max(z) + log(sum(exp(z - max(z))))
    loss = mean(logsumexp(logits) - logits[label]) + lam/2 * sum(W^2)

Dropout masks are drawn outside the loss from a fixed RandomState and passed in, so the loss is
a deterministic function of the parameters (as it is inside one SGD step). srcad reads the loop
over `params`, the tuple unpacking and the comprehension in the weight penalty, and generates a
gradient that returns the parameters' structure: a list of (dW, db) tuples. It is checked
against central differences (srcad.check_grads), then used for a few epochs of minibatch SGD on
scikit-learn's 8x8 digits (1797 images, shipped with scikit-learn: no download). Without
scikit-learn the script says so and trains on random data of the same shape.

Run: python examples/mlp_digits.py
"""
import numpy as np

import srcad

try:
    from sklearn.datasets import load_digits
except ImportError:  # scikit-learn is optional
    load_digits = None


def logsumexp(z):
    """log(sum(exp(z), axis=1)) for each row of z, without overflow."""
    zmax = np.max(z, axis=1, keepdims=True)
    return np.log(np.sum(np.exp(z - zmax), axis=1)) + zmax[:, 0]


def predict(params, x, masks, keep=0.8):
    """The logits of the network; masks holds one 0/1 dropout mask per hidden layer."""
    # srcad refuses a starred target (`*hidden, (W_out, b_out) = params`): slice instead
    hidden, (W_out, b_out) = params[:-1], params[-1]
    h = x
    for (W, b), mask in zip(hidden, masks):
        h = np.tanh(h @ W + b) * mask / keep
    return h @ W_out + b_out


def loss(params, x, labels, masks, lam=1e-4):
    logits = predict(params, x, masks)
    assert logits.shape == (x.shape[0], 10)
    picked = logits[np.arange(x.shape[0]), labels]
    cross_entropy = np.mean(logsumexp(logits) - picked)
    penalty = sum(np.sum(W ** 2) for W, b in params)
    return cross_entropy + 0.5 * lam * penalty


def accuracy(params, x, labels):
    ones = [np.ones(W.shape[1]) for W, b in params[:-1]]  # no dropout at test time
    return np.mean(np.argmax(predict(params, x, ones, keep=1.0), axis=1) == labels)


def load_data(rng):
    if load_digits is not None:
        digits = load_digits()
        x, labels = digits.data / 16.0, digits.target
    else:
        print("scikit-learn is not installed: training on random data of the digits' shape")
        x = rng.uniform(size=(1797, 64))
        labels = rng.integers(0, 10, size=1797)
    order = rng.permutation(len(labels))
    return x[order], labels[order]


def init_params(sizes, rng):
    return [(rng.normal(scale=1.0 / np.sqrt(m), size=(m, n)), np.zeros(n))
            for m, n in zip(sizes[:-1], sizes[1:])]


def main():
    rng = np.random.RandomState(0)
    x, labels = load_data(np.random.default_rng(0))
    x_train, y_train, x_test, y_test = x[:1500], labels[:1500], x[1500:], labels[1500:]
    sizes = [64, 32, 32, 10]
    params = init_params(sizes, rng)

    def draw_masks(n):
        return [(rng.uniform(size=(n, m)) < 0.8).astype(float) for m in sizes[1:-1]]

    # check the gradient on a small batch, every parameter at once
    masks = draw_masks(8)
    report = srcad.check_grads(loss, (params, x_train[:8], y_train[:8], masks), wrt=0)
    srcad_side, fd_side = report["reverse_vs_fd"]
    print(f"check_grads: srcad {srcad_side:.10f}, central differences {fd_side:.10f}")

    loss_grad = srcad.value_and_grad(loss)
    value, grads = loss_grad(params, x_train[:8], y_train[:8], masks)
    assert [(dW.shape, db.shape) for dW, db in grads] == [(W.shape, b.shape) for W, b in params]

    print(f"initial test accuracy {accuracy(params, x_test, y_test):.3f}")
    batch, rate = 50, 0.5
    epoch_losses = []
    for epoch in range(5):
        losses = []
        for start in range(0, len(y_train), batch):
            xb, yb = x_train[start:start + batch], y_train[start:start + batch]
            value, grads = loss_grad(params, xb, yb, draw_masks(len(yb)))
            params = [(W - rate * dW, b - rate * db) for (W, b), (dW, db) in zip(params, grads)]
            losses.append(value)
        epoch_losses.append(np.mean(losses))
        print(f"epoch {epoch}: mean training loss {np.mean(losses):.4f}, "
              f"test accuracy {accuracy(params, x_test, y_test):.3f}")
    print(f"mean training loss: first epoch {epoch_losses[0]:.4f}, last epoch {epoch_losses[-1]:.4f}")
    assert epoch_losses[-1] < epoch_losses[0]
    if load_digits is not None:
        assert accuracy(params, x_test, y_test) > 0.85


if __name__ == "__main__":
    main()
