//! The IR section: operations, regions and blocks, with MLIR's value
//! numbering (one value table per isolated-from-above region, each region
//! reserving its values; operands may refer forward).

use super::attrs::Tables;
use super::vhlo;
use super::{BytecodeError, Cur, File, Result, MAX_DEPTH};
use crate::mlir::ir::{Attr, Block, Location, Module, Operation, Region, Type, Value};

/// Op encoding mask bits.
const HAS_ATTRS: u8 = 0x01;
const HAS_RESULTS: u8 = 0x02;
const HAS_OPERANDS: u8 = 0x04;
const HAS_SUCCESSORS: u8 = 0x08;
const HAS_INLINE_REGIONS: u8 = 0x10;
const HAS_USE_LIST_ORDERS: u8 = 0x20;
const HAS_PROPERTIES: u8 = 0x40;

/// One value slot: the value assigned to it, and whether it is defined yet
/// (an operand may name a slot before its definition).
#[derive(Copy, Clone)]
struct Slot {
    value: Option<Value>,
    defined: bool,
}

/// The values of one isolated-from-above region tree.
struct Scope {
    slots: Vec<Slot>,
    next: Vec<usize>,
    counter: u32,
}

impl Scope {
    fn new() -> Self {
        Scope {
            slots: Vec::new(),
            next: Vec::new(),
            counter: 0,
        }
    }

    fn fresh(&mut self) -> Value {
        let v = Value(self.counter);
        self.counter = self.counter.wrapping_add(1);
        v
    }

    fn push(&mut self, n: usize) {
        self.next.push(self.slots.len());
        self.slots.resize(
            self.slots.len() + n,
            Slot {
                value: None,
                defined: false,
            },
        );
    }

    fn pop(&mut self, n: usize, at: &Cur<'_>) -> Result<()> {
        let start = self.slots.len() - n;
        if self.slots[start..]
            .iter()
            .any(|s| s.value.is_some() && !s.defined)
        {
            return Err(at.malformed(
                "region",
                "an operand refers to a value that is never defined",
            ));
        }
        self.slots.truncate(start);
        self.next.pop();
        Ok(())
    }

    fn define(&mut self, at: &Cur<'_>) -> Result<Value> {
        let Some(id) = self.next.last_mut() else {
            return Err(at.malformed("op", "value defined outside a region"));
        };
        let slot = *id;
        *id += 1;
        let Some(s) = self.slots.get(slot).copied() else {
            return Err(at.malformed("op", "more values defined than the region declares"));
        };
        let v = match s.value {
            Some(v) => v,
            None => self.fresh(),
        };
        self.slots[slot] = Slot {
            value: Some(v),
            defined: true,
        };
        Ok(v)
    }

    fn operand(&mut self, c: &mut Cur<'_>) -> Result<Value> {
        let i = c.index(self.slots.len(), "operand")?;
        match self.slots[i].value {
            Some(v) => Ok(v),
            None => {
                let v = self.fresh();
                self.slots[i].value = Some(v);
                Ok(v)
            }
        }
    }
}

/// An op as read, before the VHLO mapping: its name, attributes (properties
/// first, in the op's declaration order, then the discardable ones), types
/// and regions.
pub(crate) struct RawOp {
    pub dialect: String,
    pub name: String,
    pub attrs: Vec<(String, Attr)>,
    pub operands: Vec<Value>,
    pub results: Vec<(Value, Type)>,
    pub regions: Vec<Region>,
    pub loc: Option<Location>,
}

struct Reader<'f, 'a> {
    file: &'f File<'a>,
    tables: Tables<'f, 'a>,
    scopes: Vec<Scope>,
    depth: usize,
}

/// Reads the IR section of `file` into a module.
pub(crate) fn read_module(file: &File<'_>) -> Result<Module> {
    let mut r = Reader {
        file,
        tables: Tables::new(file),
        scopes: vec![Scope::new()],
        depth: 0,
    };
    let mut c = file.ir.clone();
    // The top-level block: no values of its own.
    r.scopes[0].push(0);
    let block = r.block(&mut c, 0, "")?;
    if !c.is_empty() {
        return Err(c.malformed("IR section", "trailing data"));
    }
    let mut ops = block.ops;
    if ops.len() == 1 && ops[0].name == "builtin.module" {
        let m = ops.remove(0);
        let name = match m.attr("sym_name") {
            Some(Attr::String(s)) => Some(String::from_utf8_lossy(s).into_owned()),
            _ => None,
        };
        let attrs = m
            .attrs
            .into_iter()
            .filter(|(n, _)| n != "sym_name" && n != "sym_visibility")
            .collect();
        let ops = m
            .regions
            .into_iter()
            .flat_map(|r| r.blocks)
            .flat_map(|b| b.ops)
            .collect();
        return Ok(Module { name, attrs, ops });
    }
    Ok(Module {
        name: None,
        attrs: Vec::new(),
        ops,
    })
}

impl<'f, 'a> Reader<'f, 'a> {
    fn scope(&mut self) -> &mut Scope {
        self.scopes
            .last_mut()
            .expect("a value scope is always open")
    }

    /// A block: header, arguments, use-list orders and `n` ops.
    fn block(&mut self, c: &mut Cur<'_>, num_values: usize, parent: &str) -> Result<Block> {
        let (num_ops, has_args) = c.varint_flag()?;
        let mut block = Block::default();
        if has_args {
            let n = c.count("block arguments")?;
            for _ in 0..n {
                let at = c.clone();
                let (ty, has_loc) = c.varint_flag()?;
                let ty = self
                    .tables
                    .type_at(usize::try_from(ty).unwrap_or(usize::MAX), &at)?;
                if has_loc {
                    self.tables.loc(c)?;
                }
                if num_values == 0 {
                    return Err(at.malformed("block", "arguments in a region without values"));
                }
                let v = self.scope().define(&at)?;
                block.args.push((v, ty));
            }
            if c.byte()? != 0 {
                use_list_orders(c, n)?;
            }
        }
        if num_ops > c.remaining() as u64 {
            return Err(c.malformed("block", format!("{num_ops} ops in {} bytes", c.remaining())));
        }
        for _ in 0..num_ops {
            let op = self.op(c, num_values, parent)?;
            block.ops.push(op);
        }
        Ok(block)
    }

    /// A region: block count, value count, blocks.
    fn region(&mut self, c: &mut Cur<'_>, parent: &str) -> Result<Region> {
        let num_blocks = c.count("region")?;
        if num_blocks == 0 {
            return Ok(Region::default());
        }
        let num_values = c.count("region values")?;
        self.scope().push(num_values);
        let mut region = Region::default();
        for _ in 0..num_blocks {
            region.blocks.push(self.block(c, num_values, parent)?);
        }
        let at = c.clone();
        self.scope().pop(num_values, &at)?;
        Ok(region)
    }

    fn op(&mut self, c: &mut Cur<'_>, num_values: usize, parent: &str) -> Result<Operation> {
        let at = c.clone();
        let name = &self.file.op_names[c.index(self.file.op_names.len(), "op name")?];
        let dialect = self.file.dialects[name.dialect].clone();
        let op_name = name.name.clone();
        let registered = name.registered;
        let full = format!("{dialect}.{op_name}");
        let mask = c.byte()?;
        let loc = self.tables.loc(c)?;
        let mut props = Vec::new();
        let mut discardable = Vec::new();
        if mask & HAS_ATTRS != 0 {
            let a = c.clone();
            match self.tables.attr(c)? {
                Attr::Dict(d) => discardable = d,
                other => {
                    return Err(a.malformed(
                        "op attributes",
                        format!("{full}: not a dictionary: {other:?}"),
                    ))
                }
            }
        }
        if mask & HAS_PROPERTIES != 0 {
            if registered {
                let i = c.index(self.file.props.len(), "properties")?;
                let mut p = self.file.props[i].clone();
                props = self.properties(&mut p, &dialect, &op_name, &at)?;
                if !p.is_empty() {
                    return Err(p.malformed("properties", format!("{full}: trailing bytes")));
                }
            } else {
                let a = c.clone();
                match self.tables.attr(c)? {
                    Attr::Dict(d) => props = d,
                    other => {
                        return Err(a.malformed(
                            "properties",
                            format!("{full}: not a dictionary: {other:?}"),
                        ))
                    }
                }
            }
        }
        let mut types = Vec::new();
        if mask & HAS_RESULTS != 0 {
            let n = c.count("op results")?;
            for _ in 0..n {
                types.push(self.tables.ty(c)?);
            }
        }
        let mut operands = Vec::new();
        if mask & HAS_OPERANDS != 0 {
            let n = c.count("op operands")?;
            for _ in 0..n {
                let v = self.scope().operand(c)?;
                operands.push(v);
            }
        }
        if mask & HAS_SUCCESSORS != 0 {
            return Err(at.unsupported("op", format!("{full} has successor blocks")));
        }
        if mask & HAS_USE_LIST_ORDERS != 0 {
            use_list_orders(c, types.len())?;
        }
        let (num_regions, isolated) = if mask & HAS_INLINE_REGIONS != 0 {
            let (n, iso) = c.varint_flag()?;
            if n > c.remaining() as u64 {
                return Err(c.malformed("op regions", format!("{n} regions")));
            }
            (n as usize, iso)
        } else {
            (0, false)
        };
        let mut results = Vec::with_capacity(types.len());
        for t in types {
            if num_values == 0 {
                return Err(
                    at.malformed("op", format!("{full}: results in a region without values"))
                );
            }
            let v = self.scope().define(&at)?;
            results.push((v, t));
        }
        let mut regions = Vec::new();
        if num_regions > 0 {
            if self.depth >= MAX_DEPTH {
                return Err(BytecodeError::TooDeep {
                    offset: at.offset(),
                    what: "regions",
                });
            }
            self.depth += 1;
            let r = self.regions(c, num_regions, isolated, &full);
            self.depth -= 1;
            regions = r?;
        }
        let mut attrs = props;
        attrs.extend(discardable);
        vhlo::convert(
            RawOp {
                dialect,
                name: op_name,
                attrs,
                operands,
                results,
                regions,
                loc,
            },
            parent,
            &mut self.tables,
            &at,
        )
    }

    fn regions(
        &mut self,
        c: &mut Cur<'_>,
        n: usize,
        isolated: bool,
        parent: &str,
    ) -> Result<Vec<Region>> {
        let mut out = Vec::with_capacity(n);
        if isolated {
            let (id, mut sub) = c.section()?;
            if id != super::section::IR {
                return Err(c.malformed("region", "an isolated region is not in an IR section"));
            }
            // Values are numbered per function: a function (or the module)
            // starts from 0, other isolated regions continue the count.
            let restart = matches!(parent, "vhlo.func_v1" | "builtin.module");
            let mut scope = Scope::new();
            if !restart {
                scope.counter = self.scope().counter;
            }
            self.scopes.push(scope);
            let mut result = Ok(());
            for _ in 0..n {
                match self.region(&mut sub, parent) {
                    Ok(r) => out.push(r),
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            let counter = self.scopes.pop().map_or(0, |s| s.counter);
            if !restart {
                self.scope().counter = counter;
            }
            result?;
            if !sub.is_empty() {
                return Err(sub.malformed("region", "trailing data in the region's section"));
            }
        } else {
            for _ in 0..n {
                out.push(self.region(c, parent)?);
            }
        }
        Ok(out)
    }

    /// Properties of a registered op: its inherent attributes as attribute
    /// references, in the alphabetical order of their names.
    fn properties(
        &mut self,
        p: &mut Cur<'_>,
        dialect: &str,
        op: &str,
        at: &Cur<'_>,
    ) -> Result<Vec<(String, Attr)>> {
        match (dialect, op) {
            ("builtin", "module") => {
                let mut out = Vec::new();
                for name in ["sym_name", "sym_visibility"] {
                    let (i, present) = p.varint_flag()?;
                    if present {
                        let pat = p.clone();
                        let d = self
                            .tables
                            .attr_entry(usize::try_from(i).unwrap_or(usize::MAX), &pat)?;
                        if let super::attrs::Decoded::Attr(a) = &*d {
                            out.push((name.to_string(), a.clone()));
                        }
                    }
                }
                Ok(out)
            }
            ("vhlo", _) | ("sdy", _) => {
                let names = if dialect == "vhlo" {
                    vhlo::attribute_names(op)
                } else {
                    SDY_OPS.iter().find(|(n, _)| *n == op).map(|(_, a)| *a)
                }
                .ok_or_else(|| at.unsupported("op properties", format!("{dialect}.{op}")))?;
                let mut sorted: Vec<&str> = names.to_vec();
                sorted.sort_unstable();
                let mut read = Vec::with_capacity(sorted.len());
                for name in sorted {
                    read.push((name, self.tables.attr(p)?));
                }
                // Back to declaration order.
                Ok(names
                    .iter()
                    .filter_map(|n| read.iter().position(|(m, _)| m == n))
                    .map(|i| (read[i].0.to_string(), read[i].1.clone()))
                    .collect())
            }
            _ => Err(at.unsupported("op properties", format!("{dialect}.{op}"))),
        }
    }
}

/// The Shardy ops JAX writes next to VHLO ones, with their (required)
/// inherent attributes.
const SDY_OPS: &[(&str, &[&str])] = &[
    ("mesh", &["sym_name", "mesh"]),
    (
        "manual_computation",
        &["in_shardings", "out_shardings", "manual_axes"],
    ),
    ("sharding_constraint", &["sharding"]),
    ("reshard", &["sharding"]),
];

/// Skips use-list orders for a range of `n` values.
fn use_list_orders(c: &mut Cur<'_>, n: usize) -> Result<()> {
    let count = if n > 1 {
        c.count("use-list orders")?
    } else {
        1
    };
    for _ in 0..count {
        if n > 1 {
            c.varint()?;
        }
        let (k, _) = c.varint_flag()?;
        if k > c.remaining() as u64 {
            return Err(c.malformed("use-list order", format!("{k} indices")));
        }
        for _ in 0..k {
            c.varint()?;
        }
    }
    Ok(())
}
