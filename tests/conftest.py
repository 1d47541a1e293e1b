import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

# Verify mode (srcad/verify.py) throughout the suite: every new specialization of a derivative is
# compared with the unoptimized derivative on its first call, and must leave its arguments alone.
os.environ.setdefault("SRCAD_VERIFY", "1")


@pytest.fixture
def rng():
    return np.random.default_rng(0)
