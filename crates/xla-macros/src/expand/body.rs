//! Computations as builder calls: one `let` per instruction.
//!
//! The function's computation uses the builder `b`; a sub-computation
//! (closure, loop condition or body, branch) is a block with its own
//! builder `b1`, `b2` … by nesting depth, ending in `build`. Values are
//! named `v{depth}_{index}`, so an inner block can still name the outer
//! values whose shapes its parameters take.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote};
use xla_core::PrimitiveType;

use super::{internal, size, size_text};
use crate::ast::LitValue;
use crate::ir::{Arg, Comp, Instr, ParamShape};

fn builder(depth: usize) -> syn::Ident {
    if depth == 0 {
        internal("b")
    } else {
        format_ident!("b{}", depth, span = Span::mixed_site())
    }
}

fn value(depth: usize, id: usize) -> syn::Ident {
    format_ident!("v{}_{}", depth, id, span = Span::mixed_site())
}

/// `::xla::PrimitiveType::F32`.
pub fn element_type(ty: PrimitiveType) -> TokenStream {
    let variant = format_ident!("{}", format!("{ty:?}"));
    quote!(::xla::PrimitiveType::#variant)
}

/// The statements of the function's body, ending in `Ok(root)`.
pub fn function_body(comp: &Comp) -> TokenStream {
    let stmts = instrs(comp, 0);
    let root = value(0, comp.root);
    quote! {
        #stmts
        ::core::result::Result::Ok(#root)
    }
}

fn instrs(comp: &Comp, depth: usize) -> TokenStream {
    let b = builder(depth);
    let lets = comp.instrs.iter().enumerate().map(|(i, instr)| {
        let v = value(depth, i);
        let e = instr_expr(comp, instr, depth, &b);
        quote!(let #v = #e;)
    });
    quote!(#(#lets)*)
}

/// A sub-computation built with its own builder: a block evaluating to the
/// `XlaComputation`.
fn sub_computation(comp: &Comp, depth: usize) -> TokenStream {
    let inner = depth + 1;
    let b = builder(inner);
    let outer = builder(depth);
    let name = &comp.name;
    let stmts = instrs(comp, inner);
    let root = value(inner, comp.root);
    let shapes = comp.params.iter().map(|p| match p {
        ParamShape::Scalar(ty) => {
            let ty = element_type(*ty);
            quote!(::xla::Shape::scalar(#ty))
        }
        ParamShape::Like(id) => {
            let v = value(depth, *id);
            quote!(#outer.get_shape(#v)?)
        }
        ParamShape::Declared => unreachable!("only the function's parameters are declared"),
    });
    let shape_idents: Vec<syn::Ident> = (0..comp.params.len())
        .map(|i| format_ident!("shape{}", i, span = Span::mixed_site()))
        .collect();
    quote! {{
        #(let #shape_idents = #shapes;)*
        let #b = ::xla::XlaBuilder::new(#name);
        #stmts
        #b.build(#root)?
    }}
}

fn instr_expr(comp: &Comp, instr: &Instr, depth: usize, b: &syn::Ident) -> TokenStream {
    let v = |id: &usize| value(depth, *id);
    // The function's builder is a reference; a sub-computation's is owned.
    let b_ref = if depth == 0 { quote!(#b) } else { quote!(&#b) };
    match instr {
        Instr::Param(n) if depth == 0 => {
            let p = internal(&format!("p{n}"));
            quote!(#p)
        }
        Instr::Param(n) => {
            let shape = format_ident!("shape{}", n, span = Span::mixed_site());
            let index = *n as i64;
            let name = format!("p{n}");
            quote!(#b.parameter(#index, &#shape, #name)?)
        }
        Instr::Constant(ty, lit) => {
            let value = constant(*ty, lit);
            quote!(#b.constant_r0(#value)?)
        }
        Instr::SizeConstant(ty, dim) => {
            let ty = element_type(*ty);
            let n = size(dim);
            let text = size_text(dim);
            quote!(::xla::dsl::rt::size_constant(#b_ref, #ty, #n, #text)?)
        }
        Instr::Builder(method, args) => {
            let method = format_ident!("{}", method);
            let args = args.iter().map(|a| arg(a, depth));
            quote!(#b.#method(#(#args),*)?)
        }
        Instr::Runtime(function, args) => {
            let function = format_ident!("{}", function);
            let args = args.iter().map(|a| arg(a, depth));
            quote!(::xla::dsl::rt::#function(#b_ref, #(#args),*)?)
        }
        Instr::Function(name, args) => {
            let args = args.iter().map(v);
            quote!(super::#name::build(#b_ref, #(#args),*)?)
        }
        Instr::Tuple(ids) => {
            let ids = ids.iter().map(v);
            quote!(#b.tuple(&[#(#ids),*])?)
        }
        Instr::GetTupleElement(id, index) => {
            let id = v(id);
            let index = *index as i64;
            quote!(#b.get_tuple_element(#id, #index)?)
        }
        Instr::While {
            condition,
            body,
            init,
        } => {
            let (c, w) = (
                sub_computation(condition, depth),
                sub_computation(body, depth),
            );
            let init = v(init);
            quote!(#b.while_loop(&#c, &#w, #init)?)
        }
        Instr::Conditional { pred, branches } => {
            let pred = v(pred);
            let [(t_op, t), (f_op, f)] = branches.as_slice() else {
                unreachable!("an `if` has two branches")
            };
            let (t, f) = (sub_computation(t, depth), sub_computation(f, depth));
            let (t_op, f_op) = (v(t_op), v(f_op));
            let _ = comp;
            quote!(#b.conditional(#pred, #t_op, &#t, #f_op, &#f)?)
        }
    }
}

/// A scalar of `ty` as a Rust value.
fn constant(ty: PrimitiveType, lit: &LitValue) -> TokenStream {
    let float = |v: f64| match lit {
        _ if v.is_nan() => quote!(f64::NAN),
        _ if v == f64::INFINITY => quote!(f64::INFINITY),
        _ if v == f64::NEG_INFINITY => quote!(f64::NEG_INFINITY),
        _ => {
            let l = Literal::f64_suffixed(v);
            quote!(#l)
        }
    };
    let as_f64 = match lit {
        LitValue::Int(i) => *i as f64,
        LitValue::Float(f) => *f,
        LitValue::Bool(b) => f64::from(u8::from(*b)),
    };
    let int = match lit {
        LitValue::Int(i) => *i,
        LitValue::Float(_) | LitValue::Bool(_) => 0,
    };
    match ty {
        PrimitiveType::Pred => {
            let b = matches!(lit, LitValue::Bool(true));
            quote!(#b)
        }
        PrimitiveType::S8 => lit_int(Literal::i8_suffixed(int as i8)),
        PrimitiveType::S16 => lit_int(Literal::i16_suffixed(int as i16)),
        PrimitiveType::S32 => lit_int(Literal::i32_suffixed(int as i32)),
        PrimitiveType::S64 => lit_int(Literal::i64_suffixed(int as i64)),
        PrimitiveType::U8 => lit_int(Literal::u8_suffixed(int as u8)),
        PrimitiveType::U16 => lit_int(Literal::u16_suffixed(int as u16)),
        PrimitiveType::U32 => lit_int(Literal::u32_suffixed(int as u32)),
        PrimitiveType::U64 => lit_int(Literal::u64_suffixed(int as u64)),
        PrimitiveType::F16 => {
            let v = float(as_f64);
            quote!(::xla::half::f16::from_f64(#v))
        }
        PrimitiveType::Bf16 => {
            let v = float(as_f64);
            quote!(::xla::half::bf16::from_f64(#v))
        }
        PrimitiveType::F32 => {
            let v = float(as_f64);
            quote!((#v as f32))
        }
        PrimitiveType::F64 => float(as_f64),
        PrimitiveType::C64 => {
            let v = float(as_f64);
            quote!(::xla::C64::new(#v as f32, 0.0f32))
        }
        PrimitiveType::C128 => {
            let v = float(as_f64);
            quote!(::xla::C128::new(#v, 0.0f64))
        }
    }
}

fn lit_int(l: Literal) -> TokenStream {
    quote!(#l)
}

/// A builder argument.
fn arg(a: &Arg, depth: usize) -> TokenStream {
    let v = |id: &usize| value(depth, *id);
    let ints = |values: &[i64]| {
        let values = values.iter().map(|x| Literal::i64_suffixed(*x));
        quote!(::std::vec![#(#values),*])
    };
    match a {
        Arg::Value(id) => {
            let id = v(id);
            quote!(#id)
        }
        Arg::Values(ids) => {
            let ids = ids.iter().map(v);
            quote!(&[#(#ids),*])
        }
        Arg::Sizes(dims) => {
            let dims = dims.iter().map(size);
            quote!(&[#(#dims),*])
        }
        Arg::Size(dim) => size(dim),
        Arg::Ints(values) => {
            let values = values.iter().map(|x| Literal::i64_suffixed(*x));
            quote!(&[#(#values),*])
        }
        Arg::Int(x) => {
            let x = Literal::i64_suffixed(*x);
            quote!(#x)
        }
        Arg::Bool(x) => quote!(#x),
        Arg::Type(ty) => element_type(*ty),
        Arg::ArrayShape(ty, dims) => {
            let ty = element_type(*ty);
            let dims = dims.iter().map(size);
            quote!(&::xla::ArrayShape::new(#ty, ::std::vec![#(#dims),*]))
        }
        Arg::Comp(comp) => {
            let c = sub_computation(comp, depth);
            quote!(&#c)
        }
        Arg::PadConfig(config) => {
            let dims = config.iter().map(|[low, high, interior]| {
                let (low, high, interior) = (size(low), size(high), size(interior));
                quote!(::xla::hlo::PadDim { low: #low, high: #high, interior: #interior })
            });
            quote!(&[#(#dims),*])
        }
        Arg::Pairs(pairs) => {
            let pairs = pairs.iter().map(|(l, h)| {
                let (l, h) = (Literal::i64_suffixed(*l), Literal::i64_suffixed(*h));
                quote!((#l, #h))
            });
            quote!(&[#(#pairs),*])
        }
        Arg::SamePadding(true) => quote!(::xla::infer::PaddingKind::Same),
        Arg::SamePadding(false) => quote!(::xla::infer::PaddingKind::Valid),
        Arg::DotDims(d) => {
            let (lb, rb, lc, rc) = (
                ints(&d.lhs_batch),
                ints(&d.rhs_batch),
                ints(&d.lhs_contracting),
                ints(&d.rhs_contracting),
            );
            quote!(&::xla::hlo::DotDimensionNumbers {
                lhs_batch: #lb,
                rhs_batch: #rb,
                lhs_contracting: #lc,
                rhs_contracting: #rc,
            })
        }
        Arg::ConvDims(d) => {
            let (ib, ifeat, is) = (d.input_batch, d.input_feature, ints(&d.input_spatial));
            let (ki, ko, ks) = (
                d.kernel_input_feature,
                d.kernel_output_feature,
                ints(&d.kernel_spatial),
            );
            let (ob, of, os) = (d.output_batch, d.output_feature, ints(&d.output_spatial));
            quote!(&::xla::hlo::ConvDimensionNumbers {
                input_batch: #ib,
                input_feature: #ifeat,
                input_spatial: #is,
                kernel_input_feature: #ki,
                kernel_output_feature: #ko,
                kernel_spatial: #ks,
                output_batch: #ob,
                output_feature: #of,
                output_spatial: #os,
            })
        }
        Arg::GatherDims(g) => {
            let (o, c, s) = (
                ints(&g.offset_dims),
                ints(&g.collapsed_slice_dims),
                ints(&g.start_index_map),
            );
            let (ob, sb) = (
                ints(&g.operand_batching_dims),
                ints(&g.start_indices_batching_dims),
            );
            let ivd = g.index_vector_dim;
            quote!(&::xla::hlo::GatherDimensionNumbers {
                offset_dims: #o,
                collapsed_slice_dims: #c,
                start_index_map: #s,
                index_vector_dim: #ivd,
                operand_batching_dims: #ob,
                start_indices_batching_dims: #sb,
            })
        }
        Arg::ScatterDims(s) => {
            let (u, i, m) = (
                ints(&s.update_window_dims),
                ints(&s.inserted_window_dims),
                ints(&s.scatter_dims_to_operand_dims),
            );
            let (ib, sb) = (
                ints(&s.input_batching_dims),
                ints(&s.scatter_indices_batching_dims),
            );
            let ivd = s.index_vector_dim;
            quote!(&::xla::hlo::ScatterDimensionNumbers {
                update_window_dims: #u,
                inserted_window_dims: #i,
                scatter_dims_to_operand_dims: #m,
                index_vector_dim: #ivd,
                input_batching_dims: #ib,
                scatter_indices_batching_dims: #sb,
            })
        }
        Arg::OptionalType(Some(ty)) => {
            let ty = element_type(*ty);
            quote!(::core::option::Option::Some(#ty))
        }
        Arg::OptionalType(None) => quote!(::core::option::Option::None),
        Arg::Default => quote!(::core::default::Default::default()),
    }
}
