//! The core of a pure-Rust XLA: element types, shapes and layouts, literals,
//! the HLO IR, shape inference, HLO text, passes and the reference
//! interpreter.
//!
//! ```
//! use xla_core::{Shape, layout::IndexMap};
//!
//! let shape: Shape = "f32[3,5]{1,0:T(2,2)}".parse()?;
//! let array = shape.as_array().unwrap();
//! let map = IndexMap::new(array.dims(), &array.layout_or_default())?;
//! assert_eq!(map.linear(&[2, 3]), 17);
//! assert_eq!(map.buffer_len(), 24);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub mod arith;
pub mod autodiff;
pub mod builder;
mod cancel;
mod element_type;
mod error;
pub mod hlo;
pub mod infer;
pub mod interp;
pub mod io;
pub mod layout;
pub mod literal;
mod loader;
pub mod mlir;
pub mod passes;
pub mod shape;
pub mod spmd;
pub mod text;
pub mod verify;

pub use builder::{XlaBuilder, XlaComputation, XlaOp};
pub use cancel::{CancelToken, Stopped};
pub use element_type::{
    NativeType, PrimitiveType, TypeClass, TypeKind, UnknownElementType, C128, C64,
};
pub use error::{Error, Result};
pub use hlo::{HloComputation, HloInstruction, HloModule, Opcode};
pub use layout::Layout;
pub use literal::Literal;
pub use loader::{load_module, load_module_for_arguments, LoadError, ModuleFormat};
pub use shape::{ArrayShape, Dim, Shape};

#[doc(hidden)]
pub use half;
