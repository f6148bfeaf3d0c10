//! Expansion: each function becomes a module of the same name holding
//!
//! - `Dims`, a struct with one `i64` field per dimension name (`Dims { B:
//!   4, N: 8 }`), and `SIGNATURE`, the parameter types for binding;
//! - `build(builder, x, …)`: adds the computation to an `XlaBuilder`,
//!   applied to operands, binding the dimensions from their shapes;
//! - `computation(dims)`: the `XlaComputation` for given sizes;
//! - `call(backend, &x, …)`: runs it, binding the dimensions from the
//!   arguments and compiling once per binding (a process-wide cache).
//!
//! The body is plain builder calls (`b.add(v1, v2, &[])?`): nothing is
//! parsed at run time. A function that failed to check expands to the same
//! items with unreachable bodies, next to the `compile_error!`s, so that
//! code using it reports no follow-on errors.

mod body;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::ast::{DimExpr, DimOp};
use crate::ir::{FunctionIr, ResultIr};

/// The whole expansion: every function's module, then the errors.
pub fn expand(functions: &[FunctionIr], errors: Option<syn::Error>) -> TokenStream {
    let modules = functions.iter().map(function);
    let errors = errors.map(|e| e.to_compile_error());
    quote! {
        #(#modules)*
        #errors
    }
}

/// A hygienic identifier for generated code, which user names cannot
/// clash with.
pub(crate) fn internal(name: &str) -> syn::Ident {
    syn::Ident::new(name, Span::mixed_site())
}

/// A size as an `i64` expression over the bound dimensions `d`.
pub(crate) fn size(expr: &DimExpr) -> TokenStream {
    let d = internal("d");
    match expr {
        DimExpr::Const(v, _) => {
            let v = proc_macro2::Literal::i64_suffixed(*v);
            quote!(#v)
        }
        DimExpr::Symbol(s) => {
            let field = syn::Ident::new(&s.to_string(), Span::mixed_site());
            quote!(#d.#field)
        }
        DimExpr::Binary(op, l, r) => {
            let (l, r) = (size(l), size(r));
            match op {
                DimOp::Add => quote!((#l + #r)),
                DimOp::Sub => quote!((#l - #r)),
                DimOp::Mul => quote!((#l * #r)),
            }
        }
    }
}

/// A size as text, as the user wrote it (`B * N`).
fn size_text(expr: &DimExpr) -> String {
    match expr {
        DimExpr::Const(v, _) => v.to_string(),
        DimExpr::Symbol(s) => s.to_string(),
        DimExpr::Binary(op, l, r) => {
            let symbol = match op {
                DimOp::Add => "+",
                DimOp::Sub => "-",
                DimOp::Mul => "*",
            };
            // Parenthesize a sum under a product, and on the right of `-`.
            let paren = |e: &DimExpr, right: bool| match e {
                DimExpr::Binary(DimOp::Add | DimOp::Sub, ..)
                    if *op == DimOp::Mul || (right && *op == DimOp::Sub) =>
                {
                    format!("({})", size_text(e))
                }
                _ => size_text(e),
            };
            format!("{} {symbol} {}", paren(l, false), paren(r, true))
        }
    }
}

fn param_type_text(p: &crate::ir::ParamIr) -> String {
    type_text(p.element_type.map_or("?", |t| t.name()), &p.dims)
}

/// An array type as text, as the user wrote it (`f32[B, N * 2]`).
fn type_text(element_type: &str, dims: &[DimExpr]) -> String {
    let dims: Vec<String> = dims.iter().map(size_text).collect();
    format!("{element_type}[{}]", dims.join(", "))
}

/// The Rust type of a result: `Literal` or a tuple of them.
fn literal_type(result: &ResultIr) -> TokenStream {
    match result {
        ResultIr::Array { .. } => quote!(::xla::Literal),
        ResultIr::Tuple(elements) => {
            let elements = elements.iter().map(literal_type);
            quote!((#(#elements,)*))
        }
    }
}

/// The declared result's array leaves, in order, as `(sizes, text)`
/// expressions over the bound dimensions.
fn declared_leaves(result: &ResultIr, out: &mut Vec<TokenStream>) {
    match result {
        ResultIr::Array { element_type, dims } => {
            let text = type_text(element_type, dims);
            let sizes = dims.iter().map(size);
            out.push(quote!((&[#(#sizes),*] as &[i64], #text)));
        }
        ResultIr::Tuple(elements) => {
            for e in elements {
                declared_leaves(e, out);
            }
        }
    }
}

/// Code turning the result literal `value` into the Rust result type.
fn untuple(result: &ResultIr, value: TokenStream, depth: usize) -> TokenStream {
    match result {
        ResultIr::Array { .. } => value,
        ResultIr::Tuple(elements) => {
            let parts = format_ident!("parts{}", depth, span = Span::mixed_site());
            let n = elements.len();
            let items = elements.iter().map(|e| {
                let next = quote!(#parts.next().expect("untuple checked the count"));
                untuple(e, next, depth + 1)
            });
            quote! {{
                let mut #parts = ::xla::dsl::rt::untuple(#value, #n)?.into_iter();
                (#(#items,)*)
            }}
        }
    }
}

fn function(f: &FunctionIr) -> TokenStream {
    let name = &f.name;
    let name_text = name.to_string();
    let attrs = &f.attrs;
    let vis = &f.vis;
    let symbol_fields: Vec<syn::Ident> = f
        .symbols
        .iter()
        .map(|s| syn::Ident::new(&s.to_string(), Span::mixed_site()))
        .collect();
    let symbol_names: Vec<String> = f.symbols.iter().map(|s| s.to_string()).collect();
    let param_texts: Vec<String> = f.params.iter().map(param_type_text).collect();
    let signature_doc = format!(
        "`{name_text}({})`",
        f.params
            .iter()
            .zip(&param_texts)
            .map(|(p, t)| format!("{}: {t}", p.name))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let dims_doc = if symbol_names.is_empty() {
        format!("{signature_doc} has no named dimensions.")
    } else {
        let names: Vec<String> = symbol_names.iter().map(|s| format!("`{s}`")).collect();
        format!(
            "The sizes of the dimensions {} of {signature_doc}.",
            names.join(", ")
        )
    };
    let symbol_docs = symbol_names.iter().map(|s| format!("The size `{s}`."));
    let result_type = literal_type(&f.result);
    let items = match &f.body {
        Some(comp) if f.params.iter().all(|p| p.element_type.is_some()) => {
            items(f, comp, &symbol_fields, &param_texts, &result_type)
        }
        _ => stub(f, &result_type),
    };
    quote! {
        #(#attrs)*
        #[allow(non_snake_case, unused_variables, clippy::all)]
        #vis mod #name {
            #[doc = #dims_doc]
            #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
            pub struct Dims {
                #(#[doc = #symbol_docs] pub #symbol_fields: i64,)*
            }

            #items
        }
    }
}

/// The items of a function that checked.
fn items(
    f: &FunctionIr,
    comp: &crate::ir::Comp,
    symbol_fields: &[syn::Ident],
    param_texts: &[String],
    result_type: &TokenStream,
) -> TokenStream {
    let name_text = f.name.to_string();
    let (b, builder, d, values) = (
        internal("b"),
        internal("builder"),
        internal("d"),
        internal("values"),
    );
    let backend = internal("backend");
    // The generated functions take the parameters under internal names: a
    // user's own (`body`, `computation`, `SIGNATURE`, `Ok`) could shadow
    // an item they call or read as a pattern.
    let operands_doc = format!(
        "The operands are, in order: {}.",
        f.params
            .iter()
            .map(|p| format!("`{}`", p.name))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let param_idents: Vec<syn::Ident> = (0..f.params.len())
        .map(|i| internal(&format!("p{i}")))
        .collect();
    let params = &param_idents;
    let executable = internal("executable");
    let signature = signature_const(f, param_texts);
    let body = body::function_body(comp);
    let parameters = f.params.iter().enumerate().map(|(i, p)| {
        let ty = body::element_type(p.element_type.expect("checked"));
        let dims = p.dims.iter().map(size);
        let name = p.name.to_string();
        let index = i as i64;
        quote!(#b.parameter(#index, &::xla::Shape::array(#ty, ::std::vec![#(#dims),*]), #name)?)
    });
    let field_inits = symbol_fields
        .iter()
        .enumerate()
        .map(|(i, field)| quote!(#field: #values[#i]));
    let dims_values = symbol_fields.iter().map(|field| quote!(#d.#field));
    let symbol_names: Vec<String> = symbol_fields.iter().map(|f| f.to_string()).collect();
    let out = internal("out");
    let result = untuple(&f.result, quote!(#out), 0);
    let root = internal("root");
    let mut declared = Vec::new();
    declared_leaves(&f.result, &mut declared);
    let gradient = f
        .grad
        .as_ref()
        .map(|wrt| gradient_items(f, wrt, symbol_fields, &param_idents));
    quote! {
        #signature

        #gradient

        impl Dims {
            /// Binds the dimensions from the parameters' shapes; an `Err`
            /// names the argument and dimension that disagree.
            pub fn of(shapes: &[&::xla::Shape]) -> ::core::result::Result<Self, ::xla::dsl::DslError> {
                let #values = SIGNATURE.bind(shapes)?;
                ::core::result::Result::Ok(Dims { #(#field_inits),* })
            }
        }

        /// Adds this function to `builder`, applied to the operands; the
        /// dimensions are bound from the operands' shapes.
        #[doc = #operands_doc]
        pub fn build(
            #builder: &::xla::XlaBuilder,
            #(#params: ::xla::XlaOp),*
        ) -> ::core::result::Result<::xla::XlaOp, ::xla::dsl::DslError> {
            let #d = self::Dims::of(&[#(&#builder.get_shape(#params)?),*])?;
            self::body(#builder, &#d, #(#params),*)
                .map_err(|e| ::xla::dsl::DslError::in_function(#name_text, e))
        }

        /// The computation for the given dimension sizes.
        pub fn computation(#d: Dims) -> ::core::result::Result<::xla::XlaComputation, ::xla::dsl::DslError> {
            let #b = ::xla::XlaBuilder::new(#name_text);
            let built = (|| {
                #(
                    if #d.#symbol_fields < 0 {
                        return ::core::result::Result::Err(::xla::dsl::DslError::Sizes(::std::format!(
                            "the size {} = {} is negative", #symbol_names, #d.#symbol_fields
                        )));
                    }
                )*
                #(let #param_idents = #parameters;)*
                let root = self::body(&#b, &#d, #(#param_idents),*)?;
                ::core::result::Result::Ok(#b.build(root)?)
            })();
            built.map_err(|e| ::xla::dsl::DslError::in_function(#name_text, e))
        }

        /// Runs this function on `backend`. The dimensions are bound from the
        /// arguments' shapes; the computation is compiled once per binding
        /// and backend, and cached for the process.
        #[doc = #operands_doc]
        pub fn call<Backend: ::xla::dsl::Backend + ?::core::marker::Sized>(
            #backend: &Backend,
            #(#params: &::xla::Literal),*
        ) -> ::core::result::Result<#result_type, ::xla::dsl::DslError> {
            let #d = self::Dims::of(&[#(#params.shape()),*])?;
            let #executable = ::xla::dsl::cached(
                #backend,
                ::core::concat!(::core::module_path!(), "::", #name_text),
                &[#(#dims_values),*],
                || self::computation(#d),
            )?;
            let #out = #executable.execute(&[#(#params),*])?;
            ::core::result::Result::Ok(#result)
        }

        fn body(
            #b: &::xla::XlaBuilder,
            #d: &Dims,
            #(#param_idents: ::xla::XlaOp),*
        ) -> ::core::result::Result<::xla::XlaOp, ::xla::dsl::DslError> {
            let #root = (|| -> ::core::result::Result<::xla::XlaOp, ::xla::dsl::DslError> {
                #body
            })()?;
            ::xla::dsl::rt::check_result(#b, #root, &[#(#declared),*])?;
            ::core::result::Result::Ok(#root)
        }
    }
}

/// The types of `value_and_grad` and `grad` of a `#[grad(…)]` function
/// differentiated with respect to `count` parameters.
fn gradient_types(count: usize) -> (TokenStream, TokenStream) {
    let literals = std::iter::repeat_n(quote!(::xla::Literal), count);
    let grads = quote!((#(#literals,)*));
    (quote!((::xla::Literal, #grads)), grads)
}

/// Docs naming the differentiated parameters of a `#[grad(…)]` function.
fn gradient_doc(f: &FunctionIr, wrt: &[usize]) -> String {
    let names: Vec<String> = wrt
        .iter()
        .map(|&k| format!("`{}`", f.params[k].name))
        .collect();
    format!(
        "The gradients are with respect to {}, in that order, each of its parameter's shape.",
        names.join(", ")
    )
}

/// `value_and_grad_computation`, `value_and_grad` and `grad` of a function
/// declared with `#[grad(…)]`: the gradient module is derived from the
/// function's computation by `xla::autodiff`, compiled once per binding.
fn gradient_items(
    f: &FunctionIr,
    wrt: &[usize],
    symbol_fields: &[syn::Ident],
    params: &[syn::Ident],
) -> TokenStream {
    let name_text = f.name.to_string();
    let (d, backend, executable, out, parts) = (
        internal("d"),
        internal("backend"),
        internal("executable"),
        internal("out"),
        internal("parts"),
    );
    let positions = wrt.iter().copied();
    let count = wrt.len();
    let (both, grads) = gradient_types(count);
    let next = (0..count).map(|_| quote!(#parts.next().expect("untuple checked the count")));
    let dims_values = symbol_fields.iter().map(|field| quote!(#d.#field));
    let doc = gradient_doc(f, wrt);
    let key = format!("{name_text}::value_and_grad");
    quote! {
        /// The computation of `(value, gradients…)` for the given dimension
        /// sizes: reverse-mode differentiation of [`computation`].
        #[doc = #doc]
        pub fn value_and_grad_computation(#d: Dims) -> ::core::result::Result<::xla::XlaComputation, ::xla::dsl::DslError> {
            let forward = self::computation(#d)?;
            let derived = ::xla::autodiff::value_and_grad(forward.module(), ::core::option::Option::Some(&[#(#positions),*]))
                .map_err(|e| ::xla::dsl::DslError::in_function(#name_text, e.into()))?;
            ::core::result::Result::Ok(::xla::XlaComputation::from_module(derived)?)
        }

        /// Runs this function and its gradient on `backend`: the value and
        /// the gradients (`jax.value_and_grad`). Compiled once per binding
        /// and backend, like [`call`].
        #[doc = #doc]
        pub fn value_and_grad<Backend: ::xla::dsl::Backend + ?::core::marker::Sized>(
            #backend: &Backend,
            #(#params: &::xla::Literal),*
        ) -> ::core::result::Result<#both, ::xla::dsl::DslError> {
            let #d = self::Dims::of(&[#(#params.shape()),*])?;
            let #executable = ::xla::dsl::cached(
                #backend,
                ::core::concat!(::core::module_path!(), "::", #key),
                &[#(#dims_values),*],
                || self::value_and_grad_computation(#d),
            )?;
            let #out = #executable.execute(&[#(#params),*])?;
            let mut #parts = ::xla::dsl::rt::untuple(#out, #count + 1)?.into_iter();
            let value = #parts.next().expect("untuple checked the count");
            ::core::result::Result::Ok((value, (#(#next,)*)))
        }

        /// The gradients alone (`jax.grad`).
        #[doc = #doc]
        pub fn grad<Backend: ::xla::dsl::Backend + ?::core::marker::Sized>(
            #backend: &Backend,
            #(#params: &::xla::Literal),*
        ) -> ::core::result::Result<#grads, ::xla::dsl::DslError> {
            self::value_and_grad(#backend, #(#params),*).map(|(_, grads)| grads)
        }
    }
}

/// `SIGNATURE`: the parameter types, for binding dimensions at run time.
fn signature_const(f: &FunctionIr, param_texts: &[String]) -> TokenStream {
    let name_text = f.name.to_string();
    let symbols: Vec<String> = f.symbols.iter().map(|s| s.to_string()).collect();
    let index = |s: &syn::Ident| {
        f.symbols
            .iter()
            .position(|x| x == s)
            .expect("a declared symbol")
    };
    // A name never standing alone is solved from its first linear size.
    let standing: Vec<&syn::Ident> = f
        .params
        .iter()
        .flat_map(|p| &p.dims)
        .filter_map(|d| match d {
            DimExpr::Symbol(s) => Some(s),
            _ => None,
        })
        .collect();
    let mut solved: Vec<syn::Ident> = Vec::new();
    let mut params = Vec::new();
    for (p, text) in f.params.iter().zip(param_texts) {
        let name = p.name.to_string();
        let ty = body::element_type(p.element_type.expect("checked"));
        let mut dims = Vec::new();
        for dim in &p.dims {
            dims.push(match dim {
                DimExpr::Const(v, _) => quote!(::xla::dsl::Size::Const(#v)),
                DimExpr::Symbol(s) => {
                    let index = index(s);
                    quote!(::xla::dsl::Size::Symbol(#index))
                }
                DimExpr::Binary(..) if linear_solves(dim, &standing, &mut solved) => {
                    let (s, scale, offset) = dim.linear().expect("linear");
                    let (symbol, text) = (index(&s), size_text(dim));
                    quote!(::xla::dsl::Size::Linear {
                        symbol: #symbol,
                        scale: #scale,
                        offset: #offset,
                        text: #text,
                    })
                }
                DimExpr::Binary(..) => {
                    let text = size_text(dim);
                    let value = size(dim);
                    let d = internal("d");
                    let fields = f.symbols.iter().enumerate().map(|(i, s)| {
                        let field = syn::Ident::new(&s.to_string(), Span::mixed_site());
                        quote!(#field: values[#i])
                    });
                    quote!(::xla::dsl::Size::Expr(#text, |values| {
                        let #d = Dims { #(#fields),* };
                        #value
                    }))
                }
            });
        }
        params.push(quote! {
            ::xla::dsl::Param {
                name: #name,
                element_type: #ty,
                text: #text,
                dims: &[#(#dims),*],
            }
        });
    }
    quote! {
        /// The parameter types, for binding the dimensions at run time.
        pub const SIGNATURE: ::xla::dsl::Signature = ::xla::dsl::Signature {
            function: #name_text,
            symbols: &[#(#symbols),*],
            params: &[#(#params),*],
        };
    }
}

/// Whether `dim` is where its name is solved: it is linear in a name that
/// never stands alone and is not solved yet.
fn linear_solves(dim: &DimExpr, standing: &[&syn::Ident], solved: &mut Vec<syn::Ident>) -> bool {
    match dim.linear() {
        Some((s, ..)) if !standing.contains(&&s) && !solved.contains(&s) => {
            solved.push(s);
            true
        }
        _ => false,
    }
}

/// The items of a function that failed to check: the same signatures, so
/// code using them compiles; the macro's errors are reported instead.
fn stub(f: &FunctionIr, result_type: &TokenStream) -> TokenStream {
    // Internal names: the parameters' own may be the mistake (repeated).
    let params: Vec<syn::Ident> = (0..f.params.len())
        .map(|i| internal(&format!("p{i}")))
        .collect();
    let builder = internal("builder");
    let backend = internal("backend");
    let gradient = f.grad.as_ref().map(|wrt| {
        let (both, grads) = gradient_types(wrt.len());
        quote! {
            /// Not available: the function has errors.
            pub fn value_and_grad_computation(dims: Dims) -> ::core::result::Result<::xla::XlaComputation, ::xla::dsl::DslError> {
                ::core::unreachable!()
            }

            /// Not available: the function has errors.
            pub fn value_and_grad<Backend: ::xla::dsl::Backend + ?::core::marker::Sized>(
                #backend: &Backend,
                #(#params: &::xla::Literal),*
            ) -> ::core::result::Result<#both, ::xla::dsl::DslError> {
                ::core::unreachable!()
            }

            /// Not available: the function has errors.
            pub fn grad<Backend: ::xla::dsl::Backend + ?::core::marker::Sized>(
                #backend: &Backend,
                #(#params: &::xla::Literal),*
            ) -> ::core::result::Result<#grads, ::xla::dsl::DslError> {
                ::core::unreachable!()
            }
        }
    });
    quote! {
        #gradient

        /// Not available: the function has errors.
        pub fn build(
            #builder: &::xla::XlaBuilder,
            #(#params: ::xla::XlaOp),*
        ) -> ::core::result::Result<::xla::XlaOp, ::xla::dsl::DslError> {
            ::core::unreachable!()
        }

        /// Not available: the function has errors.
        pub fn computation(dims: Dims) -> ::core::result::Result<::xla::XlaComputation, ::xla::dsl::DslError> {
            ::core::unreachable!()
        }

        /// Not available: the function has errors.
        pub fn call<Backend: ::xla::dsl::Backend + ?::core::marker::Sized>(
            #backend: &Backend,
            #(#params: &::xla::Literal),*
        ) -> ::core::result::Result<#result_type, ::xla::dsl::DslError> {
            ::core::unreachable!()
        }
    }
}
