//! The pretty (custom) forms of the ops JAX prints: operands, keyword
//! attributes (`dims = [1]`, `contracting_dims = [1] x [0]`,
//! `window = {stride = …}`), comparison keywords, slices, and the region
//! forms of `while` and `reduce`; each keyword stored under VHLO's
//! attribute name.

use super::{bare, scalar_of, Parser};
use crate::mlir::ir::{Attr, ElementType, Operation, Region, Type, Value};
use crate::text::ParseError;
use crate::PrimitiveType;

/// A keyword attribute's value as written.
enum Keyword {
    Ints(Vec<i64>),
    Words(Vec<String>),
    Pairs(Vec<Vec<i64>>),
    Bools(Vec<bool>),
    IntsPair(Vec<i64>, Vec<i64>),
    Int(i64),
    Word(String),
    Attr(Attr),
}

/// An untyped integer attribute (`i64`, as MLIR reads `3`).
pub(crate) fn int(v: i64) -> Attr {
    Attr::Int(v, ElementType::Known(PrimitiveType::S64))
}

impl<'a> Parser<'a> {
    /// An op in its pretty form, `count` results bound by the caller.
    pub(crate) fn custom_op(&mut self, name: &str, count: usize) -> Result<Operation, ParseError> {
        let name = match name {
            "return" => "func.return",
            "call" => "func.call",
            other => other,
        };
        match name {
            "stablehlo.constant" => return self.constant(),
            "stablehlo.while" => return self.while_op(),
            "stablehlo.reduce" => return self.reduce(),
            "sdy.manual_computation" => return self.manual_computation(),
            "sdy.sharding_constraint" | "sdy.reshard" => return self.sharding_hint(name),
            _ => {}
        }
        let mut op = bare(name);
        let mut words = Vec::new();
        self.items(&mut op, &mut words, None)?;
        match (name, words.as_slice()) {
            ("stablehlo.compare", [direction, rest @ ..]) if rest.len() <= 1 => {
                op.attrs.push((
                    "comparison_direction".into(),
                    enum_attr("comparison_direction", direction),
                ));
                if let Some(t) = rest.first() {
                    op.attrs
                        .push(("compare_type".into(), enum_attr("comparison_type", t)));
                }
            }
            (_, []) => {}
            (_, [word, ..]) => {
                return Err(self.c.message_at(
                    self.c.pos(),
                    format!("unexpected keyword `{word}` in `{name}`"),
                ))
            }
        }
        if self.c.looking_at("{") {
            op.attrs.extend(self.attr_dict()?);
        }
        if name == "func.return" && !self.c.looking_at(":") {
            return Ok(op);
        }
        self.c.expect(":")?;
        let results = self.signature(count)?;
        op.results = self.new_results(results);
        Ok(op)
    }

    /// Operands, keywords and bracketed specs up to the attribute
    /// dictionary or the signature, inside parentheses when `close` is set.
    fn items(
        &mut self,
        op: &mut Operation,
        words: &mut Vec<String>,
        close: Option<&str>,
    ) -> Result<(), ParseError> {
        let mut operand_ok = true;
        loop {
            self.c.skip_ws();
            if let Some(close) = close {
                if self.c.eat(close) {
                    return Ok(());
                }
            }
            let rest = self.c.rest();
            if rest.starts_with('%') && operand_ok {
                op.operands.push(self.value_use()?);
                operand_ok = false;
            } else if rest.starts_with('(') {
                self.c.expect("(")?;
                self.items(op, words, Some(")"))?;
                operand_ok = false;
            } else if rest.starts_with('@') {
                let symbol = self.symbol()?;
                let key = if op.name == "func.call" {
                    "callee"
                } else {
                    "call_target_name"
                };
                let value = if key == "callee" {
                    Attr::Symbol(symbol)
                } else {
                    Attr::String(symbol.into_bytes())
                };
                op.attrs.push((key.into(), value));
                operand_ok = false;
            } else if rest.starts_with('[') {
                self.bracket_spec(op)?;
                operand_ok = false;
            } else if rest.starts_with('"') && op.name == "stablehlo.composite" {
                let name = self.string_bytes()?;
                op.attrs.push(("name".into(), Attr::String(name)));
                operand_ok = true;
            } else if let Some(word) = keyword_start(rest) {
                let at = self.c.pos();
                self.c.set_pos(at + word.len());
                if self.c.eat("=") {
                    let value = self.keyword_value(word)?;
                    self.store_keyword(op, word, value, at)?;
                } else if word == "applies" || word == "across" {
                    return Err(self.c.error_at(at, "an operand"));
                } else {
                    words.push(word.to_string());
                }
                operand_ok = false;
            } else {
                if close.is_some() {
                    return Err(self.c.error("`)`"));
                }
                return Ok(());
            }
            if self.c.eat(",") {
                operand_ok = true;
            }
        }
    }

    /// `[1:5:3, 0:2]` after a slice's operand, `[0]` after a
    /// get-tuple-element's.
    fn bracket_spec(&mut self, op: &mut Operation) -> Result<(), ParseError> {
        self.c.expect("[")?;
        if op.name == "stablehlo.get_tuple_element" {
            let index = self.c.int()?;
            self.c.expect("]")?;
            op.attrs.push((
                "index".into(),
                Attr::Int(index, ElementType::Known(PrimitiveType::S32)),
            ));
            return Ok(());
        }
        let (mut starts, mut limits, mut strides) = (Vec::new(), Vec::new(), Vec::new());
        if !self.c.eat("]") {
            loop {
                starts.push(self.c.int()?);
                self.c.expect(":")?;
                limits.push(self.c.int()?);
                strides.push(if self.c.eat(":") { self.c.int()? } else { 1 });
                if self.c.eat("]") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        op.attrs.push(("start_indices".into(), Attr::Ints(starts)));
        op.attrs.push(("limit_indices".into(), Attr::Ints(limits)));
        op.attrs.push(("strides".into(), Attr::Ints(strides)));
        Ok(())
    }

    /// The value after `key =`.
    fn keyword_value(&mut self, key: &str) -> Result<Keyword, ParseError> {
        self.c.skip_ws();
        if key == "dim_numbers" {
            return Ok(Keyword::Attr(Attr::Dict(self.conv_layout()?)));
        }
        if key == "window" {
            return Ok(Keyword::Attr(Attr::Dict(self.window()?)));
        }
        let rest = self.c.rest();
        if rest.starts_with('[') {
            let first = self.bracket_list()?;
            if self.c.eat_keyword("x") {
                let second = self.bracket_list()?;
                return match (first, second) {
                    (Keyword::Ints(a), Keyword::Ints(b)) => Ok(Keyword::IntsPair(a, b)),
                    _ => Err(self.c.error("integer lists on both sides of `x`")),
                };
            }
            return Ok(first);
        }
        if rest.starts_with('<') {
            // `algorithm = <lhs_precision_type = tf32, …>` of dot_general.
            let text = self.skipped_text(Self::opaque_attr)?;
            return Ok(Keyword::Attr(Attr::Opaque(text)));
        }
        if rest.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            return Ok(Keyword::Int(self.c.int()?));
        }
        if self.c.eat_keyword("true") {
            return Ok(Keyword::Attr(Attr::Bool(true)));
        }
        if self.c.eat_keyword("false") {
            return Ok(Keyword::Attr(Attr::Bool(false)));
        }
        let word = self.c.expect_name("a keyword value")?;
        Ok(Keyword::Word(word.to_string()))
    }

    /// `[1, 2]`, `[DEFAULT, HIGH]`, `[[1, 1], [0, 0]]`, `[false, true]`.
    fn bracket_list(&mut self) -> Result<Keyword, ParseError> {
        self.c.expect("[")?;
        if self.c.eat("]") {
            return Ok(Keyword::Ints(Vec::new()));
        }
        if self.c.looking_at("[") {
            let mut pairs = Vec::new();
            loop {
                pairs.push(self.c.int_list("[", "]")?);
                if self.c.eat("]") {
                    return Ok(Keyword::Pairs(pairs));
                }
                self.c.expect(",")?;
            }
        }
        self.c.skip_ws();
        if self
            .c
            .rest()
            .starts_with(|c: char| c.is_ascii_digit() || c == '-')
        {
            let mut ints = Vec::new();
            loop {
                ints.push(self.c.int()?);
                if self.c.eat("]") {
                    return Ok(Keyword::Ints(ints));
                }
                self.c.expect(",")?;
            }
        }
        let mut words = Vec::new();
        loop {
            words.push(self.c.expect_name("a keyword")?.to_string());
            if self.c.eat("]") {
                break;
            }
            self.c.expect(",")?;
        }
        if words.iter().all(|w| w == "true" || w == "false") {
            return Ok(Keyword::Bools(words.iter().map(|w| w == "true").collect()));
        }
        Ok(Keyword::Words(words))
    }

    /// `{stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = […],
    /// rhs_dilate = […], reverse = […]}` of a convolution.
    fn window(&mut self) -> Result<Vec<(String, Attr)>, ParseError> {
        self.c.expect("{")?;
        let mut out = Vec::new();
        if self.c.eat("}") {
            return Ok(out);
        }
        loop {
            let at = self.c.pos();
            let key = self.c.expect_name("a window field")?.to_string();
            self.c.expect("=")?;
            let value = self.bracket_list()?;
            let name = match key.as_str() {
                "stride" => "window_strides",
                "pad" => "padding",
                "lhs_dilate" => "lhs_dilation",
                "rhs_dilate" => "rhs_dilation",
                "reverse" => "window_reversal",
                _ => {
                    return Err(self
                        .c
                        .message_at(at, format!("unknown window field `{key}`")))
                }
            };
            let attr = match value {
                Keyword::Ints(v) if name == "window_reversal" => {
                    Attr::Bools(v.iter().map(|&x| x != 0).collect())
                }
                Keyword::Ints(v) => Attr::Ints(v),
                Keyword::Bools(v) => Attr::Bools(v),
                Keyword::Pairs(p) => Attr::Ints(p.concat()),
                _ => return Err(self.c.message_at(at, format!("a bad `{key}` list"))),
            };
            out.push((name.to_string(), attr));
            if self.c.eat("}") {
                return Ok(out);
            }
            self.c.expect(",")?;
        }
    }

    /// Stores `key = value` of `op` under VHLO's attribute name.
    fn store_keyword(
        &mut self,
        op: &mut Operation,
        key: &str,
        value: Keyword,
        at: usize,
    ) -> Result<(), ParseError> {
        let bad = |p: &Self| {
            p.c.message_at(at, format!("unexpected `{key} = …` in `{}`", op.name))
        };
        let op_name = op
            .name
            .trim_start_matches("stablehlo.")
            .trim_start_matches("chlo.");
        let attrs = &mut op.attrs;
        match (op_name, key, value) {
            ("broadcast_in_dim" | "dynamic_broadcast_in_dim", "dims", Keyword::Ints(v)) => {
                attrs.push(("broadcast_dimensions".into(), Attr::Ints(v)))
            }
            ("transpose", "dims", Keyword::Ints(v)) => {
                attrs.push(("permutation".into(), Attr::Ints(v)))
            }
            ("reverse", "dims", Keyword::Ints(v)) => {
                attrs.push(("dimensions".into(), Attr::Ints(v)))
            }
            (
                "concatenate" | "get_dimension_size" | "set_dimension_size",
                "dim",
                Keyword::Int(v),
            ) => attrs.push(("dimension".into(), int(v))),
            ("iota" | "dynamic_iota", "dim", Keyword::Int(v)) => {
                attrs.push(("iota_dimension".into(), int(v)))
            }
            ("pad", "low", Keyword::Ints(v)) => {
                attrs.push(("edge_padding_low".into(), Attr::Ints(v)))
            }
            ("pad", "high", Keyword::Ints(v)) => {
                attrs.push(("edge_padding_high".into(), Attr::Ints(v)))
            }
            ("pad", "interior", Keyword::Ints(v)) => {
                attrs.push(("interior_padding".into(), Attr::Ints(v)))
            }
            ("dynamic_slice", "sizes", Keyword::Ints(v)) => {
                attrs.push(("slice_sizes".into(), Attr::Ints(v)))
            }
            ("dot_general", "batching_dims", Keyword::IntsPair(l, r)) => {
                attrs.push(("lhs_batching_dimensions".into(), Attr::Ints(l)));
                attrs.push(("rhs_batching_dimensions".into(), Attr::Ints(r)));
            }
            ("dot_general", "contracting_dims", Keyword::IntsPair(l, r)) => {
                attrs.push(("lhs_contracting_dimensions".into(), Attr::Ints(l)));
                attrs.push(("rhs_contracting_dimensions".into(), Attr::Ints(r)));
            }
            ("dot_general" | "convolution" | "dot", "precision", Keyword::Words(w)) => {
                let list = w.iter().map(|p| enum_attr("precision", p)).collect();
                attrs.push(("precision_config".into(), Attr::Array(list)));
            }
            ("dot_general", "algorithm", Keyword::Attr(a)) => attrs.push(("algorithm".into(), a)),
            ("fft", "type", Keyword::Word(w)) => {
                attrs.push(("fft_type".into(), enum_attr("fft_type", &w)))
            }
            ("fft", "length", Keyword::Ints(v)) => attrs.push(("fft_length".into(), Attr::Ints(v))),
            ("reduce_precision", "format", Keyword::Word(w)) => {
                let parsed = w
                    .strip_prefix('e')
                    .and_then(|r| r.split_once('m'))
                    .and_then(|(e, m)| Some((e.parse::<i64>().ok()?, m.parse::<i64>().ok()?)));
                let Some((e, m)) = parsed else {
                    return Err(bad(self));
                };
                attrs.push((
                    "exponent_bits".into(),
                    Attr::Int(e, ElementType::Known(PrimitiveType::S32)),
                ));
                attrs.push((
                    "mantissa_bits".into(),
                    Attr::Int(m, ElementType::Known(PrimitiveType::S32)),
                ));
            }
            ("rng_bit_generator", "algorithm", Keyword::Word(w)) => {
                attrs.push(("rng_algorithm".into(), enum_attr("rng_algorithm", &w)));
            }
            ("rng", "distribution", Keyword::Word(w)) => {
                attrs.push(("rng_distribution".into(), enum_attr("rng_distribution", &w)));
            }
            ("convolution", "dim_numbers", Keyword::Attr(Attr::Dict(fields))) => {
                attrs.extend(fields)
            }
            ("convolution", "window", Keyword::Attr(Attr::Dict(fields))) => attrs.extend(fields),
            (_, _, Keyword::Attr(a)) => attrs.push((key.to_string(), a)),
            (_, _, Keyword::Int(v)) => attrs.push((key.to_string(), int(v))),
            (_, _, Keyword::Ints(v)) => attrs.push((key.to_string(), Attr::Ints(v))),
            _ => return Err(bad(self)),
        }
        Ok(())
    }

    /// The type signature after `:`: `t` (every operand and the result),
    /// `t1, t2` (per operand, or per result when there are as many),
    /// `(ins) -> outs` or `t -> outs` (chlo).
    fn signature(&mut self, count: usize) -> Result<Vec<Type>, ParseError> {
        let first = self.ty()?;
        if let Type::Function(_, outputs) = first {
            return Ok(outputs);
        }
        let mut types = vec![first];
        while self.c.eat(",") {
            types.push(self.ty()?);
        }
        if self.c.eat("->") {
            return self.result_types();
        }
        if types.len() == count {
            return Ok(types);
        }
        Ok(match count {
            0 => Vec::new(),
            _ => vec![types.pop().expect("one type was read"); count],
        })
    }

    /// `stablehlo.constant [{attrs}] dense<…> : tensor<…>`.
    fn constant(&mut self) -> Result<Operation, ParseError> {
        let mut op = bare("stablehlo.constant");
        if self.c.eat("(") {
            // `stablehlo.constant() {value = …} : () -> t`.
            self.c.expect(")")?;
            let at = self.c.pos();
            op.attrs = self.attr_dict()?;
            if op.attr("value").is_none() {
                return Err(self.c.error_at(at, "a `value` attribute"));
            }
            op.results = self.function_results()?;
            return Ok(op);
        }
        if self.c.looking_at("{") {
            op.attrs.extend(self.attr_dict()?);
        }
        let at = self.c.pos();
        let value = self.attr()?;
        let ty = match &value {
            Attr::Dense { ty, .. } => ty.clone(),
            Attr::Dict(fields) => match fields.get(2) {
                Some((_, Attr::Type(ty))) => ty.clone(),
                _ => return Err(self.c.error_at(at, "a dense literal")),
            },
            _ => return Err(self.c.error_at(at, "a dense literal")),
        };
        op.attrs.push(("value".into(), value));
        op.results = self.new_results(vec![ty]);
        Ok(op)
    }

    /// `sdy.sharding_constraint %x <@mesh, […]> : t` and `sdy.reshard`
    /// (Shardy's sharding hints): the sharding kept as text.
    fn sharding_hint(&mut self, name: &str) -> Result<Operation, ParseError> {
        let mut op = bare(name);
        op.operands.push(self.value_use()?);
        let text = self.skipped_text(Self::skip_group)?;
        op.attrs.push(("sharding".into(), Attr::Opaque(text)));
        self.c.expect(":")?;
        let ty = self.ty()?;
        op.results = self.new_results(vec![ty]);
        Ok(op)
    }

    /// `sdy.manual_computation(%a, …) in_shardings=[…] out_shardings=[…]
    /// manual_axes={…} (%arg: t, …) {…} : sig` (Shardy's `shard_map`): the
    /// shardings kept as text, the body a region with its own arguments.
    fn manual_computation(&mut self) -> Result<Operation, ParseError> {
        let mut op = bare("sdy.manual_computation");
        op.operands = self.operand_list()?;
        for key in ["in_shardings", "out_shardings", "manual_axes"] {
            self.c.expect(key)?;
            self.c.expect("=")?;
            let text = self.skipped_text(Self::skip_group)?;
            op.attrs.push((key.to_string(), Attr::Opaque(text)));
        }
        self.c.expect("(")?;
        let (mut names, mut types) = (Vec::new(), Vec::new());
        if !self.c.eat(")") {
            loop {
                names.push(self.value_name()?);
                self.c.expect(":")?;
                types.push(self.ty()?);
                self.trailing_location()?;
                if self.c.eat(")") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        let args = self.predeclare(&names, &types);
        let body = self.region_with_args(args);
        self.end_predeclared();
        op.regions.push(body?);
        op.results = self.function_results()?;
        Ok(op)
    }

    /// `stablehlo.while(%iterArg = %a, …) : t, … [attributes {…}] cond {…} do {…}`.
    fn while_op(&mut self) -> Result<Operation, ParseError> {
        let mut op = bare("stablehlo.while");
        let mut names = Vec::new();
        self.c.expect("(")?;
        if !self.c.eat(")") {
            loop {
                names.push(self.value_name()?);
                self.c.expect("=")?;
                op.operands.push(self.value_use()?);
                if self.c.eat(")") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        let types = if self.c.eat(":") {
            let mut types = vec![self.ty()?];
            while self.c.eat(",") {
                types.push(self.ty()?);
            }
            types
        } else {
            Vec::new()
        };
        if types.len() != names.len() {
            return Err(self
                .c
                .error(format!("{} types for the loop's values", names.len())));
        }
        if self.c.eat_keyword("attributes") {
            op.attrs.extend(self.attr_dict()?);
        }
        self.c.expect("cond")?;
        let args = self.predeclare(&names, &types);
        let cond = self.region_with_args(args);
        self.end_predeclared();
        self.c.expect("do")?;
        let args = self.predeclare(&names, &types);
        let body = self.region_with_args(args);
        self.end_predeclared();
        op.regions = vec![cond?, body?];
        op.results = self.new_results(types);
        Ok(op)
    }

    /// `stablehlo.reduce(%a init: %b), … applies stablehlo.add across
    /// dimensions = [1] : sig`, or with `reducer(%x: t, %y: t) (…) {…}`.
    fn reduce(&mut self) -> Result<Operation, ParseError> {
        let mut op = bare("stablehlo.reduce");
        let (mut inputs, mut inits) = (Vec::new(), Vec::new());
        loop {
            self.c.expect("(")?;
            inputs.push(self.value_use()?);
            self.c.expect("init")?;
            self.c.expect(":")?;
            inits.push(self.value_use()?);
            self.c.expect(")")?;
            if !self.c.eat(",") {
                break;
            }
        }
        let applies = if self.c.eat_keyword("applies") {
            Some(self.c.expect_name("a reducer op")?.to_string())
        } else {
            None
        };
        self.c.expect("across")?;
        self.c.expect("dimensions")?;
        self.c.expect("=")?;
        let dims = self.c.int_list("[", "]")?;
        op.attrs.push(("dimensions".into(), Attr::Ints(dims)));
        if self.c.looking_at("{") {
            op.attrs.extend(self.attr_dict()?);
        }
        self.c.expect(":")?;
        let results = self.signature(inputs.len())?;
        let n = inputs.len();
        let region = match applies {
            Some(reducer) => {
                // The reducer takes scalars of the results' element types.
                let types: Vec<Type> = results.iter().map(scalar_of).collect();
                self.applies_region(&reducer, &types)
            }
            None => {
                self.c.expect("reducer")?;
                let mut pairs = Vec::new();
                for _ in 0..n {
                    self.c.expect("(")?;
                    let lhs = (self.value_name()?, {
                        self.c.expect(":")?;
                        self.ty()?
                    });
                    self.c.expect(",")?;
                    let rhs = (self.value_name()?, {
                        self.c.expect(":")?;
                        self.ty()?
                    });
                    self.c.expect(")")?;
                    pairs.push((lhs, rhs));
                }
                // Block arguments: every accumulator, then every element.
                let (lhs, rhs): (Vec<_>, Vec<_>) = pairs.into_iter().unzip();
                let (names, types): (Vec<String>, Vec<Type>) = lhs.into_iter().chain(rhs).unzip();
                let args = self.predeclare(&names, &types);
                let region = self.region_with_args(args);
                self.end_predeclared();
                region?
            }
        };
        op.operands = inputs.into_iter().chain(inits).collect();
        op.regions.push(region);
        op.results = self.new_results(results);
        Ok(op)
    }

    /// The region `applies op` stands for: `op(%lhs, %rhs)` returned.
    fn applies_region(&mut self, reducer: &str, types: &[Type]) -> Region {
        let names: Vec<String> = (0..2 * types.len())
            .map(|i| format!("\u{0}applies{i}"))
            .collect();
        let all: Vec<Type> = types.iter().chain(types).cloned().collect();
        let args = self.predeclare(&names, &all);
        let values: Vec<Value> = args.iter().map(|(v, _)| *v).collect();
        let results = self.new_results(types.to_vec());
        self.end_predeclared();
        let mut apply = bare(reducer);
        apply.operands = values;
        apply.results = results.clone();
        let mut ret = bare("stablehlo.return");
        ret.operands = results.iter().map(|(v, _)| *v).collect();
        Region {
            blocks: vec![crate::mlir::ir::Block {
                args,
                ops: vec![apply, ret],
            }],
        }
    }
}

/// The keyword at the start of `rest`: a bare word (not `dense`, `loc`,
/// or a type) followed by `=` or used as an enum keyword.
fn keyword_start(rest: &str) -> Option<&str> {
    let len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let word = &rest[..len];
    let first = word.chars().next()?;
    if !first.is_ascii_alphabetic() || word == "loc" {
        return None;
    }
    let after = rest[len..].trim_start();
    if after.starts_with('=')
        || word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
    {
        return Some(word);
    }
    None
}

/// `#stablehlo<kind VALUE>`.
fn enum_attr(kind: &str, value: &str) -> Attr {
    Attr::Enum(kind.to_string(), value.to_string())
}
