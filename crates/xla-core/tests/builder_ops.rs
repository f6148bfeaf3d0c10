//! Every builder op family: result shapes, the attributes the builder
//! records, and XLA's lowerings (implicit broadcasts, BroadcastInDim,
//! AllToAll, Conj). Every computation is verified by `build`.

use xla_core::builder::{
    create_scalar_computation, make_window, BatchNormOptions, ConvConfig, ScatterOptions,
    XlaBuilder, XlaComputation, XlaOp,
};
use xla_core::hlo::{
    ComparisonType, ConvDimensionNumbers, FftType, GatherDimensionNumbers, Opcode, PadDim,
    RngAlgorithm, ScatterDimensionNumbers, TransposeKind, TriangularSolveOptions,
};
use xla_core::infer::PaddingKind;
use xla_core::{ArrayShape, PrimitiveType::*, Result, Shape};

fn sh(text: &str) -> Shape {
    text.parse().unwrap()
}

fn arr(text: &str) -> ArrayShape {
    text.parse().unwrap()
}

/// Builds `root` and returns the computation's result shape.
fn result(b: &XlaBuilder, root: XlaOp) -> Result<String> {
    Ok(b.build(root)?.program_shape().result.to_string())
}

/// The entry's opcodes after the parameters.
fn opcodes(c: &XlaComputation) -> Vec<Opcode> {
    c.module()
        .entry_computation()
        .instructions
        .iter()
        .map(|i| i.opcode)
        .filter(|&o| o != Opcode::Parameter)
        .collect()
}

#[test]
fn implicit_broadcasts_become_explicit() -> Result<()> {
    use Opcode::*;
    let b = XlaBuilder::new("f");
    let x = b.parameter(0, &sh("f32[2,3]"), "x")?;
    let s = b.parameter(1, &sh("f32[]"), "s")?;
    let scaled = b.mul(x, s, &[])?;
    assert_eq!(opcodes(&b.build(scaled)?), [Broadcast, Multiply]);

    let b = XlaBuilder::new("outer");
    let col = b.parameter(0, &sh("f32[2,1]"), "col")?;
    let row = b.parameter(1, &sh("f32[1,3]"), "row")?;
    let outer = b.add(col, row, &[])?;
    let c = b.build(outer)?;
    assert_eq!(c.program_shape().result.to_string(), "f32[2,3]{1,0}");
    assert_eq!(opcodes(&c), [Reshape, Broadcast, Reshape, Broadcast, Add]);

    // `docs/semantics.md`, *Combined broadcasting* example B: [1,2] + [4,3,1] with {1,2} → [4,3,2].
    let b = XlaBuilder::new("composed");
    let small = b.parameter(0, &sh("f32[1,2]"), "small")?;
    let big = b.parameter(1, &sh("f32[4,3,1]"), "big")?;
    assert_eq!(
        result(&b, b.add(small, big, &[1, 2])?)?,
        "f32[4,3,2]{2,1,0}"
    );

    let b = XlaBuilder::new("cmp");
    let x = b.parameter(0, &sh("f32[4]"), "x")?;
    let lt = b.lt_total_order(x, b.constant_r0(0f32)?, &[])?;
    let c = b.build(lt)?;
    let compare = c.module().entry_computation().root_instr();
    assert_eq!(
        compare.attrs.comparison_type,
        Some(ComparisonType::TotalOrder)
    );
    assert_eq!(compare.shape.to_string(), "pred[4]{0}");
    let b = XlaBuilder::new("cmp_int");
    let n = b.parameter(0, &sh("s32[4]"), "n")?;
    let ge = b.ge_total_order(n, n, &[])?;
    let c = b.build(ge)?;
    assert_eq!(
        c.module()
            .entry_computation()
            .root_instr()
            .attrs
            .comparison_type,
        None
    );
    Ok(())
}

#[test]
fn broadcasts_and_data_movement() -> Result<()> {
    use Opcode::*;
    let b = XlaBuilder::new("f");
    let x = b.parameter(0, &sh("f32[2,1]"), "x")?;
    let y = b.broadcast_in_dim(x, &[2, 3], &[0, 1])?;
    let c = b.build(y)?;
    assert_eq!(c.program_shape().result.to_string(), "f32[2,3]{1,0}");
    assert_eq!(opcodes(&c), [Broadcast, Reshape, Broadcast]);

    let b = XlaBuilder::new("f");
    let v = b.parameter(0, &sh("f32[4,2,3]"), "v")?;
    assert_eq!(result(&b, b.broadcast(v, &[5])?)?, "f32[5,4,2,3]{3,2,1,0}");
    assert_eq!(result(&b, b.collapse(v, &[1, 2])?)?, "f32[4,6]{1,0}");
    assert_eq!(
        result(&b, b.reshape_with_dimensions(v, &[1, 2, 0], &[8, 3])?)?,
        "f32[8,3]{1,0}"
    );
    assert_eq!(
        result(&b, b.transpose(v, &[2, 0, 1])?)?,
        "f32[3,4,2]{2,1,0}"
    );
    assert_eq!(result(&b, b.rev(v, &[0, 2])?)?, "f32[4,2,3]{2,1,0}");
    assert_eq!(
        result(&b, b.slice(v, &[1, 0, 0], &[4, 2, 3], &[2, 1, 1])?)?,
        "f32[2,2,3]{2,1,0}"
    );
    assert_eq!(
        result(&b, b.slice_in_dim(v, 1, 3, 1, -1)?)?,
        "f32[4,2,2]{2,1,0}"
    );
    assert_eq!(
        result(&b, b.concat_in_dim(&[v, v], 1)?)?,
        "f32[4,4,3]{2,1,0}"
    );
    let pad = [
        PadDim {
            low: 1,
            high: 0,
            interior: 0,
        },
        PadDim::default(),
        PadDim {
            low: 0,
            high: 1,
            interior: 1,
        },
    ];
    assert_eq!(
        result(&b, b.pad(v, b.constant_r0(0f32)?, &pad)?)?,
        "f32[5,2,6]{2,1,0}"
    );
    assert_eq!(result(&b, b.iota(&arr("s32[4,8]"), 1)?)?, "s32[4,8]{1,0}");
    Ok(())
}

#[test]
fn elementwise_and_conversions() -> Result<()> {
    use Opcode::*;
    let b = XlaBuilder::new("f");
    let z = b.parameter(0, &sh("c64[3]"), "z")?;
    let conj = b.conj(z)?;
    let c = b.build(conj)?;
    assert_eq!(opcodes(&c), [Real, Imag, Negate, Complex]);
    assert_eq!(c.program_shape().result.to_string(), "c64[3]{0}");
    let x = b.parameter(1, &sh("f32[3]"), "x")?;
    assert_eq!(b.conj(x)?, x);
    assert_eq!(result(&b, b.abs(z)?)?, "f32[3]{0}");
    assert_eq!(result(&b, b.is_finite(x)?)?, "pred[3]{0}");
    assert_eq!(result(&b, b.convert_element_type(x, S8)?)?, "s8[3]{0}");
    assert_eq!(
        result(&b, b.bitcast_convert_type(x, F16)?)?,
        "f16[3,2]{1,0}"
    );
    assert_eq!(result(&b, b.reduce_precision(x, 5, 10)?)?, "f32[3]{0}");
    let lo = b.constant_r0(0f32)?;
    assert_eq!(
        result(&b, b.clamp(lo, x, b.constant_r0(1f32)?)?)?,
        "f32[3]{0}"
    );
    let p = b.parameter(2, &sh("pred[3]"), "p")?;
    assert_eq!(result(&b, b.select(p, x, x)?)?, "f32[3]{0}");
    let square = create_scalar_computation("square_add", F32, |b, x, y| {
        b.add(b.mul(x, x, &[])?, y, &[])
    })?;
    assert_eq!(result(&b, b.map(&[x, x], &square, &[0])?)?, "f32[3]{0}");
    Ok(())
}

#[test]
fn indexing_ops() -> Result<()> {
    let b = XlaBuilder::new("f");
    let v = b.parameter(0, &sh("f32[4,3]"), "v")?;
    let i = b.parameter(1, &sh("s32[]"), "i")?;
    assert_eq!(
        result(&b, b.dynamic_slice(v, &[i, i], &[2, 2])?)?,
        "f32[2,2]{1,0}"
    );
    // One rank-1 array of start indices is split into scalars.
    let starts = b.constant_r1(&[1i32, 0])?;
    let ds = b.dynamic_slice(v, &[starts], &[2, 3])?;
    let c = b.build(ds)?;
    assert_eq!(
        c.module().entry_computation().root_instr().operands.len(),
        3
    );
    let u = b.parameter(2, &sh("f32[1,3]"), "u")?;
    assert_eq!(
        result(&b, b.dynamic_update_slice(v, u, &[i, i])?)?,
        "f32[4,3]{1,0}"
    );
    let rows = b.constant_r1(&[0i32, 2])?;
    let idx = b.reshape(rows, &[2, 1])?;
    let gdims = GatherDimensionNumbers {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    assert_eq!(
        result(&b, b.gather(v, idx, &gdims, &[1, 3], false)?)?,
        "f32[2,3]{1,0}"
    );
    let add = create_scalar_computation("add", F32, |b, x, y| b.add(x, y, &[]))?;
    let sdims = ScatterDimensionNumbers {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..Default::default()
    };
    let updates = b.broadcast(b.constant_r0(1f32)?, &[2, 3])?;
    let scattered = b.scatter(
        &[v],
        idx,
        &[updates],
        &add,
        &sdims,
        ScatterOptions::default(),
    )?;
    assert_eq!(result(&b, scattered)?, "f32[4,3]{1,0}");
    Ok(())
}

#[test]
fn reductions() -> Result<()> {
    let max = create_scalar_computation("max", F32, |b, x, y| b.max(x, y, &[]))?;
    let add = create_scalar_computation("add", F32, |b, x, y| b.add(x, y, &[]))?;
    let ge = create_scalar_computation("ge", F32, |b, x, y| b.ge(x, y, &[]))?;
    let lt = create_scalar_computation("lt", F32, |b, x, y| b.lt(x, y, &[]))?;
    let b = XlaBuilder::new("f");
    let x = b.parameter(0, &sh("f32[4,6]"), "x")?;
    let ninf = b.constant_r0(f32::NEG_INFINITY)?;
    let pooled = b.reduce_window(&[x], &[ninf], &max, &[2, 3], &[2, 3], PaddingKind::Valid)?;
    assert_eq!(result(&b, pooled)?, "f32[2,2]{1,0}");
    let same = b.reduce_window(&[x], &[ninf], &max, &[2, 3], &[1, 1], PaddingKind::Same)?;
    assert_eq!(result(&b, same)?, "f32[4,6]{1,0}");
    let window = make_window(&[4, 6], &[2, 3], &[2, 3], PaddingKind::Valid)?;
    let source = b.parameter(1, &sh("f32[2,2]"), "source")?;
    let zero = b.constant_r0(0f32)?;
    let grad = b.select_and_scatter(x, &ge, &window, source, zero, &add)?;
    assert_eq!(result(&b, grad)?, "f32[4,6]{1,0}");
    assert_eq!(result(&b, b.sort(&[x], &lt, -1, true)?)?, "f32[4,6]{1,0}");
    let c = b.build(b.sort(&[x], &lt, -1, false)?)?;
    assert_eq!(
        c.module()
            .entry_computation()
            .root_instr()
            .attrs
            .dimensions
            .as_deref(),
        Some(&[1][..])
    );
    assert_eq!(
        result(&b, b.top_k(x, 2, true)?)?,
        "(f32[4,2]{1,0}, s32[4,2]{1,0})"
    );
    Ok(())
}

#[test]
fn dots_and_convolutions() -> Result<()> {
    let b = XlaBuilder::new("f");
    let x = b.parameter(0, &sh("f32[1,1,3,3]"), "x")?;
    let k = b.parameter(1, &sh("f32[1,1,2,2]"), "k")?;
    assert_eq!(
        result(&b, b.conv(x, k, &[1, 1], PaddingKind::Same)?)?,
        "f32[1,1,3,3]{3,2,1,0}"
    );
    assert_eq!(
        result(&b, b.conv(x, k, &[1, 1], PaddingKind::Valid)?)?,
        "f32[1,1,2,2]{3,2,1,0}"
    );
    assert_eq!(
        result(
            &b,
            b.conv_with_general_padding(x, k, &[2, 2], &[(1, 1), (1, 1)])?
        )?,
        "f32[1,1,2,2]{3,2,1,0}"
    );
    let nhwc = ConvDimensionNumbers {
        input_batch: 0,
        input_feature: 3,
        input_spatial: vec![1, 2],
        kernel_output_feature: 3,
        kernel_input_feature: 2,
        kernel_spatial: vec![0, 1],
        output_batch: 0,
        output_feature: 3,
        output_spatial: vec![1, 2],
    };
    let images = b.parameter(2, &sh("f32[8,32,32,4]"), "images")?;
    let depthwise = b.parameter(3, &sh("f32[3,3,1,8]"), "depthwise")?;
    let config = ConvConfig {
        feature_group_count: 4,
        rhs_dilation: vec![2, 2],
        ..ConvConfig::new(&[1, 1], &[(2, 2), (2, 2)])
    };
    let out = b.conv_general_dilated(images, depthwise, &config, &nhwc)?;
    assert_eq!(result(&b, out)?, "f32[8,32,32,8]{3,2,1,0}");
    let m = b.parameter(4, &sh("f32[2,3]"), "m")?;
    let v = b.parameter(5, &sh("f32[3]"), "v")?;
    assert_eq!(result(&b, b.dot(m, v)?)?, "f32[2]{0}");
    Ok(())
}

#[test]
fn collectives() -> Result<()> {
    use Opcode::*;
    let b = XlaBuilder::new("f");
    let x = b.parameter(0, &sh("f32[4,16]"), "x")?;
    let a2a = b.all_to_all(x, 1, 0, 4, &[])?;
    let c = b.build(a2a)?;
    assert_eq!(c.program_shape().result.to_string(), "f32[16,4]{1,0}");
    assert_eq!(opcodes(&c), [AllToAll, Reshape, Transpose, Reshape]);
    assert_eq!(
        result(&b, b.all_gather(x, 0, 2, &[vec![0, 1]], Some(1))?)?,
        "f32[8,16]{1,0}"
    );
    let add = create_scalar_computation("add", F32, |b, x, y| b.add(x, y, &[]))?;
    assert_eq!(
        result(&b, b.all_reduce(x, &add, &[], None)?)?,
        "f32[4,16]{1,0}"
    );
    let pair = b.tuple(&[x, x])?;
    assert_eq!(
        result(&b, b.cross_replica_sum(pair, &[])?)?,
        "(f32[4,16]{1,0}, f32[4,16]{1,0})"
    );
    assert_eq!(
        result(&b, b.reduce_scatter(x, &add, 1, 4, &[], None)?)?,
        "f32[4,4]{1,0}"
    );
    assert_eq!(
        result(&b, b.collective_permute(x, &[(0, 1), (1, 0)])?)?,
        "f32[4,16]{1,0}"
    );
    assert_eq!(result(&b, b.replica_id()?)?, "u32[]");
    assert_eq!(result(&b, b.partition_id()?)?, "u32[]");
    Ok(())
}

#[test]
fn side_effects_and_random() -> Result<()> {
    use Opcode::*;
    let b = XlaBuilder::new("f");
    let data = b.infeed(&sh("f32[2,3]{0,1}"), "")?;
    assert_eq!(result(&b, data)?, "f32[2,3]{0,1}");
    let token = b.outfeed(data, &sh("f32[2,3]{1,0}"), "cfg")?;
    assert_eq!(result(&b, token)?, "token[]");
    let sent = b.send(data, 7)?;
    assert_eq!(result(&b, sent)?, "token[]");
    let received = b.recv(&sh("s32[4]"), 7)?;
    let c = b.build(received)?;
    assert_eq!(c.program_shape().result.to_string(), "s32[4]{0}");
    assert_eq!(
        opcodes(&c)[..],
        [
            AfterAll,
            Infeed,
            GetTupleElement,
            AfterAll,
            Outfeed,
            AfterAll,
            Send,
            SendDone,
            AfterAll,
            Recv,
            RecvDone,
            GetTupleElement
        ]
    );
    let lo = b.constant_r0(0f32)?;
    let hi = b.constant_r0(1f32)?;
    assert_eq!(
        result(&b, b.rng_uniform(lo, hi, &arr("f32[3]"))?)?,
        "f32[3]{0}"
    );
    assert_eq!(
        result(&b, b.rng_normal(lo, hi, &arr("f32[3]"))?)?,
        "f32[3]{0}"
    );
    let state = b.constant_r1(&[1u64, 2])?;
    let bits = b.rng_bit_generator(RngAlgorithm::ThreeFry, state, &arr("f32[4]"))?;
    assert_eq!(result(&b, bits)?, "(u64[2]{0}, u32[4]{0})");
    let t = b.create_token()?;
    assert_eq!(result(&b, b.after_all(&[t, t])?)?, "token[]");
    Ok(())
}

#[test]
fn linalg_normalization_dynamic_and_control() -> Result<()> {
    let b = XlaBuilder::new("f");
    let a = b.parameter(0, &sh("f32[3,3]"), "a")?;
    let rhs = b.parameter(1, &sh("f32[3,2]"), "rhs")?;
    assert_eq!(result(&b, b.cholesky(a, true)?)?, "f32[3,3]{1,0}");
    let options = TriangularSolveOptions {
        left_side: true,
        lower: true,
        unit_diagonal: false,
        transpose_a: TransposeKind::Adjoint,
    };
    assert_eq!(
        result(&b, b.triangular_solve(a, rhs, options)?)?,
        "f32[3,2]{1,0}"
    );
    assert_eq!(result(&b, b.fft(a, FftType::Rfft, &[3])?)?, "c64[3,2]{1,0}");
    let x = b.parameter(2, &sh("f32[4,2]"), "x")?;
    let c = b.parameter(3, &sh("f32[2]"), "c")?;
    let opts = BatchNormOptions {
        epsilon: 1e-3,
        feature_index: 1,
    };
    assert_eq!(
        result(&b, b.batch_norm_training(x, c, c, opts)?)?,
        "(f32[4,2]{1,0}, f32[2]{0}, f32[2]{0})"
    );
    assert_eq!(
        result(&b, b.batch_norm_inference(x, c, c, c, c, opts)?)?,
        "f32[4,2]{1,0}"
    );
    let g = b.batch_norm_grad(x, c, c, c, x, opts)?;
    assert_eq!(result(&b, g)?, "(f32[4,2]{1,0}, f32[2]{0}, f32[2]{0})");
    let n = b.get_dimension_size(x, 0)?;
    assert_eq!(result(&b, n)?, "s32[]");
    assert_eq!(
        result(&b, b.set_dimension_size(x, n, 0)?)?,
        "f32[<=4,2]{1,0}"
    );
    assert_eq!(result(&b, b.optimization_barrier(x)?)?, "f32[4,2]{1,0}");
    let cc = b.custom_call("my_op", &[x, c], &sh("f32[9]{0}"), "")?;
    assert_eq!(result(&b, cc)?, "f32[9]{0}");
    Ok(())
}
