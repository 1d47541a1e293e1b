"""analysis/isolation.py: Saved puts back what a block changed of the state its roots reach."""
import random

import numpy as np

from srcad.analysis import isolation
from srcad.analysis.isolation import roots_of, Saved


class Holder:
    def __init__(self):
        self.rng = np.random.default_rng(1)
        self.items = [1, 2]
        self.count = 0


def test_containers_objects_and_generators_are_put_back():
    log, table, seen, holder = [0], {"a": 1}, {1}, Holder()
    legacy = np.random.RandomState(4)
    nested = {"inner": [holder]}
    loop = []
    loop.append(loop)  # (a cycle: followed once)
    before = (legacy.get_state()[1].copy(), holder.rng.bit_generator.state, random.getstate(),
              np.random.get_state()[1].copy())
    with Saved([log, table, seen, nested, legacy, loop]):
        log.append(5)
        table["b"] = 2
        seen.add(2)
        holder.items.append(3)
        holder.count += 1
        holder.extra = True
        legacy.randn(3)
        holder.rng.normal(size=3)
        random.random()
        np.random.rand()
        loop.append(1)
    assert log == [0] and table == {"a": 1} and seen == {1} and loop == [loop]
    assert holder.items == [1, 2] and holder.count == 0 and not hasattr(holder, "extra")
    np.testing.assert_array_equal(legacy.get_state()[1], before[0])
    assert holder.rng.bit_generator.state == before[1] and random.getstate() == before[2]
    np.testing.assert_array_equal(np.random.get_state()[1], before[3])


def test_put_back_when_the_block_raises():
    log = []
    try:
        with Saved([log]):
            log.append(1)
            raise ValueError
    except ValueError:
        pass
    assert log == []


def test_large_containers_are_left_as_they_are():
    big = list(range(isolation.LARGE + 1))
    with Saved([big]):
        big.append(-1)
    assert big[-1] == -1


COUNTER = []


def helper():
    COUNTER.append(1)


def uses_helper(x):
    helper()
    return x


def test_roots_reach_the_globals_of_helpers():
    with Saved(roots_of(uses_helper, (1.0,))):
        uses_helper(1.0)
    assert COUNTER == []


def test_replayed_runs_each_see_the_first_state_and_leave_the_first_runs():
    rng = np.random.default_rng(2)
    draws = []
    with isolation.Replayed([rng]) as replay:
        for _ in range(3):
            draws.append(replay.call(rng.normal))
    assert draws[0] == draws[1] == draws[2]
    once = np.random.default_rng(2)
    once.normal()
    assert rng.bit_generator.state == once.bit_generator.state


def test_quiet_drops_this_threads_prints_alone(capsys):
    import threading
    other_printed = threading.Event()

    def other():
        print("other thread")
        other_printed.set()
    with isolation.quiet():
        print("dropped")
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        with isolation.quiet():  # (nested: still quiet after the inner block ends)
            print("dropped too")
        print("dropped as well")
    print("shown")
    assert other_printed.is_set()
    assert capsys.readouterr().out == "other thread\nshown\n"
