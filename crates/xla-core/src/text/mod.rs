//! Text syntax: a cursor shared by every parser, and the parse errors it
//! reports (`line:col`, what was expected, the source line and a caret).
//!
//! Printing is each type's `Display`; this module only parses.

mod cursor;
mod shape;

pub use cursor::{Cursor, ParseError};
pub use shape::{parse_layout, parse_shape};
