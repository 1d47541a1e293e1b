"""The finite-difference oracle, made hard to fool.

Central differences are noisy: truncation error grows with the step, rounding error shrinks
with it, and near a kink or a branch flip they measure nothing. So along a direction v we take
two independent estimates of J v:

    R = (4 D(h/2) - D(h)) / 3   with h = 1e-4   (Richardson: truncation O(h^4), little rounding)
    D = D(1e-6)                                 (plain central difference: other errors)

where D(h) = (F(x + h v) - F(x - h v)) / 2h. Their difference estimates the oracle's own error.
A derivative is called wrong only when

  * the two estimates agree with each other, relative to their own size (the function is
    smooth at this scale: if they do not, the verdict is "unsure" and nothing is reported),
    and
  * srcad's number differs from *both* by more than 1e-6 of the scale (norms of the vectors
    involved, so cancellation in an inner product cannot fake a mismatch) plus ten times the
    oracle's error estimate, and
  * the same holds again with other steps (3e-5 and 3e-7): confirm().

Comparisons are made on contractions <J v, w> (reverse mode, gradients) or on the whole vector
J v (forward mode, Hessian-vector products), in float64.
"""
import numpy as np

STEPS = (1e-4, 1e-6)
CONFIRM_STEPS = (3e-5, 3e-7)
RTOL = 1e-6


def flat(value):
    """Any output (a number, an array, a tuple of them) as one float64 vector."""
    if isinstance(value, (tuple, list)):
        parts = [flat(v) for v in value]
        return np.concatenate(parts) if parts else np.zeros(0)
    return np.ravel(np.asarray(value, dtype=np.float64))


def norm(value):
    """The 2-norm, without underflow for tiny values (np.linalg.norm of [1e-200] is 0)."""
    v = flat(value)
    top = float(np.max(np.abs(v), initial=0.0))
    if top == 0.0 or not np.isfinite(top):
        return top
    return top * float(np.linalg.norm(v / top))


def shifted(args, direction, t):
    """args with args[i] += t * direction[i] for each position i in direction (a dict)."""
    moved = list(args)
    for i, v in direction.items():
        if isinstance(args[i], np.ndarray):
            moved[i] = np.asarray(args[i], dtype=np.float64) + t * np.asarray(v)
        else:
            moved[i] = float(args[i]) + t * float(v)
    return moved


class Differences:
    """Estimates of d/dt F(x + t v) at t = 0 for a function of fresh arguments.

    func(args) -> output; make_args() -> fresh arguments (lists and dicts are new each time);
    direction: {position: tangent}."""

    def __init__(self, func, make_args, direction, steps=STEPS):
        self.func = func
        self.make_args = make_args
        self.direction = direction
        self.steps = steps
        h, small = steps
        with np.errstate(all="ignore"):
            big = self._central(h)
            half = self._central(h / 2)
            self.richardson = (4.0 * half - big) / 3.0
            self.plain = self._central(small)
        self.error = norm(self.richardson - self.plain)
        self.finite = bool(np.all(np.isfinite(self.richardson)) and np.all(np.isfinite(self.plain)))

    def _central(self, h):
        plus = flat(self.func(shifted(self.make_args(), self.direction, h)))
        minus = flat(self.func(shifted(self.make_args(), self.direction, -h)))
        return (plus - minus) / (2.0 * h)

    def again(self):
        """The same estimates with other steps (for confirmation)."""
        return Differences(self.func, self.make_args, self.direction, CONFIRM_STEPS)


def verdict(got, want_r, want_d, scale, floor):
    """'ok', 'unsure' (the oracle is not reliable here) or 'wrong'. got, want_*: numbers or
    vectors; scale: the size the error is relative to; floor: an absolute tolerance."""
    got, want_r, want_d = flat(got), flat(want_r), flat(want_d)
    if got.shape != want_r.shape:
        return "wrong"
    if not np.all(np.isfinite(got)):
        return "wrong" if np.all(np.isfinite(want_r)) else "unsure"
    if not (np.all(np.isfinite(want_r)) and np.all(np.isfinite(want_d))):
        return "unsure"
    oracle_error = norm(want_r - want_d)
    # (judged on the estimates' own size: srcad's number, possibly huge and wrong, must not
    # make a chaotic function look smooth)
    if oracle_error > 1e-3 * max(norm(want_r), norm(want_d)) + floor:
        return "unsure"  # a kink, a branch flip or heavy rounding within the steps
    threshold = RTOL * scale + 10.0 * oracle_error + floor
    off_r = norm(got - want_r)
    off_d = norm(got - want_d)
    return "wrong" if off_r > threshold and off_d > threshold else "ok"


def check_vector(got, differences, floor):
    """Compare a whole J v (or H v) with the estimates; a "wrong" is confirmed with other
    steps (or becomes "unsure")."""
    def one(d):
        scale = max(norm(d.richardson), norm(got))
        return verdict(got, d.richardson, d.plain, scale, floor)
    return _confirmed(one, differences)


def check_contraction(got, differences, w, scale_extra, floor):
    """Compare a number srcad computed, <v, J^T w> (or <g, v>), with <w, J v> estimated;
    scale_extra: the norm product on srcad's side (|v| |J^T w|)."""
    def one(d):
        r = float(np.dot(flat(w), d.richardson))
        p = float(np.dot(flat(w), d.plain))
        scale = max(norm(w) * norm(d.richardson), scale_extra, abs(got))
        if norm(w) * d.error > 1e-3 * norm(w) * max(norm(d.richardson), norm(d.plain)) + floor:
            return "unsure"  # the estimated vectors disagree: not smooth at this scale
        return verdict(got, r, p, scale, floor)
    return _confirmed(one, differences)


def _confirmed(one, differences):
    result = one(differences)
    if result == "wrong" and one(differences.again()) != "wrong":
        return "unsure"
    return result
