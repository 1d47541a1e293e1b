"""A differential fuzzer for srcad: random NumPy programs, every derivative srcad makes of them,
and oracles that do not depend on srcad.

    generator.py   random differentiable programs (seeded, deterministic), built from the
                   construct families in exprs.py, stmts.py and helpers.py over scope.py's
                   symbolic shapes; guards.py keeps them away from non-differentiable points
    program.py     a Program: module source, parameters, sizes of each call, argument values
    oracle.py      central differences with two step sizes, comparisons scaled by norms
    checker.py     runs one program through grad, value_and_grad, vjp, jvp, hvp (optimized, with
                   verify mode on, and with every optimization disabled) and reports failures
                   and refusals
    shrink.py      reduces a failing program to a few lines that still fail the same way
    runner.py      batches: run, classify, shrink, summarize, write reproductions
    __main__.py    `python -m tests.fuzz --count N --seed S` (make fuzz)
    test_fuzz.py   the fixed-seed batch pytest runs
    findings/      one runnable reproduction per bug mechanism found so far
"""
