//! The attribute table: every attribute name HLO text uses, which ops take
//! it, and the order XLA prints them in.
//!
//! [`keys`] is matched exhaustively on [`Opcode`]: adding an op makes the
//! compiler ask which attributes it takes. The parser accepts an op's keys
//! in any order; the printer writes them in the listed order, which is
//! XLA's (`HloInstruction::ExtraAttributesToString`: the op's own
//! attributes, then its called computations).

use crate::hlo::Opcode;

macro_rules! keys {
    ($($variant:ident => $name:literal,)*) => {
        /// An attribute name of HLO text.
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        pub(crate) enum Key {
            $($variant,)*
        }

        impl Key {
            const ALL: &'static [Key] = &[$(Key::$variant),*];

            /// The attribute's text name.
            pub(crate) const fn name(self) -> &'static str {
                match self {
                    $(Key::$variant => $name,)*
                }
            }

            pub(crate) fn from_name(name: &str) -> Option<Key> {
                Self::ALL.iter().copied().find(|k| k.name() == name)
            }
        }
    };
}

keys! {
    Algorithm => "algorithm",
    ApiVersion => "api_version",
    BatchGroupCount => "batch_group_count",
    Body => "body",
    BranchComputations => "branch_computations",
    CalledComputations => "called_computations",
    Calls => "calls",
    ChannelId => "channel_id",
    CollapsedSliceDims => "collapsed_slice_dims",
    Condition => "condition",
    ConstrainLayout => "constrain_layout",
    CustomCallHasSideEffect => "custom_call_has_side_effect",
    CustomCallTarget => "custom_call_target",
    DimLabels => "dim_labels",
    Dimensions => "dimensions",
    Direction => "direction",
    Distribution => "distribution",
    DynamicSliceSizes => "dynamic_slice_sizes",
    Epsilon => "epsilon",
    ExponentBits => "exponent_bits",
    FalseComputation => "false_computation",
    FeatureGroupCount => "feature_group_count",
    FeatureIndex => "feature_index",
    FftLength => "fft_length",
    FftType => "fft_type",
    Index => "index",
    IndexVectorDim => "index_vector_dim",
    IndicesAreSorted => "indices_are_sorted",
    InfeedConfig => "infeed_config",
    InputBatchingDims => "input_batching_dims",
    InsertedWindowDims => "inserted_window_dims",
    IotaDimension => "iota_dimension",
    IsHostTransfer => "is_host_transfer",
    IsStable => "is_stable",
    K => "k",
    Kind => "kind",
    Largest => "largest",
    LeftSide => "left_side",
    LhsBatchDims => "lhs_batch_dims",
    LhsContractingDims => "lhs_contracting_dims",
    Literal => "literal",
    Lower => "lower",
    MantissaBits => "mantissa_bits",
    OffsetDims => "offset_dims",
    OperandBatchingDims => "operand_batching_dims",
    OperandLayoutConstraints => "operand_layout_constraints",
    OutfeedConfig => "outfeed_config",
    OutfeedShape => "outfeed_shape",
    OutputToOperandAliasing => "output_to_operand_aliasing",
    Padding => "padding",
    ReplicaGroups => "replica_groups",
    RhsBatchDims => "rhs_batch_dims",
    RhsContractingDims => "rhs_contracting_dims",
    Scatter => "scatter",
    ScatterDimsToOperandDims => "scatter_dims_to_operand_dims",
    ScatterIndicesBatchingDims => "scatter_indices_batching_dims",
    Select => "select",
    Slice => "slice",
    SliceSizes => "slice_sizes",
    SourceTargetPairs => "source_target_pairs",
    StartIndexMap => "start_index_map",
    StartIndicesBatchingDims => "start_indices_batching_dims",
    ToApply => "to_apply",
    TransposeA => "transpose_a",
    TrueComputation => "true_computation",
    Type => "type",
    UniqueIndices => "unique_indices",
    UnitDiagonal => "unit_diagonal",
    UpdateWindowDims => "update_window_dims",
    UseGlobalDeviceIds => "use_global_device_ids",
    Window => "window",
}

impl Key {
    /// Where a computation-valued key puts its computations in
    /// `HloInstruction::called`; `None` for keys with other values.
    pub(crate) fn called_slot(self) -> Option<CalledSlot> {
        use Key::*;
        Some(match self {
            ToApply | Calls | Condition | TrueComputation | Select => CalledSlot::At(0),
            Body | FalseComputation | Scatter => CalledSlot::At(1),
            BranchComputations | CalledComputations => CalledSlot::All,
            _ => return None,
        })
    }
}

/// A computation-valued key's place in `HloInstruction::called`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum CalledSlot {
    /// One computation at this position.
    At(usize),
    /// The whole list.
    All,
}

/// The keys `op` takes, in XLA's printing order. `backend_config` is valid
/// on every op and printed last.
pub(crate) fn keys(op: Opcode) -> &'static [Key] {
    use Key::*;
    use Opcode as O;
    match op {
        O::Broadcast
        | O::Concatenate
        | O::Reverse
        | O::Transpose
        | O::GetDimensionSize
        | O::SetDimensionSize => &[Dimensions],
        O::Compare => &[Direction, Type],
        O::Map => &[Dimensions, ToApply],
        O::ReducePrecision => &[ExponentBits, MantissaBits],
        O::Slice => &[Slice],
        O::DynamicSlice => &[DynamicSliceSizes],
        O::Pad => &[Padding],
        O::Iota => &[IotaDimension],
        O::GetTupleElement => &[Index],
        O::Gather => &[
            OffsetDims,
            CollapsedSliceDims,
            StartIndexMap,
            OperandBatchingDims,
            StartIndicesBatchingDims,
            IndexVectorDim,
            SliceSizes,
            IndicesAreSorted,
        ],
        O::Scatter => &[
            UpdateWindowDims,
            InsertedWindowDims,
            ScatterDimsToOperandDims,
            InputBatchingDims,
            ScatterIndicesBatchingDims,
            IndexVectorDim,
            IndicesAreSorted,
            UniqueIndices,
            ToApply,
        ],
        O::Reduce => &[Dimensions, ToApply],
        O::ReduceWindow => &[Window, ToApply],
        O::SelectAndScatter => &[Window, Select, Scatter],
        O::Sort => &[Dimensions, IsStable, ToApply],
        O::TopK => &[K, Largest],
        O::Dot => &[
            LhsBatchDims,
            LhsContractingDims,
            RhsBatchDims,
            RhsContractingDims,
        ],
        O::Convolution => &[Window, DimLabels, FeatureGroupCount, BatchGroupCount],
        O::Call => &[ToApply],
        O::While => &[Condition, Body],
        O::Conditional => &[TrueComputation, FalseComputation, BranchComputations],
        O::CustomCall => &[
            Window,
            DimLabels,
            FeatureGroupCount,
            BatchGroupCount,
            CustomCallTarget,
            OperandLayoutConstraints,
            CustomCallHasSideEffect,
            OutputToOperandAliasing,
            Literal,
            ApiVersion,
            CalledComputations,
        ],
        O::Fusion => &[Kind, OutputToOperandAliasing, Calls],
        O::AllReduce => &[
            ChannelId,
            ReplicaGroups,
            ConstrainLayout,
            UseGlobalDeviceIds,
            ToApply,
        ],
        O::AllGather => &[
            ChannelId,
            ReplicaGroups,
            ConstrainLayout,
            Dimensions,
            UseGlobalDeviceIds,
        ],
        O::ReduceScatter => &[
            ChannelId,
            ReplicaGroups,
            ConstrainLayout,
            UseGlobalDeviceIds,
            Dimensions,
            ToApply,
        ],
        O::AllToAll => &[ChannelId, ReplicaGroups, ConstrainLayout, Dimensions],
        O::CollectivePermute => &[ChannelId, SourceTargetPairs],
        O::Fft => &[FftType, FftLength],
        O::Cholesky => &[Lower],
        O::TriangularSolve => &[LeftSide, Lower, UnitDiagonal, TransposeA],
        O::BatchNormGrad | O::BatchNormInference | O::BatchNormTraining => &[Epsilon, FeatureIndex],
        O::Rng => &[Distribution],
        O::RngBitGenerator => &[Algorithm],
        O::Infeed => &[InfeedConfig],
        O::Outfeed => &[OutfeedShape, OutfeedConfig],
        O::Send | O::SendDone | O::Recv | O::RecvDone => &[ChannelId, IsHostTransfer],
        // Every other op takes only `backend_config`.
        _ => &[],
    }
}

/// Computation-valued keys an op must have (so that `called` is complete).
/// For a conditional, either `branch_computations` or both
/// `true_computation` and `false_computation`.
pub(crate) fn required_computations(op: Opcode) -> &'static [Key] {
    use Key::*;
    match keys(op) {
        [.., ToApply] => &[ToApply],
        [.., Calls] => &[Calls],
        [Condition, Body] => &[Condition, Body],
        [Window, Select, Scatter] => &[Select, Scatter],
        _ => &[],
    }
}

/// Attributes XLA prints that carry nothing this crate uses: they are
/// accepted and dropped (`metadata={…}`, `sharding={…}`, precision
/// hints, scheduling hints, …).
pub(crate) fn is_dropped(op: Opcode, name: &str) -> bool {
    match name {
        "metadata"
        | "sharding"
        | "frontend_attributes"
        | "result_accuracy"
        | "statistics_viz"
        | "origin"
        | "control-predecessors" => true,
        "operand_precision" | "precision_config" | "algorithm" => {
            matches!(op, Opcode::Dot | Opcode::Convolution | Opcode::CustomCall)
        }
        "parameter_replication" => op == Opcode::Parameter,
        // `lax.composite`: the call of its decomposition (`to_apply`), marked
        // so that a backend may substitute its own kernel.
        "is_composite" => op == Opcode::Call,
        "schedule" => op == Opcode::CustomCall,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_per_op_and_names_resolve() {
        for &op in Opcode::ALL {
            let ks = keys(op);
            for (i, k) in ks.iter().enumerate() {
                assert!(!ks[..i].contains(k), "{op}: {k:?} twice");
                assert_eq!(Key::from_name(k.name()), Some(*k));
            }
            for r in required_computations(op) {
                assert!(ks.contains(r), "{op}");
            }
        }
        assert_eq!(
            required_computations(Opcode::While),
            &[Key::Condition, Key::Body]
        );
        assert_eq!(required_computations(Opcode::Scatter), &[Key::ToApply]);
        assert_eq!(required_computations(Opcode::CustomCall), &[] as &[Key]);
        assert!(is_dropped(Opcode::Dot, "algorithm"));
        assert!(!is_dropped(Opcode::Add, "algorithm"));
    }
}
