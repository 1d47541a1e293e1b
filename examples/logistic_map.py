"""Expression swell: why srcad differentiates the program, not a formula.

The logistic map l_{k+1} = 4 l_k (1 - l_k), iterated K times from l_0 = x. By the chain rule

    d l_K / d x = prod_{k=0}^{K-1} 4 (1 - 2 l_k)

srcad's gradient is checked against that product. A symbolic derivative of the written-out
formula for l_K is another matter: the formula holds two copies of l_{K-1}, so it doubles with
every step, and the product rule makes the derivative's formula bigger still. Below both are
written out as strings by the textbook rules, without sharing common subexpressions, to count
their length. The generated gradient stays a loop of a few lines, the same code for every K.

Run: python examples/logistic_map.py
"""
import numpy as np

import srcad


def logistic(x, K):
    l = x
    for k in range(K):
        l = 4.0 * l * (1.0 - l)
    return l


def derivative_by_chain_rule(x, K):
    l, slope = x, 1.0
    for k in range(K):
        slope *= 4.0 * (1.0 - 2.0 * l)
        l = 4.0 * l * (1.0 - l)
    return slope


def symbolic(K):
    """l_K and d l_K / dx as formulas in x, built by the symbolic rules with no sharing."""
    l, dl = "x", "1"
    for k in range(K):
        l, dl = f"4*({l})*(1-({l}))", f"4*(({dl})*(1-({l}))-({l})*({dl}))"
    return l, dl


def main():
    x = 0.3
    dlogistic = srcad.grad(logistic)
    print(" K   l_K           srcad d l_K/dx        chain-rule product    relative gap")
    for K in (1, 2, 5, 10, 20, 40):
        got, want = dlogistic(x, K), derivative_by_chain_rule(x, K)
        gap = abs(got - want) / abs(want)
        print(f"{K:2d}   {logistic(x, K):.9f}   {got: .12e}   {want: .12e}   {gap:.1e}")
        assert gap < 1e-12

    generated = srcad.source(logistic)
    body = generated[generated.index("def logistic_grad"):]
    print("\nWritten out without shared subexpressions, as symbolic differentiation does:")
    print(" K   characters in l_K   characters in d l_K/dx")
    for K in (1, 2, 4, 6, 8, 10):
        l, dl = symbolic(K)
        want = derivative_by_chain_rule(x, K)
        assert abs(eval(dl, {"x": x}) - want) < 1e-9 * max(1.0, abs(want))  # same number
        assert len(l) == 12 * 2 ** K - 11
        print(f"{K:2d}   {len(l):17d}   {len(dl):22d}")
    print(f"l_K's formula has 12 * 2^K - 11 characters: about 10^13 at K = 40. srcad's gradient "
          f"function is\n{len(body.strip().splitlines())} lines, the same code for every K.")

    print("\nThe generated gradient (srcad.source(logistic)):\n")
    print(generated)


if __name__ == "__main__":
    main()
