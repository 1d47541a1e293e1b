"""Checkpointing: the gradient of a 20,000-step recurrence without a 20,000-step tape.

Reverse mode runs the function forward, keeping what the adjoint sweep will need (the tape),
then sweeps backwards. Through a loop of T turns the tape holds T states. Marking the loop

    for t in srcad.checkpoint(range(T)):

makes srcad keep the state only at the start of every ~sqrt(T)-th turn; when the adjoint sweep
reaches a stretch, it puts the state back, runs the stretch's turns again (keeping their tape),
and sweeps back through them. Memory: about 2 sqrt(T) states instead of T; time: one more run
of the loop. The numbers are the same as without the mark (checked below, to rounding).

Run: python examples/checkpointing.py
"""
import tracemalloc

import numpy as np

import srcad


def rnn_loss(W, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def rnn_loss_checkpointed(W, h0, xs):
    h = h0
    for t in srcad.checkpoint(range(xs.shape[0])):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h ** 2)


def peak_megabytes(function, *args):
    function(*args)  # (the first call builds the code)
    tracemalloc.start()
    result = function(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, peak / 1e6


def main():
    rng = np.random.default_rng(0)
    W, h0, xs = rng.normal(size=(16, 16)) * 0.3, rng.normal(size=16), rng.normal(size=(20000, 16))
    plain, plain_mb = peak_megabytes(srcad.grad(rnn_loss), W, h0, xs)
    marked, marked_mb = peak_megabytes(srcad.grad(rnn_loss_checkpointed), W, h0, xs)
    gap = np.max(np.abs(plain - marked)) / np.max(np.abs(plain))
    print(f"T = {xs.shape[0]} steps, W {W.shape[0]} x {W.shape[1]}")
    print(f"gradient memory, every state kept:   {plain_mb:.2f} MB")
    print(f"gradient memory, srcad.checkpoint:   {marked_mb:.2f} MB")
    print(f"the two gradients differ by          {gap:.1e} (relative)")
    assert gap < 1e-12 and marked_mb * 10 < plain_mb
    print()
    print("The generated gradient (srcad.source):")
    text = srcad.source(rnn_loss_checkpointed, args=(W, h0, xs))
    print(text[text.index("def rnn_loss_checkpointed_grad"):])


if __name__ == "__main__":
    main()
