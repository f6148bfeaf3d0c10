//! Instruction attributes: the compile-time arguments of ops.
//!
//! One struct holds every attribute kind, each optional; an op's shape rule
//! says which it requires. Field names follow XLA's text attribute names.

use crate::{Literal, Opcode, Shape};

/// One dimension of a `slice`: `[start:limit:stride]`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SliceDim {
    /// First index taken.
    pub start: i64,
    /// One past the last index that may be taken.
    pub limit: i64,
    /// Step (≥ 1).
    pub stride: i64,
}

/// One dimension of a `pad` config: `low_high_interior` in text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct PadDim {
    /// Elements added before index 0 (negative crops).
    pub low: i64,
    /// Elements added after the last index (negative crops).
    pub high: i64,
    /// Elements inserted between neighbours (≥ 0).
    pub interior: i64,
}

/// One dimension of a window (convolution, reduce-window, select-and-scatter).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct WindowDim {
    /// Window size.
    pub size: i64,
    /// Stride between window positions.
    pub stride: i64,
    /// Padding before the base.
    pub padding_low: i64,
    /// Padding after the base.
    pub padding_high: i64,
    /// Window (kernel) dilation, `rhs_dilate` in text.
    pub window_dilation: i64,
    /// Base (input) dilation, `lhs_dilate` in text.
    pub base_dilation: i64,
    /// Whether the window is reversed (`rhs_reversal` in text).
    pub window_reversal: bool,
}

impl Default for WindowDim {
    fn default() -> Self {
        WindowDim {
            size: 1,
            stride: 1,
            padding_low: 0,
            padding_high: 0,
            window_dilation: 1,
            base_dilation: 1,
            window_reversal: false,
        }
    }
}

/// A window: one entry per windowed dimension.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Window {
    /// Per-dimension window parameters.
    pub dims: Vec<WindowDim>,
}

/// A reduce-window that is a cumulative reduction (see
/// [`Window::scan_dim`]): along which dimension, and in which direction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Scan {
    /// The scanned dimension.
    pub dim: usize,
    /// `false`: output `i` folds elements `0..=i` (`jnp.cumsum`); `true`:
    /// elements `i..n` (`jnp.cumsum(reverse=True)`, cumsum's gradient).
    pub reverse: bool,
}

/// Reverse scans at least this long may run as running folds from the
/// last element, in the interpreter and in the JIT alike; shorter ones keep
/// the window's fold order. Folding from the end reassociates a float sum
/// or product, which the window semantics allow (`docs/semantics.md`, *Reduce-window*: the
/// evaluation order is arbitrary), so both backends choose the same order
/// for the same window.
pub const REVERSE_SCAN_MIN: i64 = 64;

impl Window {
    /// How a reduce-window with this window over an operand of dimensions
    /// `dims` is a cumulative reduction, as JAX lowers `cumsum`, `cumprod`,
    /// `cummax` and `cummin`: the window spans the whole dimension `d` (`n
    /// > 1` elements) with `n − 1` elements of padding on one side (low:
    /// forward, high: reverse), and every other dimension is a window of
    /// one element; no strides, dilations or reversal. Forward output `i`
    /// then folds `n − 1 − i` padding taps, then elements `0..=i`; reverse
    /// output `i` folds elements `i..n`, then `i` padding taps.
    pub fn scan_dim(&self, dims: &[i64]) -> Option<Scan> {
        if self.dims.len() != dims.len() {
            return None;
        }
        let plain = |w: &WindowDim| {
            w.stride == 1 && w.window_dilation == 1 && w.base_dilation == 1 && !w.window_reversal
        };
        let mut scan = None;
        for (d, (w, &n)) in self.dims.iter().zip(dims).enumerate() {
            if !plain(w) {
                return None;
            }
            if w.size == 1 && w.padding_low == 0 && w.padding_high == 0 {
                continue;
            }
            let reverse = match (w.padding_low, w.padding_high) {
                (lo, 0) if lo == n - 1 => false,
                (0, hi) if hi == n - 1 => true,
                _ => return None,
            };
            if scan.is_some() || n < 2 || w.size != n {
                return None;
            }
            scan = Some(Scan { dim: d, reverse });
        }
        scan
    }
}

/// Whether the reduction `op` (the single op of a reduce-window's
/// computation) leaves `init` unchanged when combining it with itself,
/// judged by the value alone: `0` for `add`, `1` for `multiply`, any
/// non-NaN value for `maximum`/`minimum`, anything for `and`/`or`; `false`
/// for other ops. Both backends fold a reverse scan from its last element
/// only then (see [`REVERSE_SCAN_MIN`]).
pub fn scan_init_is_neutral(op: Opcode, init: f64) -> bool {
    match op {
        Opcode::Add => init == 0.0,
        Opcode::Multiply => init == 1.0,
        Opcode::Maximum | Opcode::Minimum => !init.is_nan(),
        Opcode::And | Opcode::Or => true,
        _ => false,
    }
}

/// Which dimensions of a convolution's input, kernel and output are batch,
/// feature and spatial (`dim_labels=b01f_01io->b01f` in text).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ConvDimensionNumbers {
    /// Input batch dimension.
    pub input_batch: i64,
    /// Input feature dimension.
    pub input_feature: i64,
    /// Input spatial dimensions, in spatial order.
    pub input_spatial: Vec<i64>,
    /// Kernel input-feature dimension.
    pub kernel_input_feature: i64,
    /// Kernel output-feature dimension.
    pub kernel_output_feature: i64,
    /// Kernel spatial dimensions, in spatial order.
    pub kernel_spatial: Vec<i64>,
    /// Output batch dimension.
    pub output_batch: i64,
    /// Output feature dimension.
    pub output_feature: i64,
    /// Output spatial dimensions, in spatial order.
    pub output_spatial: Vec<i64>,
}

/// Dot dimension numbers.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct DotDimensionNumbers {
    /// Batch dimensions of the lhs.
    pub lhs_batch: Vec<i64>,
    /// Batch dimensions of the rhs (paired with `lhs_batch`).
    pub rhs_batch: Vec<i64>,
    /// Contracting dimensions of the lhs.
    pub lhs_contracting: Vec<i64>,
    /// Contracting dimensions of the rhs (paired with `lhs_contracting`).
    pub rhs_contracting: Vec<i64>,
}

/// Gather dimension numbers (`docs/semantics.md`, *Gather*), plus XLA's batching dims.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct GatherDimensionNumbers {
    /// Output dimensions that index into a slice.
    pub offset_dims: Vec<i64>,
    /// Slice dimensions of size 1 dropped from the output.
    pub collapsed_slice_dims: Vec<i64>,
    /// Operand dimension addressed by each index-vector component.
    pub start_index_map: Vec<i64>,
    /// Dimension of the start indices holding the index vectors.
    pub index_vector_dim: i64,
    /// Operand dimensions that are batch dimensions.
    pub operand_batching_dims: Vec<i64>,
    /// Start-indices dimensions paired with `operand_batching_dims`.
    pub start_indices_batching_dims: Vec<i64>,
}

/// Scatter dimension numbers (`docs/semantics.md`, *Scatter*), plus XLA's batching dims.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ScatterDimensionNumbers {
    /// Dimensions of the updates that are window dimensions.
    pub update_window_dims: Vec<i64>,
    /// Window dimensions of size 1 inserted to reach the operand's rank.
    pub inserted_window_dims: Vec<i64>,
    /// Operand dimension addressed by each index-vector component.
    pub scatter_dims_to_operand_dims: Vec<i64>,
    /// Dimension of the scatter indices holding the index vectors.
    pub index_vector_dim: i64,
    /// Operand dimensions that are batch dimensions.
    pub input_batching_dims: Vec<i64>,
    /// Scatter-indices dimensions paired with `input_batching_dims`.
    pub scatter_indices_batching_dims: Vec<i64>,
}

macro_rules! text_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
        }

        impl $name {
            /// Every value.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The HLO text spelling.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// Parses the HLO text spelling.
            pub fn from_name(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.name() == text)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

text_enum! {
    /// The relation a `compare` tests.
    ComparisonDirection {
        /// `==`
        Eq => "EQ",
        /// `!=`
        Ne => "NE",
        /// `>=`
        Ge => "GE",
        /// `>`
        Gt => "GT",
        /// `<=`
        Le => "LE",
        /// `<`
        Lt => "LT",
    }
}

text_enum! {
    /// How a `compare` orders its operands.
    ComparisonType {
        /// IEEE 754 comparison (NaN unordered).
        Float => "FLOAT",
        /// Total order of floats: `-NaN < -Inf < … < -0 < +0 < … < +Inf < +NaN`.
        TotalOrder => "TOTALORDER",
        /// Signed integer comparison.
        Signed => "SIGNED",
        /// Unsigned integer (and pred) comparison.
        Unsigned => "UNSIGNED",
    }
}

text_enum! {
    /// The transform an `fft` computes.
    FftType {
        /// Complex → complex, forward.
        Fft => "FFT",
        /// Complex → complex, inverse (normalised by 1/N).
        Ifft => "IFFT",
        /// Real → complex, forward.
        Rfft => "RFFT",
        /// Complex → real, inverse.
        Irfft => "IRFFT",
    }
}

text_enum! {
    /// The distribution of an `rng` op.
    RngDistribution {
        /// Uniform on `[a, b)`.
        Uniform => "rng_uniform",
        /// Normal with mean `mu` and standard deviation `sigma`.
        Normal => "rng_normal",
    }
}

text_enum! {
    /// The algorithm of an `rng-bit-generator`.
    RngAlgorithm {
        /// Implementation's choice (here: Philox).
        Default => "rng_default",
        /// ThreeFry, state `u64[2]`.
        ThreeFry => "rng_three_fry",
        /// Philox, state `u64[3]` (or `u64[2]`).
        Philox => "rng_philox",
    }
}

text_enum! {
    /// What `triangular-solve` does to `a` before solving.
    TransposeKind {
        /// `op(a) = a`.
        NoTranspose => "NO_TRANSPOSE",
        /// `op(a) = aᵀ`.
        Transpose => "TRANSPOSE",
        /// `op(a) = conj(aᵀ)`.
        Adjoint => "ADJOINT",
    }
}

/// Options of `triangular-solve`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TriangularSolveOptions {
    /// Solve `op(a)·x = b` (true) or `x·op(a) = b` (false).
    pub left_side: bool,
    /// Read the lower (true) or upper triangle of `a`.
    pub lower: bool,
    /// Assume a unit diagonal (never read it).
    pub unit_diagonal: bool,
    /// How `a` is transposed.
    pub transpose_a: TransposeKind,
}

/// One entry of `output_to_operand_aliasing={{0}: (1, {})}`: a part of the
/// result that shares its buffer with a part of an operand.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct OutputOperandAlias {
    /// Tuple index into the result (`{}` for the whole result).
    pub output_index: Vec<i64>,
    /// The operand number.
    pub operand: i64,
    /// Tuple index into that operand.
    pub operand_index: Vec<i64>,
}

/// One entry of a module's `input_output_alias={ {0}: (1, {}, may-alias) }`:
/// a part of the entry's result that may (or must) take the buffer of a
/// part of a parameter, which the caller gives up (JAX's donated
/// arguments: a training step that updates its parameters in place).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct InputOutputAlias {
    /// Tuple index into the result (`{}` for the whole result).
    pub output_index: Vec<i64>,
    /// The parameter number.
    pub parameter: i64,
    /// Tuple index into that parameter.
    pub parameter_index: Vec<i64>,
    /// `must-alias` (true) or `may-alias`.
    pub must_alias: bool,
}

/// Every attribute an instruction may carry. Each op uses a few of them.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Attrs {
    /// `dimensions={…}`: broadcast, reduce, transpose, reverse,
    /// concatenate, map, sort, all-gather, all-to-all, reduce-scatter.
    pub dimensions: Option<Vec<i64>>,
    /// `slice={[0:4:2], …}`.
    pub slice: Option<Vec<SliceDim>>,
    /// `dynamic_slice_sizes={…}`.
    pub dynamic_slice_sizes: Option<Vec<i64>>,
    /// `padding=1_2_0x0_1_1` on `pad`.
    pub padding: Option<Vec<PadDim>>,
    /// `window={size=… stride=… pad=… lhs_dilate=… rhs_dilate=…}`.
    pub window: Option<Window>,
    /// `dim_labels=b01f_01io->b01f`.
    pub conv_dims: Option<ConvDimensionNumbers>,
    /// `feature_group_count=…` (default 1).
    pub feature_group_count: Option<i64>,
    /// `batch_group_count=…` (default 1).
    pub batch_group_count: Option<i64>,
    /// `lhs_batch_dims=… lhs_contracting_dims=…` and the rhs ones.
    pub dot_dims: Option<DotDimensionNumbers>,
    /// `offset_dims=… collapsed_slice_dims=… start_index_map=… index_vector_dim=…`.
    pub gather_dims: Option<GatherDimensionNumbers>,
    /// `slice_sizes={…}` of a gather.
    pub gather_slice_sizes: Option<Vec<i64>>,
    /// `update_window_dims=… inserted_window_dims=… scatter_dims_to_operand_dims=…`.
    pub scatter_dims: Option<ScatterDimensionNumbers>,
    /// `indices_are_sorted=true`.
    pub indices_are_sorted: bool,
    /// `unique_indices=true`.
    pub unique_indices: bool,
    /// `direction=LT`.
    pub comparison_direction: Option<ComparisonDirection>,
    /// `type=TOTALORDER`.
    pub comparison_type: Option<ComparisonType>,
    /// `fft_type=RFFT`.
    pub fft_type: Option<FftType>,
    /// `fft_length={…}`.
    pub fft_length: Option<Vec<i64>>,
    /// `replica_groups={{0,2},{1,3}}`.
    pub replica_groups: Option<Vec<Vec<i64>>>,
    /// `source_target_pairs={{0,1},{1,2}}`.
    pub source_target_pairs: Option<Vec<(i64, i64)>>,
    /// `channel_id=…`.
    pub channel_id: Option<i64>,
    /// `use_global_device_ids=true`.
    pub use_global_device_ids: bool,
    /// `constrain_layout=true`.
    pub constrain_layout: bool,
    /// `custom_call_target="…"`.
    pub custom_call_target: Option<String>,
    /// `custom_call_has_side_effect=true`.
    pub custom_call_has_side_effect: bool,
    /// `api_version=API_VERSION_…` of a custom call.
    pub custom_call_api_version: Option<String>,
    /// `operand_layout_constraints={…}` of a custom call: the shapes, with
    /// layouts, in which the target reads its operands.
    pub operand_layout_constraints: Option<Vec<Shape>>,
    /// `output_to_operand_aliasing={…}` of a custom call or fusion.
    pub output_to_operand_aliasing: Option<Vec<OutputOperandAlias>>,
    /// `backend_config=…`, kept verbatim (custom calls may read it).
    pub backend_config: Option<String>,
    /// `k=…` of top-k.
    pub k: Option<i64>,
    /// `largest=…` of top-k.
    pub largest: Option<bool>,
    /// `iota_dimension=…`.
    pub iota_dimension: Option<i64>,
    /// `index=…` of get-tuple-element.
    pub tuple_index: Option<i64>,
    /// The number in `parameter(N)`.
    pub parameter_number: Option<i64>,
    /// The value in `constant(…)`.
    pub literal: Option<Literal>,
    /// `exponent_bits=…` of reduce-precision.
    pub exponent_bits: Option<i64>,
    /// `mantissa_bits=…` of reduce-precision.
    pub mantissa_bits: Option<i64>,
    /// `epsilon=…` of batch norm.
    pub epsilon: Option<f32>,
    /// `feature_index=…` of batch norm.
    pub feature_index: Option<i64>,
    /// `distribution=rng_uniform`.
    pub rng_distribution: Option<RngDistribution>,
    /// `algorithm=rng_three_fry`.
    pub rng_algorithm: Option<RngAlgorithm>,
    /// `is_stable=true` of sort.
    pub is_stable: bool,
    /// `left_side=… lower=… unit_diagonal=… transpose_a=…`.
    pub triangular_solve: Option<TriangularSolveOptions>,
    /// `lower=…` of cholesky.
    pub cholesky_lower: Option<bool>,
    /// `infeed_config="…"`.
    pub infeed_config: Option<String>,
    /// `outfeed_config="…"`.
    pub outfeed_config: Option<String>,
    /// `outfeed_shape=…`.
    pub outfeed_shape: Option<Shape>,
    /// `is_host_transfer=true` of send/recv.
    pub is_host_transfer: bool,
    /// `kind=kLoop` of a fusion.
    pub fusion_kind: Option<String>,
}
