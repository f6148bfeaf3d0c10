// Arguments other than operands: dimension numbers, sizes, element types,
// padding, dimension-number structs and dim_labels.
use xla::prelude::*;

xla! {
    fn labels(x: f32[B, H, W, C], k: f32[3, 3, C, O]) -> f32[B, H, W, O] {
        x.conv(k, [1, 1], same, "b01f_01oi->b0f")
    }

    fn symbolic_kernel(x: f32[B, H, W, C], k: f32[K, K, C, O]) -> f32[B, H, W, O] {
        x.conv(k, [1, 1], same, "b01f_01io->b01f")
    }

    fn gather_fields(t: f32[V, D], i: s32[N, 1]) -> f32[N, D] {
        t.gather(i, GatherDims { offset_dim: [1], collapsed_slice_dims: [0], start_index_map: [0], index_vector_dim: 1 }, [1, D])
    }

    fn gather_missing(t: f32[V, D], i: s32[N, 1]) -> f32[N, D] {
        t.gather(i, GatherDims { offset_dims: [1], collapsed_slice_dims: [0], index_vector_dim: 1 }, [1, D])
    }

    fn element_type(x: f32[N]) -> s32[N] {
        x.convert(int32)
    }

    fn sizes(x: f32[N]) -> f32[N, 2] {
        x.broadcast_in_dim([N, 2.0], [0])
    }

    fn dimension_numbers(x: f32[N, M]) -> f32[N] {
        x.reduce_sum([M])
    }

    fn padding(x: f32[N, M]) -> f32[N, M] {
        x.reduce_window(0.0, |a, b| a + b, [1, 1], [1, 1], full)
    }

    fn window_of_a_size(x: f32[N]) -> f32[N] {
        x.reduce_window(0.0, |a, b| a + b, [N], [1], [(N - 1, 0)])
    }

    fn one_dimension(x: f32[N]) -> (f32[N], s32) {
        (x.cumsum(1), x.argmax(0, f32))
    }
}

fn main() {}
