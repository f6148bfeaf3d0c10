//! The `xla!` macro: tensor programs in Rust syntax, with shape errors at
//! compile time. Users reach it as `xla::xla!`; the language is documented
//! there (`src/dsl.rs` of the `xla` crate re-exports this documentation).
//!
//! The macro runs in three phases, one file each: [`parse`] (syn, into
//! [`ast`]), [`check`] (xla-core's shape inference on symbolic sizes,
//! producing [`ir`]) and [`expand`] (quote, into builder calls).

mod ast;
mod check;
mod expand;
mod ir;
mod parse;
mod suggest;
mod types;

use proc_macro::TokenStream;

/// Tensor programs in Rust syntax, checked at compile time. See the `xla`
/// crate's documentation of `xla!` for the language.
#[proc_macro]
pub fn xla(input: TokenStream) -> TokenStream {
    let program = syn::parse_macro_input!(input as ast::Program);
    let (functions, errors) = check::check(&program);
    expand::expand(&functions, errors).into()
}
