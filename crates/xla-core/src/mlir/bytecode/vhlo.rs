//! VHLO ops mapped to StableHLO's, as StableHLO's `vhlo-to-version` and
//! `vhlo-legalize-to-stablehlo` passes do: older op versions upgraded
//! (missing batching dimensions added as empty lists), attributes StableHLO
//! only has when set removed when unset, index lists read as [`Attr::Ints`] /
//! [`Attr::Bools`], symbol names as [`Attr::Symbol`], and structured
//! attributes kept flat under VHLO's names.

use super::attrs::Tables;
use super::ir_section::RawOp;
use super::{Cur, Result};
use crate::mlir::ir::{Attr, ElementType, Operation, Type};

/// The attributes of `convolution_v1` and the `dynamic_conv` versions.
const CONVOLUTION: &[&str] = &[
    "window_strides",
    "padding",
    "lhs_dilation",
    "rhs_dilation",
    "window_reversal",
    "input_batch_dimension",
    "input_feature_dimension",
    "input_spatial_dimensions",
    "kernel_input_feature_dimension",
    "kernel_output_feature_dimension",
    "kernel_spatial_dimensions",
    "output_batch_dimension",
    "output_feature_dimension",
    "output_spatial_dimensions",
    "feature_group_count",
    "batch_group_count",
    "precision_config",
];

/// Every VHLO op of versions 1.0 to 1.20 with its attributes in declaration
/// order (`VhloOps.td`); properties are stored in the alphabetical order of
/// these names.
const OPS: &[(&str, &[&str])] = &[
    ("abs_v1", &[]),
    ("add_v1", &[]),
    ("after_all_v1", &[]),
    (
        "all_gather_v1",
        &[
            "all_gather_dim",
            "replica_groups",
            "channel_id",
            "use_global_device_ids",
        ],
    ),
    (
        "all_gather_v2",
        &[
            "all_gather_dim",
            "replica_groups",
            "channel_id",
            "use_global_device_ids",
        ],
    ),
    (
        "all_reduce_v1",
        &["replica_groups", "channel_id", "use_global_device_ids"],
    ),
    (
        "all_reduce_v2",
        &["replica_groups", "channel_id", "use_global_device_ids"],
    ),
    (
        "all_to_all_v1",
        &[
            "split_dimension",
            "concat_dimension",
            "split_count",
            "replica_groups",
            "channel_id",
        ],
    ),
    (
        "all_to_all_v2",
        &[
            "split_dimension",
            "concat_dimension",
            "split_count",
            "replica_groups",
            "channel_id",
        ],
    ),
    ("and_v1", &[]),
    ("async_start_v1", &[]),
    ("async_done_v1", &[]),
    ("atan2_v1", &[]),
    ("batch_norm_grad_v1", &["epsilon", "feature_index"]),
    ("batch_norm_inference_v1", &["epsilon", "feature_index"]),
    ("batch_norm_training_v1", &["epsilon", "feature_index"]),
    ("bitcast_convert_v1", &[]),
    ("broadcast_in_dim_v1", &["broadcast_dimensions"]),
    ("broadcast_v1", &["broadcast_sizes"]),
    ("call_v1", &["callee"]),
    ("case_v1", &[]),
    ("cbrt_v1", &[]),
    ("cbrt_v2", &["result_accuracy"]),
    ("ceil_v1", &[]),
    ("cholesky_v1", &["lower"]),
    ("clamp_v1", &[]),
    ("count_leading_zeros_v1", &[]),
    ("cross-replica-sum_v1", &["replica_groups"]),
    ("collective_broadcast_v1", &["replica_groups", "channel_id"]),
    (
        "collective_broadcast_v2",
        &["replica_groups", "channel_id", "has_dynamic_root"],
    ),
    (
        "collective_reduce_v1",
        &[
            "replica_groups",
            "channel_id",
            "use_global_device_ids",
            "has_dynamic_root",
        ],
    ),
    (
        "collective_permute_v1",
        &["source_target_pairs", "channel_id"],
    ),
    ("compare_v1", &["comparison_direction", "compare_type"]),
    ("complex_v1", &[]),
    (
        "composite_v1",
        &["name", "composite_attributes", "decomposition", "version"],
    ),
    (
        "composite_v2",
        &["name", "composite_attributes", "decomposition", "version"],
    ),
    ("concatenate_v1", &["dimension"]),
    ("constant_v1", &["value"]),
    ("convert_v1", &[]),
    ("convolution_v1", CONVOLUTION),
    ("cosine_v1", &[]),
    ("cosine_v2", &["result_accuracy"]),
    ("create_token_v1", &[]),
    (
        "custom_call_v1",
        &[
            "call_target_name",
            "has_side_effect",
            "backend_config",
            "api_version",
            "called_computations",
            "operand_layouts",
            "result_layouts",
            "output_operand_aliases",
        ],
    ),
    (
        "custom_call_v2",
        &[
            "call_target_name",
            "has_side_effect",
            "backend_config",
            "api_version",
            "called_computations",
            "operand_layouts",
            "result_layouts",
            "output_operand_aliases",
            "result_tilings",
        ],
    ),
    ("divide_v1", &[]),
    (
        "dot_general_v1",
        &[
            "lhs_batching_dimensions",
            "rhs_batching_dimensions",
            "lhs_contracting_dimensions",
            "rhs_contracting_dimensions",
            "precision_config",
        ],
    ),
    (
        "dot_general_v2",
        &[
            "lhs_batching_dimensions",
            "rhs_batching_dimensions",
            "lhs_contracting_dimensions",
            "rhs_contracting_dimensions",
            "precision_config",
            "lhs_precision_type",
            "rhs_precision_type",
            "accumulation_type",
            "lhs_component_count",
            "rhs_component_count",
            "num_primitive_operations",
            "allow_imprecise_accumulation",
        ],
    ),
    ("dot_v1", &["precision_config"]),
    (
        "dynamic_broadcast_in_dim_v1",
        &[
            "broadcast_dimensions",
            "known_expanding_dimensions",
            "known_nonexpanding_dimensions",
        ],
    ),
    ("dynamic_conv_v1", CONVOLUTION),
    (
        "dynamic_conv_v2",
        &[
            "window_strides",
            "lhs_dilation",
            "rhs_dilation",
            "window_reversal",
            "input_batch_dimension",
            "input_feature_dimension",
            "input_spatial_dimensions",
            "kernel_input_feature_dimension",
            "kernel_output_feature_dimension",
            "kernel_spatial_dimensions",
            "output_batch_dimension",
            "output_feature_dimension",
            "output_spatial_dimensions",
            "feature_group_count",
            "batch_group_count",
            "precision_config",
        ],
    ),
    (
        "dynamic_gather_v1",
        &[
            "offset_dims",
            "collapsed_slice_dims",
            "start_index_map",
            "index_vector_dim",
            "indices_are_sorted",
        ],
    ),
    (
        "dynamic_gather_v2",
        &[
            "offset_dims",
            "collapsed_slice_dims",
            "operand_batching_dims",
            "start_indices_batching_dims",
            "start_index_map",
            "index_vector_dim",
            "indices_are_sorted",
        ],
    ),
    ("dynamic_iota_v1", &["iota_dimension"]),
    ("dynamic_pad_v1", &[]),
    ("dynamic_reshape_v1", &[]),
    ("dynamic_slice_v1", &["slice_sizes"]),
    ("dynamic_update_slice_v1", &[]),
    ("einsum_v1", &["einsum_config"]),
    ("exponential_minus_one_v1", &[]),
    ("exponential_minus_one_v2", &["result_accuracy"]),
    ("exponential_v1", &[]),
    ("exponential_v2", &["result_accuracy"]),
    ("fft_v1", &["fft_type", "fft_length"]),
    ("floor_v1", &[]),
    (
        "func_v1",
        &[
            "sym_name",
            "function_type",
            "sym_visibility",
            "arg_attrs",
            "res_attrs",
        ],
    ),
    (
        "gather_v1",
        &[
            "offset_dims",
            "collapsed_slice_dims",
            "start_index_map",
            "index_vector_dim",
            "slice_sizes",
            "indices_are_sorted",
        ],
    ),
    (
        "gather_v2",
        &[
            "offset_dims",
            "collapsed_slice_dims",
            "operand_batching_dims",
            "start_indices_batching_dims",
            "start_index_map",
            "index_vector_dim",
            "slice_sizes",
            "indices_are_sorted",
        ],
    ),
    ("get_dimension_size_v1", &["dimension"]),
    ("get_tuple_element_v1", &["index"]),
    ("if_v1", &[]),
    ("imag_v1", &[]),
    ("infeed_v1", &["infeed_config", "layout"]),
    ("iota_v1", &["iota_dimension"]),
    ("is_finite_v1", &[]),
    ("log_plus_one_v1", &[]),
    ("log_plus_one_v2", &["result_accuracy"]),
    ("logistic_v1", &[]),
    ("logistic_v2", &["result_accuracy"]),
    ("log_v1", &[]),
    ("log_v2", &["result_accuracy"]),
    ("map_v1", &["dimensions"]),
    ("maximum_v1", &[]),
    ("minimum_v1", &[]),
    ("multiply_v1", &[]),
    ("negate_v1", &[]),
    ("not_v1", &[]),
    ("optimization_barrier_v1", &[]),
    ("or_v1", &[]),
    ("outfeed_v1", &["outfeed_config"]),
    (
        "pad_v1",
        &["edge_padding_low", "edge_padding_high", "interior_padding"],
    ),
    ("partition_id_v1", &[]),
    ("popcnt_v1", &[]),
    ("power_v1", &[]),
    ("real_dynamic_slice_v1", &[]),
    ("real_v1", &[]),
    (
        "recv_v1",
        &["channel_id", "channel_type", "is_host_transfer"],
    ),
    (
        "recv_v2",
        &[
            "channel_id",
            "channel_type",
            "is_host_transfer",
            "source_target_pairs",
        ],
    ),
    ("reduce_v1", &["dimensions"]),
    ("reduce_precision_v1", &["exponent_bits", "mantissa_bits"]),
    (
        "reduce_scatter_v1",
        &[
            "scatter_dimension",
            "replica_groups",
            "channel_id",
            "use_global_device_ids",
        ],
    ),
    (
        "reduce_window_v1",
        &[
            "window_dimensions",
            "window_strides",
            "base_dilations",
            "window_dilations",
            "padding",
        ],
    ),
    ("remainder_v1", &[]),
    ("replica_id_v1", &[]),
    ("reshape_v1", &[]),
    ("return_v1", &[]),
    ("reverse_v1", &["dimensions"]),
    ("rng_bit_generator_v1", &["rng_algorithm"]),
    ("rng_v1", &["rng_distribution"]),
    ("round_nearest_even_v1", &[]),
    ("round_nearest_afz_v1", &[]),
    ("rsqrt_v1", &[]),
    ("rsqrt_v2", &["result_accuracy"]),
    (
        "scatter_v1",
        &[
            "update_window_dims",
            "inserted_window_dims",
            "scatter_dims_to_operand_dims",
            "index_vector_dim",
            "indices_are_sorted",
            "unique_indices",
        ],
    ),
    (
        "scatter_v2",
        &[
            "update_window_dims",
            "inserted_window_dims",
            "input_batching_dims",
            "scatter_indices_batching_dims",
            "scatter_dims_to_operand_dims",
            "index_vector_dim",
            "indices_are_sorted",
            "unique_indices",
        ],
    ),
    (
        "select_and_scatter_v1",
        &["window_dimensions", "window_strides", "padding"],
    ),
    ("select_v1", &[]),
    (
        "send_v1",
        &["channel_id", "channel_type", "is_host_transfer"],
    ),
    (
        "send_v2",
        &[
            "channel_id",
            "channel_type",
            "is_host_transfer",
            "source_target_pairs",
        ],
    ),
    ("set_dimension_size_v1", &["dimension"]),
    ("shift_left_v1", &[]),
    ("shift_right_arithmetic_v1", &[]),
    ("shift_right_logical_v1", &[]),
    ("sign_v1", &[]),
    ("sine_v1", &[]),
    ("sine_v2", &["result_accuracy"]),
    ("slice_v1", &["start_indices", "limit_indices", "strides"]),
    ("sort_v1", &["dimension", "is_stable"]),
    ("sqrt_v1", &[]),
    ("sqrt_v2", &["result_accuracy"]),
    ("subtract_v1", &[]),
    ("tan_v1", &[]),
    ("tan_v2", &["result_accuracy"]),
    ("tanh_v1", &[]),
    ("tanh_v2", &["result_accuracy"]),
    ("torch_index_select_v1", &["dim", "batch_dims"]),
    ("transpose_v1", &["permutation"]),
    (
        "triangular_solve_v1",
        &["left_side", "lower", "unit_diagonal", "transpose_a"],
    ),
    ("tuple_v1", &[]),
    ("unary_einsum_v1", &["einsum_config"]),
    ("uniform_dequantize_v1", &[]),
    ("uniform_quantize_v1", &[]),
    ("while_v1", &[]),
    ("xor_v1", &[]),
];

/// The attribute names of the VHLO op `name` (`gather_v2`), in declaration
/// order, or `None` for an op this reader does not know.
pub(crate) fn attribute_names(name: &str) -> Option<&'static [&'static str]> {
    OPS.iter().find(|(n, _)| *n == name).map(|(_, a)| *a)
}

/// Attributes holding index lists (`i64` tensors in VHLO, dense arrays or
/// structured-attribute fields in StableHLO): read as [`Attr::Ints`];
/// convolution's `padding` (an `N×2` tensor) is flattened row-major.
const INDEX_LISTS: &[&str] = &[
    "base_dilations",
    "broadcast_dimensions",
    "broadcast_sizes",
    "collapsed_slice_dims",
    "dimensions",
    "edge_padding_high",
    "edge_padding_low",
    "fft_length",
    "input_batching_dims",
    "input_spatial_dimensions",
    "inserted_window_dims",
    "interior_padding",
    "kernel_spatial_dimensions",
    "known_expanding_dimensions",
    "known_nonexpanding_dimensions",
    "lhs_batching_dimensions",
    "lhs_contracting_dimensions",
    "lhs_dilation",
    "limit_indices",
    "offset_dims",
    "operand_batching_dims",
    "output_spatial_dimensions",
    "padding",
    "permutation",
    "rhs_batching_dimensions",
    "rhs_contracting_dimensions",
    "rhs_dilation",
    "scatter_dims_to_operand_dims",
    "scatter_indices_batching_dims",
    "slice_sizes",
    "start_index_map",
    "start_indices",
    "start_indices_batching_dims",
    "strides",
    "update_window_dims",
    "window_dilations",
    "window_dimensions",
    "window_strides",
];

/// The longest index list read (a splat is expanded to this many elements
/// at most).
const MAX_INDEX_LIST: usize = 1 << 20;

/// The dot algorithm fields of `dot_general_v2`, all `none` when unset.
const DOT_ALGORITHM: &[&str] = &[
    "lhs_precision_type",
    "rhs_precision_type",
    "accumulation_type",
    "lhs_component_count",
    "rhs_component_count",
    "num_primitive_operations",
    "allow_imprecise_accumulation",
];

/// Converts one op read from the bytecode into its StableHLO form; `parent`
/// is the enclosing op's bytecode name (`vhlo.func_v1`).
pub(crate) fn convert(
    raw: RawOp,
    parent: &str,
    tables: &mut Tables<'_, '_>,
    at: &Cur<'_>,
) -> Result<Operation> {
    let mut op = Operation {
        name: format!("{}.{}", raw.dialect, raw.name),
        operands: raw.operands,
        results: raw.results,
        attrs: raw.attrs,
        regions: raw.regions,
        loc: raw.loc,
    };
    if raw.dialect != "vhlo" {
        return Ok(op);
    }
    let (base, version) = split_version(&raw.name)
        .filter(|_| attribute_names(&raw.name).is_some())
        .ok_or_else(|| at.unsupported("op", format!("vhlo.{}", raw.name)))?;
    op.name = match base {
        "func" => "func.func".into(),
        "call" => "func.call".into(),
        "return" if parent == "vhlo.func_v1" => "func.return".into(),
        _ => format!("stablehlo.{base}"),
    };
    upgrade(base, version, &mut op.attrs);
    let attrs = std::mem::take(&mut op.attrs);
    for (name, a) in attrs {
        if let Some(a) = convert_attr(base, &name, a, at)? {
            op.attrs.push((name, a));
        }
    }
    remove_defaults(base, &mut op.attrs);
    let size: usize = op
        .attrs
        .iter()
        .map(|(_, a)| super::attrs::attr_size(a))
        .sum();
    tables.charge(size)?;
    Ok(op)
}

/// `gather_v2` → `("gather", 2)`.
fn split_version(name: &str) -> Option<(&str, u32)> {
    let (base, v) = name.rsplit_once("_v")?;
    Some((base, v.parse().ok()?))
}

/// Adds the attributes later op versions introduced, with the values
/// StableHLO's upgrade gives them.
fn upgrade(base: &str, version: u32, attrs: &mut Vec<(String, Attr)>) {
    let insert_after = |attrs: &mut Vec<(String, Attr)>, after: &str, names: [&str; 2]| {
        let i = attrs
            .iter()
            .position(|(n, _)| n == after)
            .map_or(attrs.len(), |i| i + 1);
        for (k, n) in names.iter().enumerate() {
            attrs.insert(i + k, (n.to_string(), Attr::Ints(Vec::new())));
        }
    };
    match (base, version) {
        ("gather" | "dynamic_gather", 1) => insert_after(
            attrs,
            "collapsed_slice_dims",
            ["operand_batching_dims", "start_indices_batching_dims"],
        ),
        ("scatter", 1) => insert_after(
            attrs,
            "inserted_window_dims",
            ["input_batching_dims", "scatter_indices_batching_dims"],
        ),
        _ => {}
    }
}

/// One attribute in StableHLO's form; `None` drops it.
fn convert_attr(base: &str, name: &str, a: Attr, at: &Cur<'_>) -> Result<Option<Attr>> {
    if INDEX_LISTS.contains(&name) || name == "window_reversal" {
        return Ok(Some(match a {
            Attr::Dense { ty, bytes, splat } => {
                let Type::Tensor { element, dims } = &ty else {
                    return Err(at.malformed("attribute", format!("{base}.{name}: not a tensor")));
                };
                let n = dims
                    .iter()
                    .try_fold(1usize, |n, d| n.checked_mul(d.unwrap_or(0) as usize))
                    .filter(|&n| n <= MAX_INDEX_LIST)
                    .ok_or_else(|| {
                        at.malformed("attribute", format!("{base}.{name}: index list too long"))
                    })?;
                let mut bytes = bytes;
                if splat && n > 1 {
                    bytes = bytes.repeat(n);
                }
                if *element == ElementType::Known(crate::PrimitiveType::Pred) {
                    Attr::Bools(bytes.iter().map(|&b| b != 0).collect())
                } else {
                    let v = super::attrs::ints_from_le(element, &bytes).ok_or_else(|| {
                        at.malformed("attribute", format!("{base}.{name}: not an integer tensor"))
                    })?;
                    Attr::Ints(v)
                }
            }
            other => other,
        }));
    }
    Ok(Some(match (name, a) {
        ("callee" | "decomposition", Attr::String(s)) => {
            Attr::Symbol(String::from_utf8_lossy(&s).into_owned())
        }
        ("called_computations", Attr::Array(v)) => Attr::Array(
            v.into_iter()
                .map(|a| match a {
                    Attr::String(s) => Attr::Symbol(String::from_utf8_lossy(&s).into_owned()),
                    other => other,
                })
                .collect(),
        ),
        ("use_global_device_ids" | "has_dynamic_root", Attr::Bool(b)) => {
            return Ok(b.then_some(Attr::Unit));
        }
        (_, a) => a,
    }))
}

fn is_int(a: Option<&Attr>, v: i64) -> bool {
    matches!(a, Some(Attr::Int(x, _)) if *x == v)
}

fn is_false(a: Option<&Attr>) -> bool {
    matches!(a, Some(Attr::Bool(false)))
}

fn is_empty(a: Option<&Attr>) -> bool {
    match a {
        Some(Attr::String(s)) => s.is_empty(),
        Some(Attr::Array(v)) => v.is_empty(),
        Some(Attr::Dict(v)) => v.is_empty(),
        Some(Attr::Ints(v)) => v.is_empty(),
        Some(Attr::Dense { bytes, .. }) => bytes.is_empty(),
        _ => false,
    }
}

fn is_enum(a: Option<&Attr>, value: &str) -> bool {
    matches!(a, Some(Attr::Enum(_, v)) if v == value)
}

fn is_none_type(a: Option<&Attr>) -> bool {
    matches!(a, Some(Attr::Type(Type::Element(ElementType::Other(s)))) if s == "none")
}

fn default_accuracy(a: Option<&Attr>) -> bool {
    let Some(Attr::Dict(d)) = a else { return false };
    let get = |k: &str| d.iter().find(|(n, _)| n == k).map(|(_, a)| a);
    matches!(get("atol"), Some(Attr::Float(x, _)) if *x == 0.0)
        && matches!(get("rtol"), Some(Attr::Float(x, _)) if *x == 0.0)
        && is_int(get("ulps"), 0)
        && is_enum(get("mode"), "DEFAULT")
}

/// Removes the attributes VHLO always carries but StableHLO only has when
/// set: empty optional lists, unset dot algorithm and result accuracy,
/// `NOTYPE` comparisons, channel 0, a `false` side-effect flag, the
/// original custom-call API, an empty visibility and all-empty argument or
/// result attributes. Attributes StableHLO keeps even at their default
/// (convolution windows, `precision_config`, `indices_are_sorted`, sort's
/// `dimension` and `is_stable`, …) are kept, as JAX prints them.
fn remove_defaults(base: &str, attrs: &mut Vec<(String, Attr)>) {
    let get = |n: &str| attrs.iter().find(|(m, _)| m == n).map(|(_, a)| a);
    let mut drop: Vec<&str> = Vec::new();
    match base {
        "func" => {
            if matches!(get("sym_visibility"), Some(Attr::String(s)) if s.is_empty()) {
                drop.push("sym_visibility");
            }
            for n in ["arg_attrs", "res_attrs"] {
                if matches!(get(n), Some(Attr::Array(v)) if v.iter().all(|d| is_empty(Some(d)))) {
                    drop.push(n);
                }
            }
        }
        "all_gather"
        | "all_reduce"
        | "reduce_scatter"
        | "all_to_all"
        | "collective_permute"
        | "collective_broadcast"
        | "collective_reduce"
            if is_int(get("channel_id"), 0) =>
        {
            drop.push("channel_id")
        }
        "compare" if is_enum(get("compare_type"), "NOTYPE") => drop.push("compare_type"),
        "composite" => {
            if is_int(get("version"), 0) {
                drop.push("version");
            }
            if is_empty(get("composite_attributes")) {
                drop.push("composite_attributes");
            }
        }
        "custom_call" => {
            if is_false(get("has_side_effect")) {
                drop.push("has_side_effect");
            }
            if is_enum(get("api_version"), "API_VERSION_ORIGINAL") {
                drop.push("api_version");
            }
            for n in [
                "called_computations",
                "output_operand_aliases",
                "result_tilings",
            ] {
                if is_empty(get(n)) {
                    drop.push(n);
                }
            }
            if is_empty(get("operand_layouts")) && is_empty(get("result_layouts")) {
                drop.extend(["operand_layouts", "result_layouts"]);
            }
        }
        "dot_general" if DOT_ALGORITHM.iter().all(|n| is_none_type(get(n))) => {
            drop.extend(DOT_ALGORITHM)
        }
        "dynamic_broadcast_in_dim" => {
            for n in [
                "known_expanding_dimensions",
                "known_nonexpanding_dimensions",
            ] {
                if is_empty(get(n)) {
                    drop.push(n);
                }
            }
        }
        "recv" | "send" if is_empty(get("source_target_pairs")) => drop.push("source_target_pairs"),
        _ => {}
    }
    if default_accuracy(get("result_accuracy")) {
        drop.push("result_accuracy");
    }
    attrs.retain(|(n, _)| !drop.contains(&n.as_str()));
}
