"""The functions of the benchmark workloads (benchmarks/workloads.py), for tests that
differentiate them: fresh_functions() runs the workloads' source in a namespace of its own (a
new file, so srcad's caches never match an earlier build)."""
import os
import sys

_BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "benchmarks")
sys.path.insert(0, _BENCHMARKS)
from workloads import fresh_functions  # noqa: E402,F401
sys.path.remove(_BENCHMARKS)
