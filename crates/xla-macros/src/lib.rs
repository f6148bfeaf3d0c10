//! The `xla!` macro: tensor programs in Rust syntax, with shape errors at
//! compile time. Users reach it as `xla::xla!`, whose documentation is the
//! language's reference (`src/language.md`).
//!
//! The macro runs in three phases, one file each: `parse` (syn, into the
//! syntax tree of `ast`), `check` (xla-core's shape inference on symbolic
//! sizes, producing the IR of `ir`) and `expand` (quote, into builder
//! calls).

mod ast;
mod check;
mod expand;
mod ir;
mod parse;
mod suggest;
mod types;

use proc_macro::TokenStream;

#[doc = include_str!("language.md")]
#[proc_macro]
pub fn xla(input: TokenStream) -> TokenStream {
    let program = syn::parse_macro_input!(input as ast::Program);
    let (functions, errors) = check::check(&program);
    expand::expand(&functions, errors).into()
}
