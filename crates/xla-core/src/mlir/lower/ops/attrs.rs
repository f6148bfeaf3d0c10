//! The HLO attributes of an op, read under VHLO's names: dimension
//! numbers, windows, custom calls' and collectives' attributes.

use super::read::{ints_of, literal, Reader};
use crate::hlo::{
    Attrs, ComparisonDirection, ComparisonType, ConvDimensionNumbers, DotDimensionNumbers, FftType,
    GatherDimensionNumbers, OutputOperandAlias, PadDim, RngAlgorithm, RngDistribution,
    ScatterDimensionNumbers, SliceDim, TransposeKind, TriangularSolveOptions, Window, WindowDim,
};
use crate::mlir::ir::{Attr, ElementType, Operation, Type};
use crate::mlir::lower::{string_attr, OpResult};
use crate::{Layout, Opcode, PrimitiveType, Shape};

/// The HLO attributes of `op` (the result shape gets the layouts a custom
/// call declares).
pub(super) fn attributes(
    op: &Operation,
    opcode: Opcode,
    operands: &[Shape],
    result: &mut Shape,
) -> OpResult<Attrs> {
    use Opcode as O;
    let a = Reader(op);
    let mut attrs = Attrs::default();
    let rank = |i: usize| {
        operands
            .get(i)
            .and_then(Shape::as_array)
            .map_or(0, |s| s.rank() as i64)
    };
    match opcode {
        O::Broadcast if op.name == "stablehlo.broadcast" => {
            let out_rank = result.as_array().map_or(0, |s| s.rank() as i64);
            attrs.dimensions = Some((out_rank - rank(0)..out_rank).collect());
        }
        O::Broadcast => attrs.dimensions = Some(a.ints("broadcast_dimensions")?),
        O::Transpose => attrs.dimensions = Some(a.ints("permutation")?),
        O::Reverse => attrs.dimensions = Some(a.ints("dimensions")?),
        O::Concatenate => attrs.dimensions = Some(vec![a.int("dimension")?]),
        O::GetDimensionSize | O::SetDimensionSize => {
            attrs.dimensions = Some(vec![a.int("dimension")?])
        }
        O::Iota => attrs.iota_dimension = Some(a.int("iota_dimension")?),
        O::Pad => {
            let (low, high, interior) = (
                a.ints("edge_padding_low")?,
                a.ints("edge_padding_high")?,
                a.ints("interior_padding")?,
            );
            if high.len() != low.len() || interior.len() != low.len() {
                return Err("padding lists of different lengths".into());
            }
            attrs.padding = Some(
                (0..low.len())
                    .map(|i| PadDim {
                        low: low[i],
                        high: high[i],
                        interior: interior[i],
                    })
                    .collect(),
            );
        }
        O::Slice => {
            let (start, limit) = (a.ints("start_indices")?, a.ints("limit_indices")?);
            let strides = a.ints_or("strides", vec![1; start.len()])?;
            if limit.len() != start.len() || strides.len() != start.len() {
                return Err("slice lists of different lengths".into());
            }
            attrs.slice = Some(
                (0..start.len())
                    .map(|i| SliceDim {
                        start: start[i],
                        limit: limit[i],
                        stride: strides[i],
                    })
                    .collect(),
            );
        }
        O::DynamicSlice => attrs.dynamic_slice_sizes = Some(a.ints("slice_sizes")?),
        O::GetTupleElement => attrs.tuple_index = Some(a.int("index")?),
        O::Gather => {
            attrs.gather_dims = Some(GatherDimensionNumbers {
                offset_dims: a.ints_or("offset_dims", vec![])?,
                collapsed_slice_dims: a.ints_or("collapsed_slice_dims", vec![])?,
                start_index_map: a.ints_or("start_index_map", vec![])?,
                index_vector_dim: a.int_or("index_vector_dim", 0)?,
                operand_batching_dims: a.ints_or("operand_batching_dims", vec![])?,
                start_indices_batching_dims: a.ints_or("start_indices_batching_dims", vec![])?,
            });
            attrs.gather_slice_sizes = Some(a.ints("slice_sizes")?);
            attrs.indices_are_sorted = a.flag("indices_are_sorted");
        }
        O::Scatter => {
            attrs.scatter_dims = Some(ScatterDimensionNumbers {
                update_window_dims: a.ints_or("update_window_dims", vec![])?,
                inserted_window_dims: a.ints_or("inserted_window_dims", vec![])?,
                scatter_dims_to_operand_dims: a.ints_or("scatter_dims_to_operand_dims", vec![])?,
                index_vector_dim: a.int_or("index_vector_dim", 0)?,
                input_batching_dims: a.ints_or("input_batching_dims", vec![])?,
                scatter_indices_batching_dims: a
                    .ints_or("scatter_indices_batching_dims", vec![])?,
            });
            attrs.indices_are_sorted = a.flag("indices_are_sorted");
            attrs.unique_indices = a.flag("unique_indices");
        }
        O::Reduce | O::Map => attrs.dimensions = Some(a.ints("dimensions")?),
        O::ReduceWindow => {
            let size = a.ints("window_dimensions")?;
            attrs.window = Some(window(
                &a,
                &size,
                "window_strides",
                "base_dilations",
                "window_dilations",
                None,
            )?);
        }
        O::SelectAndScatter => {
            let size = a.ints("window_dimensions")?;
            attrs.window = Some(window(&a, &size, "window_strides", "", "", None)?);
        }
        O::Sort => {
            let d = a.int_or("dimension", -1)?;
            attrs.dimensions = Some(vec![if d < 0 { d + rank(0) } else { d }]);
            attrs.is_stable = a.flag("is_stable");
        }
        O::Dot if op.name == "stablehlo.dot" => {
            attrs.dot_dims = Some(DotDimensionNumbers {
                lhs_batch: vec![],
                rhs_batch: vec![],
                lhs_contracting: vec![rank(0) - 1],
                rhs_contracting: vec![0],
            });
        }
        O::Dot => {
            attrs.dot_dims = Some(DotDimensionNumbers {
                lhs_batch: a.ints_or("lhs_batching_dimensions", vec![])?,
                rhs_batch: a.ints_or("rhs_batching_dimensions", vec![])?,
                lhs_contracting: a.ints_or("lhs_contracting_dimensions", vec![])?,
                rhs_contracting: a.ints_or("rhs_contracting_dimensions", vec![])?,
            });
        }
        O::Convolution => {
            let dims = ConvDimensionNumbers {
                input_batch: a.int("input_batch_dimension")?,
                input_feature: a.int("input_feature_dimension")?,
                input_spatial: a.ints("input_spatial_dimensions")?,
                kernel_input_feature: a.int("kernel_input_feature_dimension")?,
                kernel_output_feature: a.int("kernel_output_feature_dimension")?,
                kernel_spatial: a.ints("kernel_spatial_dimensions")?,
                output_batch: a.int("output_batch_dimension")?,
                output_feature: a.int("output_feature_dimension")?,
                output_spatial: a.ints("output_spatial_dimensions")?,
            };
            let kernel = operands
                .get(1)
                .and_then(Shape::as_array)
                .ok_or("a kernel operand")?;
            let size: Vec<i64> = dims
                .kernel_spatial
                .iter()
                .map(|&d| {
                    kernel
                        .dims()
                        .get(d as usize)
                        .copied()
                        .ok_or("a kernel spatial dimension out of range")
                })
                .collect::<Result<_, _>>()?;
            attrs.window = Some(window(
                &a,
                &size,
                "window_strides",
                "lhs_dilation",
                "rhs_dilation",
                Some("window_reversal"),
            )?);
            attrs.conv_dims = Some(dims);
            // XLA leaves out group counts of 1.
            let count = |name| Ok::<_, String>(Some(a.int_or(name, 1)?).filter(|&c| c != 1));
            attrs.feature_group_count = count("feature_group_count")?;
            attrs.batch_group_count = count("batch_group_count")?;
        }
        O::Compare => {
            let direction = a
                .enumeration("comparison_direction")?
                .ok_or("missing `comparison_direction`")?;
            attrs.comparison_direction = Some(
                ComparisonDirection::from_name(direction)
                    .ok_or_else(|| format!("unknown comparison `{direction}`"))?,
            );
            if let Some(t) = a.enumeration("compare_type")? {
                let t = ComparisonType::from_name(t)
                    .ok_or_else(|| format!("unknown comparison type `{t}`"))?;
                // XLA leaves out the type its element type implies.
                let element = operands
                    .first()
                    .and_then(Shape::as_array)
                    .map(|s| s.element_type());
                let implied = element.map(|e| match e {
                    e if e.is_floating() || e.is_complex() => ComparisonType::Float,
                    e if e.is_unsigned_integral() || e == PrimitiveType::Pred => {
                        ComparisonType::Unsigned
                    }
                    _ => ComparisonType::Signed,
                });
                attrs.comparison_type = (implied != Some(t)).then_some(t);
            }
        }
        O::ReducePrecision => {
            attrs.exponent_bits = Some(a.int("exponent_bits")?);
            attrs.mantissa_bits = Some(a.int("mantissa_bits")?);
        }
        O::Fft => {
            let t = a.enumeration("fft_type")?.ok_or("missing `fft_type`")?;
            attrs.fft_type =
                Some(FftType::from_name(t).ok_or_else(|| format!("unknown fft type `{t}`"))?);
            attrs.fft_length = Some(a.ints("fft_length")?);
        }
        O::Cholesky => attrs.cholesky_lower = Some(a.flag("lower")),
        O::TriangularSolve => {
            let t = a.enumeration("transpose_a")?.unwrap_or("NO_TRANSPOSE");
            attrs.triangular_solve = Some(TriangularSolveOptions {
                left_side: a.flag("left_side"),
                lower: a.flag("lower"),
                unit_diagonal: a.flag("unit_diagonal"),
                transpose_a: TransposeKind::from_name(t)
                    .ok_or_else(|| format!("unknown transpose `{t}`"))?,
            });
        }
        O::BatchNormGrad | O::BatchNormInference | O::BatchNormTraining => {
            attrs.epsilon = Some(a.float("epsilon")? as f32);
            attrs.feature_index = Some(a.int("feature_index")?);
        }
        O::Rng => {
            let d = a
                .enumeration("rng_distribution")?
                .ok_or("missing `rng_distribution`")?;
            attrs.rng_distribution = Some(match d {
                "UNIFORM" => RngDistribution::Uniform,
                "NORMAL" => RngDistribution::Normal,
                other => return Err(format!("unknown distribution `{other}`")),
            });
        }
        O::RngBitGenerator => {
            let algorithm = a.enumeration("rng_algorithm")?.unwrap_or("DEFAULT");
            attrs.rng_algorithm = Some(match algorithm {
                "DEFAULT" => RngAlgorithm::Default,
                "THREE_FRY" => RngAlgorithm::ThreeFry,
                "PHILOX" => RngAlgorithm::Philox,
                other => return Err(format!("unknown rng algorithm `{other}`")),
            });
        }
        O::CustomCall => custom_call(&a, &mut attrs, operands, result)?,
        O::AllReduce | O::AllGather | O::ReduceScatter | O::AllToAll | O::CollectivePermute => {
            collective(&a, opcode, &mut attrs)?
        }
        _ => {}
    }
    if opcode == O::Constant {
        let value = op.attr("value").ok_or("missing `value`")?;
        attrs.literal = Some(literal(value)?);
    }
    Ok(attrs)
}

/// A window of `size` from the attributes named (an empty name: the
/// default).
fn window(
    a: &Reader,
    size: &[i64],
    strides: &str,
    base: &str,
    dilation: &str,
    reversal: Option<&str>,
) -> OpResult<Window> {
    let n = size.len();
    let list = |name: &str| {
        if name.is_empty() {
            Ok(vec![1; n])
        } else {
            a.ints_or(name, vec![1; n])
        }
    };
    let (strides, base, dilation) = (list(strides)?, list(base)?, list(dilation)?);
    let padding = a.ints_or("padding", vec![0; 2 * n])?;
    let reversal = match reversal.and_then(|r| a.0.attr(r)) {
        Some(Attr::Bools(v)) => v.clone(),
        Some(other) => ints_of(other)?.iter().map(|&x| x != 0).collect(),
        None => vec![false; n],
    };
    if [strides.len(), base.len(), dilation.len(), reversal.len()]
        .iter()
        .any(|&l| l != n)
        || padding.len() != 2 * n
    {
        return Err(format!(
            "window attributes of {n} dimensions do not agree in length"
        ));
    }
    Ok(Window {
        dims: (0..n)
            .map(|i| WindowDim {
                size: size[i],
                stride: strides[i],
                padding_low: padding[2 * i],
                padding_high: padding[2 * i + 1],
                window_dilation: dilation[i],
                base_dilation: base[i],
                window_reversal: reversal[i],
            })
            .collect(),
    })
}

/// A custom call's target, configuration, API version, layouts and aliases.
fn custom_call(
    a: &Reader,
    attrs: &mut Attrs,
    operands: &[Shape],
    result: &mut Shape,
) -> OpResult<()> {
    attrs.custom_call_target = Some(string_attr(a.0, "call_target_name")?);
    attrs.custom_call_has_side_effect = a.flag("has_side_effect");
    let config = match (a.0.attr("mhlo.backend_config"), a.0.attr("backend_config")) {
        (Some(dict @ Attr::Dict(_)), _) | (_, Some(dict @ Attr::Dict(_))) => Some(attr_text(dict)),
        (_, Some(Attr::String(s))) if !s.is_empty() => {
            Some(String::from_utf8_lossy(s).into_owned())
        }
        _ => None,
    };
    // The original API (1) is the default XLA leaves out; 0 is "unspecified".
    attrs.custom_call_api_version = match a.0.attr("api_version") {
        Some(Attr::Int(0 | 1, _)) | None => None,
        Some(Attr::Int(v, _)) => Some(
            match v {
                2 => "API_VERSION_STATUS_RETURNING",
                3 => "API_VERSION_STATUS_RETURNING_UNIFIED",
                4 => "API_VERSION_TYPED_FFI",
                _ => return Err(format!("unknown custom call api_version {v}")),
            }
            .to_string(),
        ),
        Some(Attr::Enum(_, v)) if v == "API_VERSION_ORIGINAL" || v == "API_VERSION_UNSPECIFIED" => {
            None
        }
        Some(Attr::Enum(_, v)) => Some(v.clone()),
        Some(other) => return Err(format!("`api_version` is not an integer: {other:?}")),
    };
    // A typed FFI call's configuration is a dictionary, empty when absent.
    let typed = attrs.custom_call_api_version.as_deref() == Some("API_VERSION_TYPED_FFI");
    attrs.backend_config = config.or_else(|| typed.then(|| "{}".to_string()));
    if let Some(Attr::Array(layouts)) = a.0.attr("operand_layouts") {
        let mut constrained = Vec::new();
        for (layout, shape) in layouts.iter().zip(operands) {
            let mut shape = shape.clone();
            if let Shape::Array(array) = &mut shape {
                array.set_layout(Some(Layout::new(ints_of(layout)?)));
            }
            constrained.push(shape);
        }
        attrs.operand_layout_constraints = Some(constrained);
    }
    if let Some(Attr::Array(layouts)) = a.0.attr("result_layouts") {
        let mut leaves: Vec<&mut Shape> = match result {
            Shape::Tuple(parts) => parts.iter_mut().collect(),
            other => vec![other],
        };
        for (layout, shape) in layouts.iter().zip(leaves.iter_mut()) {
            if let Shape::Array(array) = shape {
                array.set_layout(Some(Layout::new(ints_of(layout)?)));
            }
        }
    }
    if let Some(Attr::Array(aliases)) = a.0.attr("output_operand_aliases") {
        let mut out = Vec::new();
        for alias in aliases {
            let Attr::Dict(fields) = alias else {
                return Err("an output_operand_alias that is not a structure".into());
            };
            let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v);
            out.push(OutputOperandAlias {
                output_index: field("output_tuple_indices")
                    .map(ints_of)
                    .transpose()?
                    .unwrap_or_default(),
                operand: match field("operand_index") {
                    Some(Attr::Int(v, _)) => *v,
                    _ => 0,
                },
                operand_index: field("operand_tuple_indices")
                    .map(ints_of)
                    .transpose()?
                    .unwrap_or_default(),
            });
        }
        attrs.output_to_operand_aliasing = Some(out);
    }
    Ok(())
}

/// A collective's replica groups, channel, device-id mode and dimension.
pub(super) fn collective(a: &Reader, opcode: Opcode, attrs: &mut Attrs) -> OpResult<()> {
    use Opcode as O;
    let groups = |name: &str| -> OpResult<Option<Vec<Vec<i64>>>> {
        match a.0.attr(name) {
            Some(
                groups @ Attr::Dense {
                    ty: Type::Tensor { dims, .. },
                    ..
                },
            ) if dims.len() == 2 => {
                let values = ints_of(groups)?;
                let width = dims[1].unwrap_or(0).max(1) as usize;
                Ok(Some(values.chunks(width).map(<[i64]>::to_vec).collect()))
            }
            Some(other) => Err(format!("`{name}` is not a 2-D integer tensor: {other:?}")),
            None => Ok(None),
        }
    };
    if opcode == O::CollectivePermute {
        let pairs = groups("source_target_pairs")?.ok_or("missing `source_target_pairs`")?;
        attrs.source_target_pairs = Some(
            pairs
                .iter()
                .map(|p| (p[0], *p.get(1).unwrap_or(&0)))
                .collect(),
        );
    } else {
        attrs.replica_groups = groups("replica_groups")?;
    }
    if let Some(Attr::Dict(fields)) = a.0.attr("channel_handle") {
        if let Some((_, Attr::Int(handle, _))) = fields.iter().find(|(k, _)| k == "handle") {
            attrs.channel_id = (*handle > 0).then_some(*handle);
        }
    } else if let Some(Attr::Int(handle, _)) = a.0.attr("channel_id") {
        attrs.channel_id = (*handle > 0).then_some(*handle);
    }
    attrs.use_global_device_ids = a.flag("use_global_device_ids");
    match opcode {
        O::AllGather => attrs.dimensions = Some(vec![a.int("all_gather_dim")?]),
        O::ReduceScatter => attrs.dimensions = Some(vec![a.int("scatter_dimension")?]),
        // A concat dimension other than the split one is lowered around
        // HLO's all-to-all (`all_to_all`).
        O::AllToAll => attrs.dimensions = Some(vec![a.int("split_dimension")?]),
        _ => {}
    }
    Ok(())
}

/// An attribute in MLIR's text form, as XLA prints a custom call's
/// dictionary `backend_config` (`{diag = 78 : ui8, side = 76 : ui8}`).
fn attr_text(attr: &Attr) -> String {
    match attr {
        Attr::Unit => "unit".into(),
        Attr::Bool(v) => v.to_string(),
        Attr::Int(v, ElementType::Known(PrimitiveType::S64)) => v.to_string(),
        Attr::Int(v, t) => format!("{v} : {}", t.mlir_name()),
        // MLIR's float syntax needs the point: `1.0000000000000000e-5`.
        Attr::Float(v, t) => format!("{v:.16e} : {}", t.mlir_name()),
        Attr::String(s) => format!("{:?}", String::from_utf8_lossy(s)),
        Attr::Array(items) => format!(
            "[{}]",
            items.iter().map(attr_text).collect::<Vec<_>>().join(", ")
        ),
        Attr::Ints(v) => format!(
            "array<i64: {}>",
            v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
        ),
        Attr::Dict(fields) => {
            let mut sorted: Vec<&(String, Attr)> = fields.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            let body: Vec<String> = sorted
                .iter()
                .map(|(k, v)| {
                    if *v == Attr::Unit {
                        k.clone()
                    } else {
                        format!("{k} = {}", attr_text(v))
                    }
                })
                .collect();
            format!("{{{}}}", body.join(", "))
        }
        Attr::Enum(_, v) | Attr::Opaque(v) | Attr::Symbol(v) => v.clone(),
        other => format!("{other:?}"),
    }
}
