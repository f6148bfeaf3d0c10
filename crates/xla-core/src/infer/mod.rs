//! Shape inference: one pure function per op, generic over the dimension
//! type.
//!
//! The `XlaBuilder` runs these rules on concrete sizes (`i64`), the `xla!`
//! macro runs the very same rules on symbolic sizes
//! ([`SymDim`](crate::shape::sym::SymDim)), and the verifier re-runs them on
//! every instruction of a module through [`infer_instruction`]. Each family
//! of ops (`Opcode::family()`) has its own file.
//!
//! Rules ignore layouts: results carry none (callers add the default), and
//! error messages print shapes without layouts. A check that cannot be
//! decided for symbolic sizes (two different symbols) does not fail; the
//! builder re-checks it with concrete sizes.
//!
//! ```
//! use xla_core::infer;
//! use xla_core::hlo::{DotDimensionNumbers, Opcode};
//! use xla_core::shape::sym::SymDim;
//! use xla_core::{ArrayShape, Dim, PrimitiveType::F32};
//!
//! let a: ArrayShape = "f32[2,3]".parse()?;
//! let b: ArrayShape = "f32[4,5]".parse()?;
//! let err = infer::dot(&a, &b).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "dot: dimension 1 of operand 0 f32[2,3] has size 3, \
//!      but dimension 0 of operand 1 f32[4,5] has size 4"
//! );
//!
//! let (bs, n) = (SymDim::symbol("B"), SymDim::symbol("N"));
//! let x = ArrayShape::new(F32, [bs.clone(), n.clone()]);
//! let y = ArrayShape::new(F32, [n, bs]);
//! let err = infer::binary(Opcode::Add, &x, &y, None).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "add: shapes f32[B, N] and f32[N, B] are not compatible: \
//!      dimension 0 is B in operand 0 but N in operand 1"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod broadcast;
mod check;
mod collective;
mod control;
mod data_movement;
mod dot;
mod dynamic;
mod elementwise;
mod error;
mod indexing;
mod instruction;
mod linalg;
mod normalization;
mod parts;
mod random;
mod reduce;
mod side_effect;
mod window;

pub use broadcast::{broadcast, broadcast_binary, broadcast_in_dim, in_dim_broadcast};
pub use collective::{
    all_gather, all_reduce, all_to_all, all_to_all_instruction, collective_permute, partition_id,
    reduce_scatter, replica_group_size, replica_id,
};
pub use control::{
    call, conditional, custom_call, fusion, get_tuple_element, optimization_barrier, tuple,
    while_loop,
};
pub use data_movement::{
    bitcast, collapse, concatenate, copy, iota, pad, reshape, reverse, slice, transpose, PadAmounts,
};
pub use dot::{convolution, dot, dot_general, with_preferred_element_type};
pub use dynamic::{get_dimension_size, set_dimension_size};
pub use elementwise::{
    binary, bitcast_convert, clamp, compare, convert, default_comparison_type, is_binary, is_unary,
    map, reduce_precision, select, unary,
};
pub use error::InferError;
pub use indexing::{dynamic_slice, dynamic_update_slice, gather, scatter};
pub use instruction::infer_instruction;
pub use linalg::{cholesky, fft, triangular_solve};
pub use normalization::{batch_norm_grad, batch_norm_inference, batch_norm_training};
pub use parts::{Attr, Callee, Count, DimList, Kind, RankRule, TypeClass};
pub use random::{rng, rng_bit_generator};
pub use reduce::{reduce, reduce_window, select_and_scatter, sort, topk};
pub use side_effect::{after_all, infeed, outfeed, recv, recv_done, send, send_done};
pub use window::{make_padding, PaddingKind};

use crate::hlo::ProgramShape;
use crate::{Dim, Shape};

/// The signature of a called computation (`to_apply`, `condition`, a
/// branch …): its parameter shapes and its result shape.
#[derive(Debug)]
pub struct Signature<'a, D: Dim = i64> {
    /// Parameter shapes, by parameter number.
    pub parameters: &'a [Shape<D>],
    /// The result shape.
    pub result: &'a Shape<D>,
}

impl<D: Dim> Clone for Signature<'_, D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<D: Dim> Copy for Signature<'_, D> {}

impl<'a> From<&'a ProgramShape> for Signature<'a, i64> {
    fn from(program: &'a ProgramShape) -> Self {
        Signature {
            parameters: &program.parameters,
            result: &program.result,
        }
    }
}
