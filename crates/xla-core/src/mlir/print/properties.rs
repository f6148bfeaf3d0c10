//! The StableHLO op name and properties of each instruction: dimension
//! numbers, windows, custom calls' and collectives' attributes.

use super::syntax::{bools, dense, ints, list, pairs, window_field};
use crate::{HloComputation, HloInstruction, Opcode, PrimitiveType, Shape};

/// The op name and the properties of `instr`.
pub(super) fn op_name_and_properties(
    instr: &HloInstruction,
    c: &HloComputation,
) -> Result<(String, Vec<String>), String> {
    use Opcode as O;
    let a = &instr.attrs;
    let mut props = Vec::new();
    let operand = |i: usize| instr.operands.get(i).map(|&o| &c.instr(o).shape);
    let rank = |i: usize| operand(i).and_then(Shape::as_array).map_or(0, |s| s.rank());
    let missing = |what: &str| format!("{} without {what}", instr.opcode.name());
    let name = match instr.opcode {
        O::Constant => {
            let literal = a.literal.as_ref().ok_or_else(|| missing("a literal"))?;
            props.push(format!("value = {}", dense(literal)?));
            "constant".to_string()
        }
        O::Broadcast => {
            props.push(format!(
                "broadcast_dimensions = {}",
                ints(a.dimensions.as_deref().unwrap_or(&[]))
            ));
            "broadcast_in_dim".to_string()
        }
        O::Transpose => {
            props.push(format!(
                "permutation = {}",
                ints(
                    a.dimensions
                        .as_deref()
                        .ok_or_else(|| missing("dimensions"))?
                )
            ));
            "transpose".to_string()
        }
        O::Reverse => {
            props.push(format!(
                "dimensions = {}",
                ints(
                    a.dimensions
                        .as_deref()
                        .ok_or_else(|| missing("dimensions"))?
                )
            ));
            "reverse".to_string()
        }
        O::Concatenate => {
            let d = a
                .dimensions
                .as_deref()
                .and_then(<[i64]>::first)
                .ok_or_else(|| missing("a dimension"))?;
            props.push(format!("dimension = {d} : i64"));
            "concatenate".to_string()
        }
        O::Iota => {
            props.push(format!(
                "iota_dimension = {} : i64",
                a.iota_dimension.ok_or_else(|| missing("a dimension"))?
            ));
            "iota".to_string()
        }
        O::Pad => {
            let p = a.padding.as_ref().ok_or_else(|| missing("padding"))?;
            let field =
                |f: fn(&crate::hlo::PadDim) -> i64| ints(&p.iter().map(f).collect::<Vec<_>>());
            props.push(format!("edge_padding_low = {}", field(|d| d.low)));
            props.push(format!("edge_padding_high = {}", field(|d| d.high)));
            props.push(format!("interior_padding = {}", field(|d| d.interior)));
            "pad".to_string()
        }
        O::Slice => {
            let s = a.slice.as_ref().ok_or_else(|| missing("a slice"))?;
            let field =
                |f: fn(&crate::hlo::SliceDim) -> i64| ints(&s.iter().map(f).collect::<Vec<_>>());
            props.push(format!("start_indices = {}", field(|d| d.start)));
            props.push(format!("limit_indices = {}", field(|d| d.limit)));
            props.push(format!("strides = {}", field(|d| d.stride)));
            "slice".to_string()
        }
        O::DynamicSlice => {
            props.push(format!(
                "slice_sizes = {}",
                ints(
                    a.dynamic_slice_sizes
                        .as_deref()
                        .ok_or_else(|| missing("sizes"))?
                )
            ));
            "dynamic_slice".to_string()
        }
        O::GetTupleElement => {
            props.push(format!(
                "index = {} : i32",
                a.tuple_index.ok_or_else(|| missing("an index"))?
            ));
            "get_tuple_element".to_string()
        }
        O::Compare => {
            let d = a
                .comparison_direction
                .ok_or_else(|| missing("a direction"))?;
            props.push(format!(
                "comparison_direction = #stablehlo<comparison_direction {}>",
                d.name()
            ));
            if let Some(t) = a.comparison_type {
                props.push(format!(
                    "compare_type = #stablehlo<comparison_type {}>",
                    t.name()
                ));
            }
            "compare".to_string()
        }
        O::Dot => {
            let d = a
                .dot_dims
                .as_ref()
                .ok_or_else(|| missing("dimension numbers"))?;
            props.push(format!(
                "dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = {}, rhs_batching_dimensions = {}, lhs_contracting_dimensions = {}, rhs_contracting_dimensions = {}>",
                list(&d.lhs_batch),
                list(&d.rhs_batch),
                list(&d.lhs_contracting),
                list(&d.rhs_contracting)
            ));
            "dot_general".to_string()
        }
        O::Convolution => {
            let d = a
                .conv_dims
                .as_ref()
                .ok_or_else(|| missing("dimension numbers"))?;
            let w = a.window.as_ref().ok_or_else(|| missing("a window"))?;
            let layout =
                |batch: i64, feature: i64, spatial: &[i64], letters: [&str; 2], n: usize| {
                    let mut items = vec![String::new(); n];
                    if let Some(x) = items.get_mut(batch as usize) {
                        *x = letters[0].to_string();
                    }
                    if let Some(x) = items.get_mut(feature as usize) {
                        *x = letters[1].to_string();
                    }
                    for (k, &s) in spatial.iter().enumerate() {
                        if let Some(x) = items.get_mut(s as usize) {
                            *x = k.to_string();
                        }
                    }
                    format!("[{}]", items.join(", "))
                };
            let n = d.input_spatial.len() + 2;
            props.push(format!(
                "dimension_numbers = #stablehlo.conv<{}x{}->{}>",
                layout(
                    d.input_batch,
                    d.input_feature,
                    &d.input_spatial,
                    ["b", "f"],
                    n
                ),
                layout(
                    d.kernel_output_feature,
                    d.kernel_input_feature,
                    &d.kernel_spatial,
                    ["o", "i"],
                    n
                ),
                layout(
                    d.output_batch,
                    d.output_feature,
                    &d.output_spatial,
                    ["b", "f"],
                    n
                )
            ));
            let dims = &w.dims;
            props.push(format!(
                "window_strides = {}",
                window_field(dims, |x| x.stride)
            ));
            props.push(format!(
                "padding = {}",
                pairs(
                    &dims
                        .iter()
                        .map(|x| (x.padding_low, x.padding_high))
                        .collect::<Vec<_>>()
                )
            ));
            props.push(format!(
                "lhs_dilation = {}",
                window_field(dims, |x| x.base_dilation)
            ));
            props.push(format!(
                "rhs_dilation = {}",
                window_field(dims, |x| x.window_dilation)
            ));
            props.push(format!(
                "window_reversal = {}",
                bools(&dims.iter().map(|x| x.window_reversal).collect::<Vec<_>>())
            ));
            props.push(format!(
                "feature_group_count = {} : i64",
                a.feature_group_count.unwrap_or(1)
            ));
            props.push(format!(
                "batch_group_count = {} : i64",
                a.batch_group_count.unwrap_or(1)
            ));
            "convolution".to_string()
        }
        O::Gather => {
            let d = a
                .gather_dims
                .as_ref()
                .ok_or_else(|| missing("dimension numbers"))?;
            props.push(format!(
                "dimension_numbers = #stablehlo.gather<offset_dims = {}, collapsed_slice_dims = {}, operand_batching_dims = {}, start_indices_batching_dims = {}, start_index_map = {}, index_vector_dim = {}>",
                list(&d.offset_dims),
                list(&d.collapsed_slice_dims),
                list(&d.operand_batching_dims),
                list(&d.start_indices_batching_dims),
                list(&d.start_index_map),
                d.index_vector_dim
            ));
            props.push(format!(
                "slice_sizes = {}",
                ints(
                    a.gather_slice_sizes
                        .as_deref()
                        .ok_or_else(|| missing("slice sizes"))?
                )
            ));
            props.push(format!("indices_are_sorted = {}", a.indices_are_sorted));
            "gather".to_string()
        }
        O::Scatter => {
            let d = a
                .scatter_dims
                .as_ref()
                .ok_or_else(|| missing("dimension numbers"))?;
            props.push(format!(
                "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = {}, inserted_window_dims = {}, input_batching_dims = {}, scatter_indices_batching_dims = {}, scatter_dims_to_operand_dims = {}, index_vector_dim = {}>",
                list(&d.update_window_dims),
                list(&d.inserted_window_dims),
                list(&d.input_batching_dims),
                list(&d.scatter_indices_batching_dims),
                list(&d.scatter_dims_to_operand_dims),
                d.index_vector_dim
            ));
            props.push(format!("indices_are_sorted = {}", a.indices_are_sorted));
            props.push(format!("unique_indices = {}", a.unique_indices));
            "scatter".to_string()
        }
        O::Reduce => {
            props.push(format!(
                "dimensions = {}",
                ints(
                    a.dimensions
                        .as_deref()
                        .ok_or_else(|| missing("dimensions"))?
                )
            ));
            "reduce".to_string()
        }
        O::Map => {
            props.push(format!(
                "dimensions = {}",
                ints(
                    a.dimensions
                        .as_deref()
                        .ok_or_else(|| missing("dimensions"))?
                )
            ));
            "map".to_string()
        }
        O::ReduceWindow | O::SelectAndScatter => {
            let w = a.window.as_ref().ok_or_else(|| missing("a window"))?;
            let dims = &w.dims;
            props.push(format!(
                "window_dimensions = {}",
                window_field(dims, |x| x.size)
            ));
            props.push(format!(
                "window_strides = {}",
                window_field(dims, |x| x.stride)
            ));
            if instr.opcode == O::ReduceWindow {
                props.push(format!(
                    "base_dilations = {}",
                    window_field(dims, |x| x.base_dilation)
                ));
                props.push(format!(
                    "window_dilations = {}",
                    window_field(dims, |x| x.window_dilation)
                ));
            } else if dims
                .iter()
                .any(|x| x.base_dilation != 1 || x.window_dilation != 1)
            {
                return Err("a select-and-scatter with dilations has no StableHLO form".into());
            }
            props.push(format!(
                "padding = {}",
                pairs(
                    &dims
                        .iter()
                        .map(|x| (x.padding_low, x.padding_high))
                        .collect::<Vec<_>>()
                )
            ));
            if instr.opcode == O::ReduceWindow {
                "reduce_window"
            } else {
                "select_and_scatter"
            }
            .to_string()
        }
        O::Sort => {
            let d = a
                .dimensions
                .as_deref()
                .and_then(<[i64]>::first)
                .copied()
                .unwrap_or(rank(0) as i64 - 1);
            props.push(format!("dimension = {d} : i64"));
            props.push(format!("is_stable = {}", a.is_stable));
            "sort".to_string()
        }
        O::Fft => {
            let t = a.fft_type.ok_or_else(|| missing("a type"))?;
            props.push(format!("fft_type = #stablehlo<fft_type {}>", t.name()));
            props.push(format!(
                "fft_length = {}",
                ints(a.fft_length.as_deref().ok_or_else(|| missing("lengths"))?)
            ));
            "fft".to_string()
        }
        O::ReducePrecision => {
            props.push(format!(
                "exponent_bits = {} : i32",
                a.exponent_bits.ok_or_else(|| missing("exponent bits"))?
            ));
            props.push(format!(
                "mantissa_bits = {} : i32",
                a.mantissa_bits.ok_or_else(|| missing("mantissa bits"))?
            ));
            "reduce_precision".to_string()
        }
        O::Cholesky => {
            props.push(format!("lower = {}", a.cholesky_lower.unwrap_or(false)));
            "cholesky".to_string()
        }
        O::TriangularSolve => {
            let o = a.triangular_solve.ok_or_else(|| missing("options"))?;
            props.push(format!("left_side = {}", o.left_side));
            props.push(format!("lower = {}", o.lower));
            props.push(format!("unit_diagonal = {}", o.unit_diagonal));
            props.push(format!(
                "transpose_a = #stablehlo<transpose {}>",
                o.transpose_a.name()
            ));
            "triangular_solve".to_string()
        }
        O::BatchNormGrad | O::BatchNormInference | O::BatchNormTraining => {
            // A float as its bit pattern: exact, and MLIR's float syntax.
            let epsilon = a.epsilon.ok_or_else(|| missing("epsilon"))?;
            props.push(format!("epsilon = 0x{:08X} : f32", epsilon.to_bits()));
            props.push(format!(
                "feature_index = {} : i64",
                a.feature_index.ok_or_else(|| missing("a feature index"))?
            ));
            instr.opcode.name().replace('-', "_")
        }
        O::Rng => {
            let d = a
                .rng_distribution
                .ok_or_else(|| missing("a distribution"))?;
            let name = if d == crate::hlo::RngDistribution::Uniform {
                "UNIFORM"
            } else {
                "NORMAL"
            };
            props.push(format!(
                "rng_distribution = #stablehlo<rng_distribution {name}>"
            ));
            "rng".to_string()
        }
        O::RngBitGenerator => {
            let algorithm = match a.rng_algorithm.ok_or_else(|| missing("an algorithm"))? {
                crate::hlo::RngAlgorithm::Default => "DEFAULT",
                crate::hlo::RngAlgorithm::ThreeFry => "THREE_FRY",
                crate::hlo::RngAlgorithm::Philox => "PHILOX",
            };
            props.push(format!(
                "rng_algorithm = #stablehlo<rng_algorithm {algorithm}>"
            ));
            "rng_bit_generator".to_string()
        }
        O::TopK => {
            if a.largest == Some(false) {
                return Err("a top-k of the smallest values has no StableHLO form".into());
            }
            props.push(format!("k = {} : i64", a.k.ok_or_else(|| missing("k"))?));
            return Ok(("chlo.top_k".to_string(), props));
        }
        O::Erf => return Ok(("chlo.erf".to_string(), props)),
        O::CustomCall => {
            custom_call_properties(instr, &mut props)?;
            "custom_call".to_string()
        }
        O::AllReduce | O::AllGather | O::ReduceScatter | O::AllToAll | O::CollectivePermute => {
            collective_properties(instr, &mut props)?;
            instr.opcode.name().replace('-', "_")
        }
        O::Conditional => {
            let pred = operand(0)
                .and_then(Shape::as_array)
                .is_some_and(|s| s.element_type() == PrimitiveType::Pred);
            if pred { "if" } else { "case" }.to_string()
        }
        O::Clz => "count_leading_zeros".to_string(),
        O::Bitcast | O::Fusion | O::Parameter | O::Copy | O::OptimizationBarrier | O::Call => {
            return Err(format!(
                "`{}` has no StableHLO form here",
                instr.opcode.name()
            ))
        }
        other => other.name().replace('-', "_"),
    };
    Ok((format!("stablehlo.{name}"), props))
}

/// A custom call's target, configuration, API version, layouts, aliases.
fn custom_call_properties(instr: &HloInstruction, props: &mut Vec<String>) -> Result<(), String> {
    let a = &instr.attrs;
    let target = a
        .custom_call_target
        .as_deref()
        .ok_or("a custom call without a target")?;
    props.push(format!("call_target_name = {target:?}"));
    if a.custom_call_has_side_effect {
        props.push("has_side_effect = true".into());
    }
    let typed = a.custom_call_api_version.as_deref() == Some("API_VERSION_TYPED_FFI");
    if let Some(version) = &a.custom_call_api_version {
        let v = match version.as_str() {
            "API_VERSION_ORIGINAL" => 1,
            "API_VERSION_STATUS_RETURNING" => 2,
            "API_VERSION_STATUS_RETURNING_UNIFIED" => 3,
            "API_VERSION_TYPED_FFI" => 4,
            other => return Err(format!("unknown custom call API version `{other}`")),
        };
        props.push(format!("api_version = {v} : i32"));
    }
    match (&a.backend_config, typed) {
        // A typed FFI call's configuration is an MLIR dictionary already.
        (Some(config), true) if config.trim_start().starts_with('{') => {
            props.push(format!("backend_config = {config}"))
        }
        (Some(config), _) => props.push(format!("backend_config = {config:?}")),
        (None, _) => {}
    }
    let layout_of = |shape: &Shape| {
        shape
            .as_array()
            .map(|s| s.layout_or_default().minor_to_major.clone())
    };
    if let Some(constraints) = &a.operand_layout_constraints {
        let layouts: Vec<String> = constraints
            .iter()
            .map(|s| {
                layout_of(s).map(|l| format!("dense<{}> : tensor<{}xindex>", list(&l), l.len()))
            })
            .collect::<Option<_>>()
            .ok_or("an operand layout of a tuple")?;
        props.push(format!("operand_layouts = [{}]", layouts.join(", ")));
        let results: Vec<&Shape> = match &instr.shape {
            Shape::Tuple(parts) => parts.iter().collect(),
            other => vec![other],
        };
        let layouts: Vec<String> = results
            .iter()
            .map(|s| {
                layout_of(s).map(|l| format!("dense<{}> : tensor<{}xindex>", list(&l), l.len()))
            })
            .collect::<Option<_>>()
            .ok_or("a result layout of a tuple")?;
        props.push(format!("result_layouts = [{}]", layouts.join(", ")));
    }
    if let Some(aliases) = &a.output_to_operand_aliasing {
        let items: Vec<String> = aliases
            .iter()
            .map(|x| {
                format!(
                    "#stablehlo.output_operand_alias<output_tuple_indices = {}, operand_index = {}, operand_tuple_indices = {}>",
                    list(&x.output_index),
                    x.operand,
                    list(&x.operand_index)
                )
            })
            .collect();
        props.push(format!("output_operand_aliases = [{}]", items.join(", ")));
    }
    if !instr.called.is_empty() {
        return Err("a custom call with called computations has no StableHLO form here".into());
    }
    Ok(())
}

/// A collective's groups, channel and dimensions.
fn collective_properties(instr: &HloInstruction, props: &mut Vec<String>) -> Result<(), String> {
    use Opcode as O;
    let a = &instr.attrs;
    if instr.opcode == O::CollectivePermute {
        let pairs_list: Vec<(i64, i64)> = a.source_target_pairs.clone().unwrap_or_default();
        props.push(format!("source_target_pairs = {}", pairs(&pairs_list)));
    } else if let Some(groups) = &a.replica_groups {
        let width = groups.first().map_or(0, Vec::len);
        if groups.iter().any(|g| g.len() != width) {
            return Err("replica groups of different sizes have no StableHLO form".into());
        }
        let rows: Vec<String> = groups.iter().map(|g| list(g)).collect();
        props.push(format!(
            "replica_groups = dense<[{}]> : tensor<{}x{width}xi64>",
            rows.join(", "),
            groups.len()
        ));
    } else {
        props.push("replica_groups = dense<> : tensor<0x0xi64>".into());
    }
    if let Some(channel) = a.channel_id {
        props.push(format!(
            "channel_handle = #stablehlo.channel_handle<handle = {channel}, type = 1>"
        ));
    }
    if a.use_global_device_ids {
        props.push("use_global_device_ids".into());
    }
    let dim = a.dimensions.as_deref().and_then(<[i64]>::first).copied();
    match instr.opcode {
        O::AllGather => props.push(format!(
            "all_gather_dim = {} : i64",
            dim.ok_or("an all-gather without a dimension")?
        )),
        O::ReduceScatter => props.push(format!(
            "scatter_dimension = {} : i64",
            dim.ok_or("a reduce-scatter without a dimension")?
        )),
        O::AllToAll => {
            let d = dim.ok_or("the tuple form of all-to-all has no StableHLO form here")?;
            let count = a
                .replica_groups
                .as_ref()
                .and_then(|g| g.first())
                .map_or(1, Vec::len);
            props.push(format!("split_dimension = {d} : i64"));
            props.push(format!("concat_dimension = {d} : i64"));
            props.push(format!("split_count = {count} : i64"));
        }
        _ => {}
    }
    Ok(())
}
