//! Each attribute key's value: parsed into [`Attrs`] and printed from it.
//!
//! A key's parser and printer sit in matching `match` arms of
//! [`parse_value`] and [`print_value`]. Computation-valued keys
//! (`to_apply=`, `body=`, …) name computations and are resolved by the
//! module parser instead.

use super::keys::Key;
use super::lists::*;
use super::window::{dim_labels, parse_dim_labels, parse_window, window};
use crate::hlo::{
    self, Attrs, ComparisonDirection, ComparisonType, DotDimensionNumbers, GatherDimensionNumbers,
    Opcode, RngAlgorithm, RngDistribution, ScatterDimensionNumbers, TransposeKind,
    TriangularSolveOptions,
};
use crate::text::float::{format_float, parse_float};
use crate::text::literal::{parse_literal, print_literal, LiteralFormat};
use crate::text::shape::parse_shape;
use crate::text::tokens::c_escape;
use crate::text::{Cursor, ParseError};

/// The custom-call API versions XLA knows.
const API_VERSIONS: &[&str] = &[
    "API_VERSION_ORIGINAL",
    "API_VERSION_STATUS_RETURNING",
    "API_VERSION_STATUS_RETURNING_UNIFIED",
    "API_VERSION_TYPED_FFI",
];

/// The fusion kinds XLA knows.
const FUSION_KINDS: &[&str] = &["kLoop", "kInput", "kOutput", "kCustom"];

fn boolean(c: &mut Cursor<'_>) -> Result<bool, ParseError> {
    if c.eat_keyword("true") {
        Ok(true)
    } else if c.eat_keyword("false") {
        Ok(false)
    } else {
        c.skip_ws();
        Err(c.error("`true` or `false`"))
    }
}

/// Reads a word and maps it with `from_name`, or fails listing `options`.
fn word<T>(
    c: &mut Cursor<'_>,
    from_name: impl Fn(&str) -> Option<T>,
    what: &str,
) -> Result<T, ParseError> {
    c.skip_ws();
    let at = c.pos();
    c.name()
        .and_then(from_name)
        .ok_or_else(|| c.error_at(at, what))
}

fn ints(c: &mut Cursor<'_>) -> Result<Vec<i64>, ParseError> {
    c.int_list("{", "}")
}

fn dot(a: &mut Attrs) -> &mut DotDimensionNumbers {
    a.dot_dims.get_or_insert_with(Default::default)
}

fn gather(a: &mut Attrs) -> &mut GatherDimensionNumbers {
    a.gather_dims.get_or_insert_with(Default::default)
}

fn scatter(a: &mut Attrs) -> &mut ScatterDimensionNumbers {
    a.scatter_dims.get_or_insert_with(Default::default)
}

fn triangular(a: &mut Attrs) -> &mut TriangularSolveOptions {
    a.triangular_solve.get_or_insert(TriangularSolveOptions {
        left_side: false,
        lower: false,
        unit_diagonal: false,
        transpose_a: TransposeKind::NoTranspose,
    })
}

/// Parses the value of `key` (after its `=`) into `a`.
pub(crate) fn parse_value(
    key: Key,
    op: Opcode,
    c: &mut Cursor<'_>,
    a: &mut Attrs,
) -> Result<(), ParseError> {
    use Key::*;
    match key {
        Dimensions => a.dimensions = Some(ints(c)?),
        Slice => a.slice = Some(parse_slice(c)?),
        DynamicSliceSizes => a.dynamic_slice_sizes = Some(ints(c)?),
        Padding => a.padding = Some(parse_pad_config(c)?),
        Window => a.window = Some(parse_window(c)?),
        DimLabels => a.conv_dims = Some(parse_dim_labels(c)?),
        FeatureGroupCount => a.feature_group_count = Some(c.int()?),
        BatchGroupCount => a.batch_group_count = Some(c.int()?),
        LhsBatchDims => dot(a).lhs_batch = ints(c)?,
        LhsContractingDims => dot(a).lhs_contracting = ints(c)?,
        RhsBatchDims => dot(a).rhs_batch = ints(c)?,
        RhsContractingDims => dot(a).rhs_contracting = ints(c)?,
        OffsetDims => gather(a).offset_dims = ints(c)?,
        CollapsedSliceDims => gather(a).collapsed_slice_dims = ints(c)?,
        StartIndexMap => gather(a).start_index_map = ints(c)?,
        OperandBatchingDims => gather(a).operand_batching_dims = ints(c)?,
        StartIndicesBatchingDims => gather(a).start_indices_batching_dims = ints(c)?,
        IndexVectorDim => {
            let dim = c.int()?;
            match op {
                Opcode::Gather => gather(a).index_vector_dim = dim,
                _ => scatter(a).index_vector_dim = dim,
            }
        }
        SliceSizes => a.gather_slice_sizes = Some(ints(c)?),
        UpdateWindowDims => scatter(a).update_window_dims = ints(c)?,
        InsertedWindowDims => scatter(a).inserted_window_dims = ints(c)?,
        ScatterDimsToOperandDims => scatter(a).scatter_dims_to_operand_dims = ints(c)?,
        InputBatchingDims => scatter(a).input_batching_dims = ints(c)?,
        ScatterIndicesBatchingDims => scatter(a).scatter_indices_batching_dims = ints(c)?,
        IndicesAreSorted => a.indices_are_sorted = boolean(c)?,
        UniqueIndices => a.unique_indices = boolean(c)?,
        Direction => {
            let what = "a comparison direction (EQ, NE, GE, GT, LE, LT)";
            a.comparison_direction = Some(word(c, ComparisonDirection::from_name, what)?);
        }
        Type => {
            let what = "a comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)";
            a.comparison_type = Some(word(c, ComparisonType::from_name, what)?);
        }
        FftType => {
            a.fft_type = Some(word(
                c,
                hlo::FftType::from_name,
                "an FFT type (FFT, IFFT, RFFT, IRFFT)",
            )?)
        }
        FftLength => a.fft_length = Some(ints(c)?),
        ReplicaGroups => a.replica_groups = Some(parse_replica_groups(c)?),
        SourceTargetPairs => a.source_target_pairs = Some(parse_source_target_pairs(c)?),
        ChannelId => a.channel_id = Some(c.int()?),
        UseGlobalDeviceIds => a.use_global_device_ids = boolean(c)?,
        ConstrainLayout => a.constrain_layout = boolean(c)?,
        CustomCallTarget => a.custom_call_target = Some(c.string()?),
        CustomCallHasSideEffect => a.custom_call_has_side_effect = boolean(c)?,
        ApiVersion => {
            let find = |w: &str| {
                API_VERSIONS
                    .iter()
                    .find(|&&v| v == w)
                    .map(|v| v.to_string())
            };
            let what = "an API version (API_VERSION_ORIGINAL, API_VERSION_STATUS_RETURNING, API_VERSION_STATUS_RETURNING_UNIFIED, API_VERSION_TYPED_FFI)";
            a.custom_call_api_version = Some(word(c, find, what)?);
        }
        OperandLayoutConstraints => {
            c.expect("{")?;
            let mut shapes = Vec::new();
            while !c.eat("}") {
                if !shapes.is_empty() {
                    c.expect(",")?;
                }
                shapes.push(parse_shape(c)?);
            }
            a.operand_layout_constraints = Some(shapes);
        }
        OutputToOperandAliasing => a.output_to_operand_aliasing = Some(parse_aliasing(c)?),
        Literal => a.literal = Some(parse_literal(c)?),
        K => a.k = Some(c.int()?),
        Largest => a.largest = Some(boolean(c)?),
        IotaDimension => a.iota_dimension = Some(c.int()?),
        Index => a.tuple_index = Some(c.int()?),
        ExponentBits => a.exponent_bits = Some(c.int()?),
        MantissaBits => a.mantissa_bits = Some(c.int()?),
        Epsilon => {
            c.skip_ws();
            let at = c.pos();
            let value = c.float_token().and_then(parse_float::<f32>);
            a.epsilon = Some(value.ok_or_else(|| c.error_at(at, "a floating-point epsilon"))?);
        }
        FeatureIndex => a.feature_index = Some(c.int()?),
        Distribution => {
            let what = "a distribution (rng_uniform, rng_normal)";
            a.rng_distribution = Some(word(c, RngDistribution::from_name, what)?);
        }
        Algorithm => {
            let what = "an RNG algorithm (rng_default, rng_three_fry, rng_philox)";
            a.rng_algorithm = Some(word(c, RngAlgorithm::from_name, what)?);
        }
        IsStable => a.is_stable = boolean(c)?,
        LeftSide => triangular(a).left_side = boolean(c)?,
        Lower => match op {
            Opcode::Cholesky => a.cholesky_lower = Some(boolean(c)?),
            _ => triangular(a).lower = boolean(c)?,
        },
        UnitDiagonal => triangular(a).unit_diagonal = boolean(c)?,
        TransposeA => {
            let what = "NO_TRANSPOSE, TRANSPOSE or ADJOINT";
            triangular(a).transpose_a = word(c, TransposeKind::from_name, what)?;
        }
        InfeedConfig => a.infeed_config = Some(c.string()?),
        OutfeedConfig => a.outfeed_config = Some(c.string()?),
        OutfeedShape => a.outfeed_shape = Some(parse_shape(c)?),
        IsHostTransfer => a.is_host_transfer = boolean(c)?,
        Kind => {
            let find = |w: &str| {
                FUSION_KINDS
                    .iter()
                    .find(|&&k| k == w)
                    .map(|k| k.to_string())
            };
            a.fusion_kind = Some(word(
                c,
                find,
                "a fusion kind (kLoop, kInput, kOutput, kCustom)",
            )?);
        }
        ToApply | Calls | Condition | Body | TrueComputation | FalseComputation | Select
        | Scatter | BranchComputations | CalledComputations => {
            unreachable!(
                "computation-valued `{}` is parsed by the instruction parser",
                key.name()
            )
        }
    }
    Ok(())
}

fn flag(set: bool) -> Option<String> {
    set.then(|| "true".to_string())
}

fn non_empty(dims: &[i64]) -> Option<String> {
    (!dims.is_empty()).then(|| int_list(dims))
}

/// The text of `key`'s value, or `None` if the instruction does not carry
/// it (absent, or a default XLA does not print).
pub(crate) fn print_value(key: Key, op: Opcode, a: &Attrs) -> Option<String> {
    use Key::*;
    let dot = a.dot_dims.as_ref();
    let gather = a.gather_dims.as_ref();
    let scatter = a.scatter_dims.as_ref();
    let tri = a.triangular_solve.as_ref();
    match key {
        Dimensions => a.dimensions.as_deref().map(int_list),
        Slice => a.slice.as_deref().map(slice),
        DynamicSliceSizes => a.dynamic_slice_sizes.as_deref().map(int_list),
        Padding => a.padding.as_deref().map(pad_config),
        Window => a.window.as_ref().map(window),
        DimLabels => a.conv_dims.as_ref().map(dim_labels),
        FeatureGroupCount => a.feature_group_count.map(|n| n.to_string()),
        BatchGroupCount => a.batch_group_count.map(|n| n.to_string()),
        LhsBatchDims => dot.and_then(|d| non_empty(&d.lhs_batch)),
        LhsContractingDims => dot.map(|d| int_list(&d.lhs_contracting)),
        RhsBatchDims => dot.and_then(|d| non_empty(&d.rhs_batch)),
        RhsContractingDims => dot.map(|d| int_list(&d.rhs_contracting)),
        OffsetDims => gather.map(|g| int_list(&g.offset_dims)),
        CollapsedSliceDims => gather.map(|g| int_list(&g.collapsed_slice_dims)),
        StartIndexMap => gather.map(|g| int_list(&g.start_index_map)),
        OperandBatchingDims => gather.and_then(|g| non_empty(&g.operand_batching_dims)),
        StartIndicesBatchingDims => gather.and_then(|g| non_empty(&g.start_indices_batching_dims)),
        IndexVectorDim => match op {
            Opcode::Gather => gather.map(|g| g.index_vector_dim.to_string()),
            _ => scatter.map(|s| s.index_vector_dim.to_string()),
        },
        SliceSizes => a.gather_slice_sizes.as_deref().map(int_list),
        UpdateWindowDims => scatter.map(|s| int_list(&s.update_window_dims)),
        InsertedWindowDims => scatter.map(|s| int_list(&s.inserted_window_dims)),
        ScatterDimsToOperandDims => scatter.map(|s| int_list(&s.scatter_dims_to_operand_dims)),
        InputBatchingDims => scatter.and_then(|s| non_empty(&s.input_batching_dims)),
        ScatterIndicesBatchingDims => {
            scatter.and_then(|s| non_empty(&s.scatter_indices_batching_dims))
        }
        IndicesAreSorted => flag(a.indices_are_sorted),
        UniqueIndices => flag(a.unique_indices),
        Direction => a.comparison_direction.map(|d| d.name().to_string()),
        Type => a.comparison_type.map(|t| t.name().to_string()),
        FftType => a.fft_type.map(|t| t.name().to_string()),
        FftLength => a.fft_length.as_deref().map(int_list),
        ReplicaGroups => a.replica_groups.as_deref().map(int_lists),
        SourceTargetPairs => a.source_target_pairs.as_deref().map(source_target_pairs),
        ChannelId => a.channel_id.map(|n| n.to_string()),
        UseGlobalDeviceIds => flag(a.use_global_device_ids),
        ConstrainLayout => flag(a.constrain_layout),
        CustomCallTarget => a.custom_call_target.as_deref().map(quoted),
        CustomCallHasSideEffect => flag(a.custom_call_has_side_effect),
        ApiVersion => a.custom_call_api_version.clone(),
        OperandLayoutConstraints => a.operand_layout_constraints.as_ref().map(|shapes| {
            let items: Vec<String> = shapes.iter().map(ToString::to_string).collect();
            format!("{{{}}}", items.join(", "))
        }),
        OutputToOperandAliasing => a.output_to_operand_aliasing.as_deref().map(aliasing),
        Literal => a
            .literal
            .as_ref()
            .map(|l| print_literal(l, LiteralFormat::WITH_LAYOUT_ONELINE)),
        K => a.k.map(|n| n.to_string()),
        Largest => a.largest.map(|b| b.to_string()),
        IotaDimension => a.iota_dimension.map(|n| n.to_string()),
        Index => a.tuple_index.map(|n| n.to_string()),
        ExponentBits => a.exponent_bits.map(|n| n.to_string()),
        MantissaBits => a.mantissa_bits.map(|n| n.to_string()),
        Epsilon => a.epsilon.map(format_float),
        FeatureIndex => a.feature_index.map(|n| n.to_string()),
        Distribution => a.rng_distribution.map(|d| d.name().to_string()),
        Algorithm => a.rng_algorithm.map(|r| r.name().to_string()),
        IsStable => flag(a.is_stable),
        LeftSide => tri.and_then(|t| flag(t.left_side)),
        Lower => match op {
            Opcode::Cholesky => a.cholesky_lower.map(|b| b.to_string()),
            _ => tri.and_then(|t| flag(t.lower)),
        },
        UnitDiagonal => tri.and_then(|t| flag(t.unit_diagonal)),
        TransposeA => tri.map(|t| t.transpose_a.name().to_string()),
        InfeedConfig => a.infeed_config.as_deref().map(quoted),
        OutfeedConfig => a.outfeed_config.as_deref().map(quoted),
        OutfeedShape => a.outfeed_shape.as_ref().map(ToString::to_string),
        IsHostTransfer => flag(a.is_host_transfer),
        Kind => a.fusion_kind.clone(),
        ToApply | Calls | Condition | Body | TrueComputation | FalseComputation | Select
        | Scatter | BranchComputations | CalledComputations => {
            unreachable!(
                "computation-valued `{}` is printed by the instruction printer",
                key.name()
            )
        }
    }
}

/// `"…"` with C escapes.
pub(crate) fn quoted(s: &str) -> String {
    format!("\"{}\"", c_escape(s))
}

/// `backend_config=` as XLA prints it: a value that reads as a brace group
/// (`{uplo = 76 : ui8}`, JSON) bare, anything else quoted.
pub(crate) fn backend_config(config: &str) -> String {
    let mut c = Cursor::new(config);
    let is_group = config.starts_with('{') && c.balanced().is_ok() && c.rest().is_empty();
    if is_group {
        config.to_string()
    } else {
        quoted(config)
    }
}
