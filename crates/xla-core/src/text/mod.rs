//! Text syntax: a cursor shared by every parser, the parse errors it reports
//! (`line:col`, what was expected, the source line and a caret), and XLA's
//! text forms of shapes, literals and HLO modules.
//!
//! Shapes and layouts print through their `Display`; literals through
//! [`print_literal`]; HLO modules through `Display for HloModule`.

mod cursor;
mod float;
mod hlo;
mod literal;
mod shape;
mod tokens;

pub use cursor::{Cursor, ParseError};
pub use hlo::{computation_post_order, parse_hlo_module, ComputationDisplay, InstructionDisplay};
pub use literal::{
    parse_literal, parse_literal_payload, print_literal, write_literal, LiteralFormat,
};
pub use shape::{parse_layout, parse_shape};
