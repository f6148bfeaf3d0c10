//! StableHLO's text form, as `jax.jit(f).lower(...).as_text()` prints it:
//! MLIR's generic operation syntax, the pretty forms of the `stablehlo`,
//! `chlo` and `func` ops, locations (inline and `#loc` aliases) and
//! `dense_resource` blobs.

mod attr;
mod ops;

use std::collections::HashMap;

use super::ir::{Attr, Block, Location, Module, Operation, Region, Type, Value};
use crate::text::{Cursor, ParseError};

/// The deepest nesting of regions, attributes and locations read.
const MAX_NESTING: usize = 1000;

/// The most results one op may bind.
const MAX_RESULTS: usize = 1 << 16;

pub(crate) use attr::{decode_hex, element_size};

/// Parses a StableHLO module in MLIR text form.
///
/// ```
/// let module = xla_core::mlir::parse_stablehlo(
///     "module @m { func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
///        %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
///        return %0 : tensor<2xf32>
///      } }",
/// )?;
/// assert_eq!(module.ops[0].regions[0].blocks[0].ops[0].name, "stablehlo.add");
/// # Ok::<(), xla_core::text::ParseError>(())
/// ```
pub fn parse_stablehlo(text: &str) -> Result<Module, ParseError> {
    let mut p = Parser {
        c: Cursor::new(text),
        depth: 0,
        scopes: Vec::new(),
        next_value: 0,
        loc_aliases: HashMap::new(),
        resources: HashMap::new(),
    };
    let mut module = p.file()?;
    resolve(&mut module.ops, &p.loc_aliases, &p.resources).map_err(|m| p.c.message_at(0, m))?;
    Ok(module)
}

/// The parser's state: the cursor, the nesting depth and the values in
/// scope (one map per region being read).
pub(crate) struct Parser<'a> {
    pub(crate) c: Cursor<'a>,
    pub(crate) depth: usize,
    scopes: Vec<HashMap<String, Vec<(Value, Type)>>>,
    next_value: u32,
    loc_aliases: HashMap<String, Option<Location>>,
    resources: HashMap<String, Vec<u8>>,
}

impl<'a> Parser<'a> {
    /// One level deeper in nested attributes, regions or locations: an
    /// error beyond [`MAX_NESTING`] (the caller decrements on success).
    pub(crate) fn deeper(&mut self) -> Result<(), ParseError> {
        if self.depth >= MAX_NESTING {
            return Err(self
                .c
                .message_at(self.c.pos(), format!("nested more than {MAX_NESTING} deep")));
        }
        self.depth += 1;
        Ok(())
    }

    /// The whole file: aliases, the module (or bare functions), resources.
    fn file(&mut self) -> Result<Module, ParseError> {
        let mut module = Module::default();
        let mut seen_module = false;
        loop {
            self.c.skip_ws();
            if self.c.at_end() {
                break;
            }
            if self.c.looking_at("{-#") {
                self.resources_section()?;
            } else if self.c.looking_at("#") || self.c.looking_at("!") {
                self.alias_definition()?;
            } else if !seen_module && self.c.eat_keyword("module") {
                seen_module = true;
                if self.c.looking_at("@") {
                    module.name = Some(self.symbol()?);
                }
                if self.c.eat_keyword("attributes") {
                    module.attrs = self.attr_dict()?;
                }
                self.c.expect("{")?;
                while !self.c.eat("}") {
                    if self.c.at_end() {
                        return Err(self.c.error("`}` closing the module"));
                    }
                    module.ops.push(self.top_op()?);
                }
                self.trailing_location()?;
            } else if !seen_module {
                module.ops.push(self.top_op()?);
            } else {
                return Err(self.c.error("the end of the file after the module"));
            }
        }
        Ok(module)
    }

    /// `#name = loc(…)` / `#name = attr` / `!name = type`.
    fn alias_definition(&mut self) -> Result<(), ParseError> {
        let at = self.c.pos();
        let is_type = self.c.eat("!");
        if !is_type {
            self.c.expect("#")?;
        }
        let name = self.c.expect_name("an alias name")?.to_string();
        self.c.expect("=")?;
        if is_type {
            return Err(self
                .c
                .message_at(at, format!("type alias `!{name}` is not supported")));
        }
        if self.c.looking_at("loc(") {
            let loc = self.location()?;
            self.loc_aliases.insert(format!("#{name}"), loc);
        } else {
            self.attr()?;
        }
        Ok(())
    }

    /// `{-# dialect_resources: { builtin: { name: "0x…", … } } #-}`.
    fn resources_section(&mut self) -> Result<(), ParseError> {
        self.c.expect("{-#")?;
        loop {
            if self.c.eat("#-}") {
                return Ok(());
            }
            let section = self.c.expect_name("a resource section")?.to_string();
            self.c.expect(":")?;
            self.c.expect("{")?;
            while !self.c.eat("}") {
                let dialect = self.c.expect_name("a dialect name")?.to_string();
                self.c.expect(":")?;
                self.c.expect("{")?;
                while !self.c.eat("}") {
                    let key = self.c.expect_name("a resource name")?.to_string();
                    self.c.expect(":")?;
                    let value = self.attr()?;
                    if let (true, Attr::String(blob)) = (
                        section == "dialect_resources" && dialect == "builtin",
                        value,
                    ) {
                        self.resources.insert(key, blob);
                    }
                    self.c.eat(",");
                }
                self.c.eat(",");
            }
            self.c.eat(",");
        }
    }

    /// A top-level op: `func.func`, `sdy.mesh` (kept, not read) or any op.
    fn top_op(&mut self) -> Result<Operation, ParseError> {
        if self.c.eat_keyword("func.func") {
            return self.func();
        }
        if self.c.eat_keyword("sdy.mesh") {
            let name = self.symbol()?;
            self.c.expect("=")?;
            let mesh = self.skipped_text(Self::opaque_attr)?;
            let attrs = if self.c.looking_at("{") {
                self.attr_dict()?
            } else {
                Vec::new()
            };
            let mut op = bare("sdy.mesh");
            op.attrs = attrs;
            op.attrs.push(("mesh".into(), Attr::Opaque(mesh)));
            op.attrs
                .push(("sym_name".into(), Attr::String(name.into_bytes())));
            op.loc = self.trailing_location()?;
            return Ok(op);
        }
        self.op()
    }

    /// `func.func [visibility] @name(args) [-> results] [attributes {…}] {body}`.
    fn func(&mut self) -> Result<Operation, ParseError> {
        let mut op = bare("func.func");
        for visibility in ["public", "private", "nested"] {
            if self.c.eat_keyword(visibility) {
                op.attrs
                    .push(("sym_visibility".into(), Attr::String(visibility.into())));
            }
        }
        let name = self.symbol()?;
        op.attrs
            .push(("sym_name".into(), Attr::String(name.into_bytes())));
        self.scopes.push(HashMap::new());
        self.next_value = 0;
        self.c.expect("(")?;
        let mut args = Vec::new();
        let mut arg_attrs = Vec::new();
        if !self.c.eat(")") {
            loop {
                let name = self.value_name()?;
                self.c.expect(":")?;
                let ty = self.ty()?;
                let attrs = if self.c.looking_at("{") {
                    self.attr_dict()?
                } else {
                    Vec::new()
                };
                self.trailing_location()?;
                args.push(self.define(name, ty));
                arg_attrs.push(Attr::Dict(attrs));
                if self.c.eat(")") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        let mut results = Vec::new();
        let mut res_attrs = Vec::new();
        if self.c.eat("->") {
            if self.c.eat("(") {
                if !self.c.eat(")") {
                    loop {
                        results.push(self.ty()?);
                        res_attrs.push(Attr::Dict(if self.c.looking_at("{") {
                            self.attr_dict()?
                        } else {
                            Vec::new()
                        }));
                        if self.c.eat(")") {
                            break;
                        }
                        self.c.expect(",")?;
                    }
                }
            } else {
                results.push(self.ty()?);
                res_attrs.push(Attr::Dict(Vec::new()));
            }
        }
        if self.c.eat_keyword("attributes") {
            op.attrs.extend(self.attr_dict()?);
        }
        let inputs = args.iter().map(|(_, t)| t.clone()).collect();
        op.attrs.push((
            "function_type".into(),
            Attr::Type(Type::Function(inputs, results)),
        ));
        op.attrs.push(("arg_attrs".into(), Attr::Array(arg_attrs)));
        op.attrs.push(("res_attrs".into(), Attr::Array(res_attrs)));
        if self.c.looking_at("{") {
            let region = self.region_with_args(args)?;
            op.regions.push(region);
        }
        self.scopes.pop();
        op.loc = self.trailing_location()?;
        Ok(op)
    }

    /// `%name` (without `#i`).
    fn value_name(&mut self) -> Result<String, ParseError> {
        self.c.skip_ws();
        if !self.c.rest().starts_with('%') {
            return Err(self.c.error("a value `%name`"));
        }
        let rest = &self.c.rest()[1..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-')))
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(self.c.error("a value `%name`"));
        }
        self.c.set_pos(self.c.pos() + 1 + len);
        Ok(rest[..len].to_string())
    }

    /// A use of a value: `%name` or `%name#i`.
    pub(crate) fn value_use(&mut self) -> Result<Value, ParseError> {
        self.c.skip_ws();
        let at = self.c.pos();
        let name = self.value_name()?;
        let index = if self.c.rest().starts_with('#') {
            self.c.set_pos(self.c.pos() + 1);
            self.c.int()?
        } else {
            0
        };
        let defs = self
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.get(&name))
            .ok_or_else(|| {
                self.c
                    .message_at(at, format!("use of undefined value `%{name}`"))
            })?;
        let (value, _) = usize::try_from(index)
            .ok()
            .and_then(|i| defs.get(i))
            .ok_or_else(|| {
                self.c
                    .message_at(at, format!("`%{name}` has no result #{index}"))
            })?;
        Ok(*value)
    }

    /// Defines `%name` as one new value of type `ty`.
    pub(crate) fn define(&mut self, name: String, ty: Type) -> (Value, Type) {
        let value = Value(self.next_value);
        self.next_value += 1;
        let scope = self
            .scopes
            .last_mut()
            .expect("a scope is open inside a function");
        scope.insert(name, vec![(value, ty.clone())]);
        (value, ty)
    }

    /// `{ [^bb0(%a: t, …):] ops }` with a fresh scope.
    pub(crate) fn region(&mut self) -> Result<Region, ParseError> {
        self.region_with_args(Vec::new())
    }

    /// A region whose entry block has `args` (already defined, e.g. a
    /// function's or a while's) unless it declares its own.
    pub(crate) fn region_with_args(
        &mut self,
        args: Vec<(Value, Type)>,
    ) -> Result<Region, ParseError> {
        self.deeper()?;
        self.c.expect("{")?;
        self.scopes.push(HashMap::new());
        let mut block = Block {
            args,
            ops: Vec::new(),
        };
        if self.c.eat("^") {
            self.c.expect_name("a block label")?;
            if self.c.eat("(") && !self.c.eat(")") {
                loop {
                    let name = self.value_name()?;
                    self.c.expect(":")?;
                    let ty = self.ty()?;
                    self.trailing_location()?;
                    block.args.push(self.define(name, ty));
                    if self.c.eat(")") {
                        break;
                    }
                    self.c.expect(",")?;
                }
            }
            self.c.expect(":")?;
        }
        loop {
            if self.c.eat("}") {
                break;
            }
            if self.c.looking_at("^") {
                return Err(self.c.message_at(
                    self.c.pos(),
                    "regions of more than one block are not supported",
                ));
            }
            if self.c.at_end() {
                return Err(self.c.error("`}` closing the region"));
            }
            let op = self.op()?;
            block.ops.push(op);
        }
        self.scopes.pop();
        self.depth -= 1;
        Ok(Region {
            blocks: vec![block],
        })
    }

    /// Declares the names of a region's entry block arguments before the
    /// region is read (while's `%iterArg`s).
    pub(crate) fn predeclare(&mut self, names: &[String], types: &[Type]) -> Vec<(Value, Type)> {
        self.scopes.push(HashMap::new());
        let args = names
            .iter()
            .zip(types)
            .map(|(n, t)| self.define(n.clone(), t.clone()))
            .collect();
        args
    }

    /// Closes the scope of [`Parser::predeclare`].
    pub(crate) fn end_predeclared(&mut self) {
        self.scopes.pop();
    }

    /// One operation, with its results defined in the current scope.
    fn op(&mut self) -> Result<Operation, ParseError> {
        let start = self.c.pos();
        let mut names: Vec<(String, usize)> = Vec::new();
        if self.c.looking_at("%") {
            loop {
                let name = self.value_name()?;
                let count = if self.c.rest().starts_with(':') {
                    self.c.set_pos(self.c.pos() + 1);
                    usize::try_from(self.c.int()?).map_err(|_| self.c.error("a result count"))?
                } else {
                    1
                };
                names.push((name, count));
                if !self.c.eat(",") {
                    break;
                }
            }
            self.c.expect("=")?;
        }
        let count: usize = names.iter().map(|(_, n)| n).sum();
        if self.scopes.is_empty() {
            return Err(self.c.message_at(start, "an operation outside a function"));
        }
        if count > MAX_RESULTS {
            return Err(self
                .c
                .message_at(start, format!("more than {MAX_RESULTS} results")));
        }
        let mut op = if self.c.looking_at("\"") {
            self.generic_op()?
        } else {
            let name = self.c.expect_name("an operation name")?.to_string();
            self.custom_op(&name, count)?
        };
        if op.results.len() != count {
            return Err(self.c.message_at(
                start,
                format!(
                    "`{}` has {} result(s) but {} name(s) are bound",
                    op.name,
                    op.results.len(),
                    count
                ),
            ));
        }
        flatten_structured(&mut op.attrs);
        op.loc = self.trailing_location()?;
        // Bind the result names.
        let mut results = op.results.iter();
        for (name, n) in names {
            let defs: Vec<(Value, Type)> = results.by_ref().take(n).cloned().collect();
            self.scopes
                .last_mut()
                .expect("a scope is open")
                .insert(name, defs);
        }
        Ok(op)
    }

    /// Allocates result values for `types`.
    pub(crate) fn new_results(&mut self, types: Vec<Type>) -> Vec<(Value, Type)> {
        types
            .into_iter()
            .map(|t| {
                let v = Value(self.next_value);
                self.next_value += 1;
                (v, t)
            })
            .collect()
    }

    /// `(%a, %b#1, …)`: uses of values.
    pub(crate) fn operand_list(&mut self) -> Result<Vec<Value>, ParseError> {
        self.c.expect("(")?;
        let mut values = Vec::new();
        if self.c.eat(")") {
            return Ok(values);
        }
        loop {
            values.push(self.value_use()?);
            if self.c.eat(")") {
                return Ok(values);
            }
            self.c.expect(",")?;
        }
    }

    /// `"dialect.op"(operands) [<{props}>] [(regions)] [{attrs}] : (…) -> …`.
    fn generic_op(&mut self) -> Result<Operation, ParseError> {
        let name = self.string_utf8()?;
        let mut op = bare(&name);
        op.operands = self.operand_list()?;
        if self.c.looking_at("[") {
            return Err(self
                .c
                .message_at(self.c.pos(), "successor blocks are not supported"));
        }
        if self.c.eat("<") {
            op.attrs.extend(self.attr_dict()?);
            self.c.expect(">")?;
        }
        if self.c.looking_at("(") {
            self.c.expect("(")?;
            loop {
                op.regions.push(self.region()?);
                if self.c.eat(")") {
                    break;
                }
                self.c.expect(",")?;
            }
        }
        if self.c.looking_at("{") {
            op.attrs.extend(self.attr_dict()?);
        }
        op.results = self.function_results()?;
        Ok(op)
    }

    /// `: (…) -> (…)` after an op in generic form: its results, allocated.
    pub(crate) fn function_results(&mut self) -> Result<Vec<(Value, Type)>, ParseError> {
        self.c.expect(":")?;
        let at = self.c.pos();
        let Type::Function(_, results) = self.ty()? else {
            return Err(self.c.error_at(at, "a function type `(…) -> …`"));
        };
        Ok(self.new_results(results))
    }

    /// An optional `loc(…)` after an op, argument or module.
    pub(crate) fn trailing_location(&mut self) -> Result<Option<Location>, ParseError> {
        if self.c.looking_at("loc(") {
            self.location()
        } else {
            Ok(None)
        }
    }
}

/// An op with a name and nothing else.
pub(crate) fn bare(name: &str) -> Operation {
    Operation {
        name: name.to_string(),
        operands: Vec::new(),
        results: Vec::new(),
        attrs: Vec::new(),
        regions: Vec::new(),
        loc: None,
    }
}

/// Replaces `#stablehlo.gather<…>`, `#stablehlo.scatter<…>`,
/// `#stablehlo.dot<…>` and `#stablehlo.conv<…>` attributes by their
/// fields (VHLO's flat attributes).
fn flatten_structured(attrs: &mut Vec<(String, Attr)>) {
    const FLAT: [&str; 4] = [
        "stablehlo.gather",
        "stablehlo.scatter",
        "stablehlo.dot",
        "stablehlo.conv",
    ];
    let mut out = Vec::with_capacity(attrs.len());
    for (name, attr) in attrs.drain(..) {
        match attr {
            Attr::Dict(fields)
                if fields.first().is_some_and(|(k, v)| {
                    k == "#" && matches!(v, Attr::String(s) if FLAT.iter().any(|f| f.as_bytes() == s.as_slice()))
                }) =>
            {
                out.extend(fields.into_iter().skip(1));
            }
            attr => out.push((name, attr)),
        }
    }
    *attrs = out;
}

/// Resolves `#loc` aliases and `dense_resource` blobs throughout `ops`.
fn resolve(
    ops: &mut [Operation],
    aliases: &HashMap<String, Option<Location>>,
    resources: &HashMap<String, Vec<u8>>,
) -> Result<(), String> {
    for op in ops {
        if let Some(Location {
            name: Some(alias),
            file: None,
        }) = &op.loc
        {
            if alias.starts_with('#') {
                op.loc = resolve_alias(alias, aliases, 0);
            }
        }
        for (_, attr) in &mut op.attrs {
            resolve_resource(attr, resources)?;
        }
        for region in &mut op.regions {
            for block in &mut region.blocks {
                resolve(&mut block.ops, aliases, resources)?;
            }
        }
    }
    Ok(())
}

/// The location an alias names, following chains of aliases.
fn resolve_alias(
    alias: &str,
    aliases: &HashMap<String, Option<Location>>,
    depth: usize,
) -> Option<Location> {
    let loc = aliases.get(alias)?.clone()?;
    match &loc.name {
        Some(next) if next.starts_with('#') && loc.file.is_none() && depth < 64 => {
            resolve_alias(next, aliases, depth + 1)
        }
        _ => Some(loc),
    }
}

/// A `dense_resource<key>` placeholder as the dense literal its blob holds
/// (a 4-byte alignment, then the elements).
fn resolve_resource(attr: &mut Attr, resources: &HashMap<String, Vec<u8>>) -> Result<(), String> {
    let Attr::Dict(fields) = attr else {
        return Ok(());
    };
    let is_resource =
        matches!(fields.first(), Some((k, Attr::String(s))) if k == "#" && s == b"dense_resource");
    if !is_resource {
        for (_, field) in fields {
            resolve_resource(field, resources)?;
        }
        return Ok(());
    }
    let (Some((_, Attr::String(key))), Some((_, Attr::Type(ty)))) = (fields.get(1), fields.get(2))
    else {
        return Ok(());
    };
    let key = String::from_utf8_lossy(key).to_string();
    let blob = resources
        .get(&key)
        .ok_or_else(|| format!("dense_resource `{key}` has no blob in the file"))?;
    let hex = blob.strip_prefix(b"0x").unwrap_or(blob);
    let mut data = decode_hex(hex).map_err(|_| format!("dense_resource `{key}` is not hex"))?;
    if data.len() < 4 {
        return Err(format!("dense_resource `{key}` is too short"));
    }
    let ty = ty.clone();
    let (count, size) = match &ty {
        Type::Tensor { element, dims } => (
            dims.iter().map(|d| d.unwrap_or(0)).product::<i64>(),
            element_size(element).unwrap_or(0),
        ),
        _ => (0, 0),
    };
    let bytes = data.split_off(4);
    if bytes.len() as i64 != count * size as i64 {
        return Err(format!(
            "dense_resource `{key}` holds {} bytes, its type needs {}",
            bytes.len(),
            count * size as i64
        ));
    }
    *attr = Attr::Dense {
        ty,
        bytes,
        splat: false,
    };
    Ok(())
}

/// A result type's element type, for ops whose region argument types
/// are the scalars of their operands (`applies` reducers).
pub(crate) fn scalar_of(ty: &Type) -> Type {
    match ty {
        Type::Tensor { element, .. } => Type::Tensor {
            element: element.clone(),
            dims: Vec::new(),
        },
        other => other.clone(),
    }
}
