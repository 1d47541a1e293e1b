"""The optimizations in the order they run, each declared once (manager.Pass): its stage name,
the PASSES name that switches it off, the builds it runs for, the facts it reads and keeps.

    forward mode:   proportional, simplify (constants, copies, dead_code), [hoist], strength,
                    layout
    reverse mode:   simplify, [guards, cancel, broadcasts, factor, contract, diagonal,
                    resimplify], signs, inplace, [tiles], [turns], [singular], [outer],
                    [rank_one], [factorizations], [strength], [layout]
                                                              ([...]: shape-specialized builds)

pipeline.improve builds the facts of the build and hands this table to manager.run_passes.
"""
from ..runtime import GUARDED_OPERATIONS, STRONG_ZERO_OPERATIONS
from .broadcasts import sink_broadcasts
from .cancel import cancel_factors
from .contract import contract_sums
from .copies import copies
from .deadcode import dead_code
from .diagonal import scale_by_diagonals
from .factor import factor_contributions
from .factorizations import FACTORING, share_factorizations
from .guards import drop_unmet_guards
from .hoist import hoist_row_products
from .inplace import in_place
from .layout import lay_out
from .manager import Group, Pass
from .outer import batch_outer_products
from .proportional import fold_proportional
from .rank_one import keep_rank_one
from .signs import sink_signs
from .simplify import constants
from .singular import drop_singular_guards
from .strength import reduce_strength
from .tiles import concatenate_tiles
from .turns import batch_turn_expressions

REVERSE, FORWARD = ("reverse",), ("forward",)


def simplify():
    """The three cleanups, one stage: constants binds no name, so the bound counts it read
    are still those of the code copies reads."""
    return [Pass("constants", constants, switch="constants", keeps=("binds", "top_once"),
                 needs=("derived", "float64", "top_once", "mutated", "inexact", "arrays")),
            Pass("copies", copies, switch="copies", needs=("binds", "loads", "params")),
            Pass("dead_code", dead_code, switch="dead_code")]


PIPELINE = (
    Pass("proportional", fold_proportional, switch="proportional", modes=FORWARD,
         needs=("tangents", "reads_writes")),
    Group("simplify", simplify()),
    Pass("guards", drop_unmet_guards, switch="guards", modes=REVERSE, specialized=True,
         needs=("params", "float_of", "shapes", "singular", "binds", "top_once",
                "arrays", "callee"),
         calls=tuple(GUARDED_OPERATIONS)),
    Pass("cancel", cancel_factors, switch="cancel", modes=REVERSE, specialized=True,
         needs=("derived", "shape_of", "float_of", "params", "binds", "top_once", "loads",
                "mutated")),
    Pass("broadcasts", sink_broadcasts, switch="broadcasts", modes=REVERSE, specialized=True,
         needs=("shape_of", "fresh", "loads", "new_shapes", "float_of")),
    Pass("factor", factor_contributions, switch="factor", modes=REVERSE, specialized=True,
         needs=("derived", "shape_of", "float_of", "binds", "loads")),
    Pass("contract", contract_sums, switch="contract", modes=REVERSE, specialized=True,
         needs=("shape_of", "float_of", "top_once", "derived", "returns_values")),
    Pass("hoist", hoist_row_products, switch="hoist", modes=FORWARD, specialized=True,
         needs=("top_once", "binds", "params", "mutated", "arrays", "shape_of", "derived",
                "returns_values", "fresh_name", "new_shapes", "shapes")),
    Pass("diagonal", scale_by_diagonals, switch="diagonal", modes=REVERSE, specialized=True,
         needs=("shape_of", "loads", "binds", "derived", "returns_values", "arrays",
                "inexact", "mutated"),
         calls=("np.diag", "np.diagonal", "np.trace", "undiag", "undiagonal")),
    Group("resimplify", simplify(), modes=REVERSE, specialized=True),
    Pass("signs", sink_signs, switch="signs", modes=REVERSE, needs=("derived", "binds"),
         keeps=("binds", "loads", "top_once")),  # (only minus signs and + - change)
    Pass("inplace", in_place, switch="inplace", modes=REVERSE,
         needs=("params", "seeded", "shape_of", "binds")),
    Pass("tiles", concatenate_tiles, switch="tiles", modes=REVERSE, specialized=True,
         needs=("shape_of", "float64", "params", "binds"), calls=("np.zeros",)),
    Pass("turns", batch_turn_expressions, switch="turns", modes=REVERSE, specialized=True,
         needs=("top_once", "shape_of", "arrays", "mutated", "fresh_name", "loads", "binds")),
    Pass("singular", drop_singular_guards, switch="singular", when=lambda b: bool(b.singular),
         needs=("singular", "binds", "arrays"), calls=tuple(STRONG_ZERO_OPERATIONS)),
    Pass("outer", batch_outer_products, switch="outer", modes=REVERSE, specialized=True,
         needs=("shape_of", "fresh_name", "mutated"), calls=("np.outer",)),
    Pass("rank_one", keep_rank_one, switch="rank_one", modes=REVERSE, specialized=True,
         needs=("shape_of", "loads", "binds"), calls=("np.outer",)),
    Pass("factorizations", share_factorizations, switch="factorizations", modes=REVERSE,
         specialized=True, needs=("shape_of", "float_of", "binds", "params", "fresh_name",
                                  "derived", "returns_values"), calls=FACTORING),
    Pass("strength", reduce_strength, switch="strength", specialized=True,
         needs=("inexact", "arrays", "shapes")),
    Pass("layout", lay_out, switch="layout", specialized=True,
         needs=("arrays", "shape_of", "shapes", "returns_values"),
         keeps=("binds", "loads", "top_once")),
)


def stages():
    """The stage names of PIPELINE in order: each pass's and each group's (a pass of a group
    first, then the group)."""
    out = []
    for entry in PIPELINE:
        for member in getattr(entry, "passes", ()):
            if member.name not in out:
                out.append(member.name)
        if entry.name not in out:
            out.append(entry.name)
    return tuple(out)


def by_name(name):
    """The Pass of PIPELINE with this stage name (the first one)."""
    for entry in PIPELINE:
        for member in getattr(entry, "passes", (entry,)):
            if member.name == name:
                return member
    raise KeyError(name)
