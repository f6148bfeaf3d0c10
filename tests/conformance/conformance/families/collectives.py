"""Collectives through jax.shard_map over 4 host devices: all-reduce (psum, pmax,
pmin, pmean), all-gather, reduce-scatter (psum_scatter), all-to-all,
collective-permute (ppermute) and partition-id (axis_index), on a 1-D mesh and on
a 2x2 mesh (replica groups that are not the whole set)."""
import functools

import jax
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from .. import values as V
from ..core import Case
from ..tolerance import Accum, eps


@functools.cache
def _mesh1():
    return Mesh(np.array(jax.devices()[:4]), ("i",))


@functools.cache
def _mesh2():
    return Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("a", "b"))


SPMD_NOTES = ("SPMD: one program for 4 partitions (num_partitions=4, num_replicas=1). The entry computation "
              "takes and returns global arrays (arg<i>.npy / out<j>.npy); xla.sdy.GlobalToLocalShape splits them "
              "into the per-partition values (arg<i>.d<k>.npy), the body xla.sdy.manual_computation_body runs "
              "once per partition k (partition-id() = k), and xla.sdy.LocalToGlobalShape concatenates the "
              "per-partition results (out<j>.d<k>.npy). ")


def _smap(mesh, body, in_specs, out_specs):
    return jax.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs)


def _case(name, mesh, body, args, in_specs, out_specs, op, notes, **kw):
    shardings = [NamedSharding(mesh, s) for s in in_specs]
    return Case("collectives", name, _smap(mesh, body, tuple(in_specs), out_specs), args, op,
                shardings=shardings, notes=SPMD_NOTES + notes, **kw)


def cases():
    m = _mesh1()
    x = V.floats("f32", (8, 3), 3000, sample=V.normal(4), with_specials=False)
    x[0, 0], x[2, 1], x[4, 2] = np.nan, np.inf, -0.0
    xi = V.random("s32", (8, 3), 3001, low=-1000, high=1000)
    xi[0, 0] = np.iinfo(np.int32).max
    xi[2, 0] = 1  # wraps when summed with the maximum
    ints = np.arange(4, dtype=np.float32).reshape(4, 1) * 10 + np.arange(3, dtype=np.float32)
    bound = 4 * eps(np.float32) * float(np.max(np.abs(x[np.isfinite(x)]))) * 4
    yield _case("psum_f32", m, lambda v: lax.psum(v, "i"), [x], [P("i")], P("i"), "all-reduce",
                "psum: all-reduce add over the 4 partitions (every partition gets the sum; NaN/inf propagate); "
                "the association order of the 4 addends is unspecified",
                tolerance=Accum(bound), reference=lambda v: np.tile(v.reshape(4, 2, 3).sum(0), (4, 1)))
    yield _case("psum_s32_wraps", m, lambda v: lax.psum(v, "i"), [xi], [P("i")], P("i"), "all-reduce",
                "integer all-reduce wraps")
    yield _case("pmax_pmin", m, lambda v: (lax.pmax(v, "i"), lax.pmin(v, "i")), [x], [P("i")], (P("i"), P("i")),
                "all-reduce", "all-reduce with maximum / minimum")
    yield _case("pmean_exact", m, lambda v: lax.pmean(v, "i"), [ints], [P("i")], P("i"), "all-reduce",
                "pmean = psum / 4 (integer-valued: exact)")
    yield _case("all_gather_stacked", m, lambda v: lax.all_gather(v, "i")[None], [x], [P("i")], P("i"),
                "all-gather", "all_gather without tiled: reshape to [1,2,3], all-gather dimension 0 -> [4,2,3]")
    yield _case("all_gather_tiled_dim1", m, lambda v: lax.all_gather(v, "i", axis=1, tiled=True), [x], [P("i")],
                P("i"), "all-gather", "tiled all_gather along dimension 1: [2,3] -> [2,12] on every partition")
    yield _case("psum_scatter", m, lambda v: lax.psum_scatter(v, "i", scatter_dimension=1, tiled=True),
                [V.floats("f32", (4, 8), 3002, sample=V.normal(1), with_specials=False)], [P("i")], P("i"),
                "reduce-scatter", "reduce-scatter: sum, then partition k keeps block k of dimension 1")
    yield _case("all_to_all", m, lambda v: lax.all_to_all(v, "i", split_axis=1, concat_axis=0, tiled=True),
                [np.arange(64, dtype=np.int32).reshape(4, 16)], [P("i")], P("i"), "all-to-all",
                "all-to-all: each [1,16] block is split along dimension 1 into 4 parts, part j goes to "
                "partition j, received parts are concatenated along dimension 0 -> [4,4]")
    ring = [(k, (k + 1) % 4) for k in range(4)]
    yield _case("ppermute_ring", m, lambda v: lax.ppermute(v, "i", ring), [x], [P("i")], P("i"),
                "collective-permute", "ring shift: partition k receives from k-1")
    yield _case("ppermute_partial", m, lambda v: lax.ppermute(v, "i", [(0, 2), (1, 3)]), [xi], [P("i")], P("i"),
                "collective-permute", "partitions 0 and 1 are no pair's target and get zeros")
    yield _case("axis_index", m, lambda v: v + lax.axis_index("i").astype(v.dtype), [xi], [P("i")], P("i"),
                "partition-id", "axis_index: partition-id() converted to s32 (divided by 1, remainder 4)")
    m2 = _mesh2()
    y = np.arange(16, dtype=np.float32).reshape(4, 4)
    yield _case("mesh2x2_psum_over_a", m2, lambda v: lax.psum(v, "a"), [y], [P("a", "b")], P("a", "b"),
                "all-reduce", "2x2 mesh (a, b), device k at (k // 2, k % 2); psum over a only: replica groups "
                "{{0,2},{1,3}}")
    yield _case("mesh2x2_all_gather_over_b", m2, lambda v: lax.all_gather(v, "b", axis=0, tiled=True), [y],
                [P("a", "b")], P("a", "b"), "all-gather", "all-gather over b: groups {{0,1},{2,3}}")
    yield _case("mesh2x2_psum_both", m2, lambda v: lax.psum(v, ("a", "b")), [y], [P("a", "b")], P("a", "b"),
                "all-reduce", "psum over both axes: one group of 4")
