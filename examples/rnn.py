"""Backpropagation through time, generated: a tanh RNN unrolled in an ordinary Python loop.

    h_0 = 0,   h_{t+1} = tanh(W h_t + U x_t + b)   for t = 0 .. T-1,   loss = sum(h_T^2) / 2

srcad turns the loop into a forward loop that pushes the values the reverse sweep needs onto a
stack, then a reverse loop over the same range that pops them: backpropagation through time,
written out as plain numpy (printed at the end). The gradient is checked with srcad.check_grads
(central differences and the exact forward/reverse dot-product test) and against a
backpropagation through time written by hand.

Run: python examples/rnn.py
"""
import numpy as np

import srcad


def rnn_loss(W, U, b, xs):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t] + b)
    return 0.5 * np.sum(h * h)


def bptt_by_hand(W, U, b, xs):
    """The same gradient, derived by hand: keep every state, then walk back through time."""
    hs = [np.zeros(W.shape[0])]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(W @ hs[-1] + U @ xs[t] + b))
    dW, dU, db = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    dh = hs[-1]                                  # d loss / d h_T
    for t in reversed(range(xs.shape[0])):
        da = dh * (1.0 - hs[t + 1] ** 2)         # through tanh
        dW += np.outer(da, hs[t])
        dU += np.outer(da, xs[t])
        db += da
        dh = W.T @ da
    return dW, dU, db


def main():
    rng = np.random.default_rng(0)
    hidden, inputs, T = 4, 3, 6
    W = rng.normal(scale=0.5, size=(hidden, hidden))
    U = rng.normal(scale=0.5, size=(hidden, inputs))
    b = rng.normal(scale=0.1, size=hidden)
    xs = rng.normal(size=(T, inputs))

    dW, dU, db = srcad.grad(rnn_loss, wrt=(0, 1, 2))(W, U, b, xs)
    print(f"loss = {rnn_loss(W, U, b, xs):.6f}   ({T} steps, hidden size {hidden})")
    print(f"dL/db = {np.array2string(db, precision=6)}")

    report = srcad.check_grads(rnn_loss, (W, U, b, xs), wrt=(0, 1, 2))
    srcad_side, fd_side = report["reverse_vs_fd"]
    forward_side, reverse_side = report["dot_product"]
    print(f"check_grads: <v, J^T w> = {srcad_side:.12f}, central differences {fd_side:.12f}")
    print(f"             dot-product test: forward {forward_side:.15f}, "
          f"reverse {reverse_side:.15f}")

    by_hand = bptt_by_hand(W, U, b, xs)
    gap = max(np.max(np.abs(a - e)) for a, e in zip((dW, dU, db), by_hand))
    print(f"max |srcad - hand-written BPTT| over dW, dU, db = {gap:.1e}")
    assert gap < 1e-12

    print("\nThe generated gradient (srcad.source(rnn_loss, wrt=(0, 1, 2))):\n")
    print(srcad.source(rnn_loss, wrt=(0, 1, 2)))


if __name__ == "__main__":
    main()
