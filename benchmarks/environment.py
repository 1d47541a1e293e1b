"""What every benchmark sets before NumPy and srcad load (import this first).

One BLAS/OpenMP (and XLA) thread unless the caller decided otherwise: timings of one thread do
not depend on how a shared machine schedules several. plain_builds() drops srcad's settings that
would change what is measured: the on-disk cache (cold builds must build), verify mode (it runs
the unoptimized derivative too) and passes switched off.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
# JAX's CPU backend (XLA) likewise, when jax is installed (torch reads OMP_NUM_THREADS; the
# torch adapter also calls torch.set_num_threads(1))
if os.environ["OMP_NUM_THREADS"] == "1":
    os.environ.setdefault("XLA_FLAGS",
                          "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")


def plain_builds(names=("SRCAD_CACHE_DIR", "SRCAD_VERIFY", "SRCAD_DISABLE")):
    """Drop these srcad settings from the environment; return what they held (None: unset)."""
    return {name: os.environ.pop(name, None) for name in names}
