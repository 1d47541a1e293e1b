"""An LSTM written the way one writes it in NumPy, differentiated by srcad through time.

One step of a long short-term memory cell, with [h, x] the previous state and the input
concatenated and sigma the logistic function:

    f = sigma([h, x] Wf + bf)      forget gate
    i = sigma([h, x] Wi + bi)      input gate
    o = sigma([h, x] Wo + bo)      output gate
    g = tanh([h, x] Wc + bc)       candidate cell
    c' = f * c + i * g,   h' = o * tanh(c')

The parameters live in a dict (params["Wf"], ...), each gate is a helper that looks its weights
up by name, and the step is a helper returning the tuple (h, c), unpacked in the loop over the
sequence. The task: read a noisy sine wave and predict its next value from every state, so the
loss is the mean squared error over all time steps, summed with a generator expression.

srcad generates backpropagation through time from this code: the forward loop stores what the
reverse loop needs, and the gradient comes back as a dict with the keys of params. It is checked
against central differences (srcad.check_grads), then a few hundred Adam steps, written with
dict comprehensions over params.items(), fit the predictor.

Run: python examples/lstm.py
"""
import numpy as np

import srcad

GATES = ("f", "i", "o", "c")


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


# activation has no default (`activation=sigmoid`): srcad refuses a helper's function-valued
# default when the call leaves it out, and fails on a name as a default (NameError).
def gate(params, name, hx, activation):
    return activation(hx @ params["W" + name] + params["b" + name])


def lstm_step(params, h, c, x):
    hx = np.concatenate([h, x], axis=-1)
    f = gate(params, "f", hx, sigmoid)
    i = gate(params, "i", hx, sigmoid)
    o = gate(params, "o", hx, sigmoid)
    g = gate(params, "c", hx, np.tanh)
    c = f * c + i * g
    h = o * np.tanh(c)
    return h, c


def loss(params, xs, targets):
    """Mean squared error of the next-value predictions made from every hidden state."""
    batch, steps, _ = xs.shape
    hidden = params["Wy"].shape[0]
    h, c = np.zeros((batch, hidden)), np.zeros((batch, hidden))
    predictions = []
    for t in range(steps):
        h, c = lstm_step(params, h, c, xs[:, t])
        predictions.append(h @ params["Wy"] + params["by"])
    assert len(predictions) == targets.shape[1]
    return sum(np.mean((p - targets[:, t]) ** 2) for t, p in enumerate(predictions)) / steps


def init_params(inputs, hidden, rng):
    params = {}
    for name in GATES:
        params["W" + name] = rng.normal(scale=1.0 / np.sqrt(hidden + inputs),
                                        size=(hidden + inputs, hidden))
        params["b" + name] = np.zeros(hidden)
    params["bf"] += 1.0  # remember by default
    params["Wy"] = rng.normal(scale=1.0 / np.sqrt(hidden), size=(hidden, 1))
    params["by"] = np.zeros(1)
    return params


def make_data(rng, batch, steps):
    """Noisy sine waves with random phases and frequencies; the target is the next value."""
    phase = rng.uniform(0, 2 * np.pi, size=(batch, 1))
    freq = rng.uniform(0.3, 0.6, size=(batch, 1))
    wave = np.sin(phase + freq * np.arange(steps + 1))
    noisy = wave + 0.05 * rng.normal(size=wave.shape)
    return noisy[:, :-1, None], wave[:, 1:, None]


def main():
    rng = np.random.default_rng(0)
    inputs, hidden, steps = 1, 8, 12
    params = init_params(inputs, hidden, rng)
    xs, targets = make_data(rng, 32, steps)

    report = srcad.check_grads(loss, (params, xs[:4], targets[:4]), wrt=0)
    srcad_side, fd_side = report["reverse_vs_fd"]
    print(f"check_grads: srcad {srcad_side:.10f}, central differences {fd_side:.10f}")

    loss_grad = srcad.value_and_grad(loss)
    value, grads = loss_grad(params, xs, targets)
    assert grads.keys() == params.keys()
    assert all(grads[k].shape == v.shape for k, v in params.items())

    rate, beta1, beta2 = 0.02, 0.9, 0.999
    m = {k: np.zeros_like(v) for k, v in params.items()}
    s = {k: np.zeros_like(v) for k, v in params.items()}
    history = []
    for step in range(1, 201):
        value, grads = loss_grad(params, xs, targets)
        m = {k: beta1 * m[k] + (1 - beta1) * g for k, g in grads.items()}
        s = {k: beta2 * s[k] + (1 - beta2) * g ** 2 for k, g in grads.items()}
        params = {k: v - rate * (m[k] / (1 - beta1 ** step))
                  / (np.sqrt(s[k] / (1 - beta2 ** step)) + 1e-8)
                  for k, v in params.items()}
        history.append(value)
        if step == 1 or step % 40 == 0:
            print(f"step {step:3d}: loss {value:.5f}")
    test_xs, test_targets = make_data(np.random.default_rng(1), 32, steps)
    print(f"loss: first step {history[0]:.5f}, last step {history[-1]:.5f}, "
          f"on new waves {loss(params, test_xs, test_targets):.5f}")
    assert history[-1] < 0.1 * history[0]


if __name__ == "__main__":
    main()
