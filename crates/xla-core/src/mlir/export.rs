//! `jax.export` artifacts: the FlatBuffer `jax.export.Exported.serialize()`
//! writes (`jax/_src/export/serialization.fbs`, read here with hand-written,
//! bounds-checked accessors), its StableHLO module decoded with
//! [`read_bytecode`](super::bytecode::read_bytecode).
//!
//! Both layouts of the avals and shardings are read: the older per-argument
//! tables (`in_avals`, `in_shardings`) and, from serialization version 10,
//! the index vectors into the de-duplicated `unique_avals` /
//! `unique_named_shardings` tables.

use super::bytecode::{self, BytecodeError, VhloVersion};
use super::ir;
use crate::PrimitiveType;

/// Why a `jax.export` artifact could not be read.
#[derive(Clone, PartialEq, Debug, thiserror::Error)]
pub enum ExportError {
    /// The FlatBuffer is malformed: an offset or length points outside the
    /// data, or a required field is missing.
    #[error("at byte {offset}: malformed jax.export FlatBuffer: {detail}")]
    Malformed {
        /// Where the bad table, vector or field is.
        offset: usize,
        /// What is wrong.
        detail: String,
    },
    /// A dtype code this reader does not know.
    #[error("unknown dtype code {0}")]
    UnknownDType(i8),
    /// The embedded StableHLO module could not be decoded.
    #[error("the module: {0}")]
    Module(#[from] BytecodeError),
}

type Result<T> = std::result::Result<T, ExportError>;

/// An element type of `jax.export`'s `DType` enum.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum DType {
    /// An element type the HLO side has (`bool` is `pred`, `i32` is `s32`).
    Known(PrimitiveType),
    /// Any other dtype, by its jax.export name (`f8_e4m3fn`, `i4`,
    /// `key<fry>`, `f0`, …).
    Other(&'static str),
}

impl DType {
    fn from_code(code: i8) -> Result<DType> {
        use PrimitiveType as P;
        let known = |p| Ok(DType::Known(p));
        match code {
            0 => known(P::Pred),
            1 => known(P::S8),
            2 => known(P::S16),
            3 => known(P::S32),
            4 => known(P::S64),
            5 => known(P::U8),
            6 => known(P::U16),
            7 => known(P::U32),
            8 => known(P::U64),
            9 => known(P::F16),
            10 => known(P::F32),
            11 => known(P::F64),
            12 => known(P::C64),
            13 => known(P::C128),
            14 => known(P::Bf16),
            _ => {
                const OTHER: [&str; 15] = [
                    "i4",
                    "ui4",
                    "f8_e4m3b11fnuz",
                    "f8_e4m3fn",
                    "f8_e4m3fnuz",
                    "f8_e5m2",
                    "f8_e5m2fnuz",
                    "f0",
                    "f8_e4m3",
                    "f8_e3m4",
                    "f8_e8m0fnu",
                    "f4_e2m1fn",
                    "key<fry>",
                    "key<rbg>",
                    "key<unsafe_rbg>",
                ];
                usize::try_from(i16::from(code) - 15)
                    .ok()
                    .and_then(|i| OTHER.get(i))
                    .map(|n| DType::Other(n))
                    .ok_or(ExportError::UnknownDType(code))
            }
        }
    }

    /// The HLO name (`pred`, `s32`, `bf16`, `c64`) or the jax.export name.
    pub fn name(self) -> &'static str {
        match self {
            DType::Known(p) => p.name(),
            DType::Other(n) => n,
        }
    }
}

/// An abstract value: a shaped array (or a token).
#[derive(Clone, PartialEq, Debug)]
pub struct Aval {
    /// `false` for an abstract token.
    pub is_array: bool,
    /// The dimensions as JAX writes them: integers (`"4"`) or symbolic
    /// expressions (`"b"`, `"2*b + 1"`).
    pub shape: Vec<String>,
    /// The element type.
    pub dtype: DType,
    /// The memory space code (0 absent, 1 device, 2 host, 3 any).
    pub memory_space: i8,
}

impl Aval {
    /// The dimensions, `None` where symbolic.
    pub fn dims(&self) -> Vec<Option<i64>> {
        self.shape
            .iter()
            .map(|d| d.trim().parse::<i64>().ok())
            .collect()
    }
}

/// A pytree definition: how the flat argument or result list nests.
#[derive(Clone, PartialEq, Debug)]
pub struct PyTreeDef {
    /// The node kind code: 0 leaf, 1 none, 2 tuple, 3 list, 4 dict,
    /// 5 custom.
    pub kind: i8,
    /// The children.
    pub children: Vec<PyTreeDef>,
    /// The dict keys (or custom node names) of the children.
    pub children_names: Vec<String>,
    /// The registered name of a custom node.
    pub custom_name: Option<String>,
}

impl PyTreeDef {
    /// The number of leaves: the length of the flat list.
    pub fn num_leaves(&self) -> usize {
        match self.kind {
            0 => 1,
            _ => self.children.iter().map(PyTreeDef::num_leaves).sum(),
        }
    }
}

/// A named sharding: a mesh and a partition spec.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct NamedSharding {
    /// The mesh axis names.
    pub axis_names: Vec<String>,
    /// The mesh axis sizes.
    pub axis_sizes: Vec<u32>,
    /// For each array dimension, the mesh axes it is split over.
    pub partitions: Vec<Vec<String>>,
    /// The memory kind, when set.
    pub memory_kind: Option<String>,
}

impl NamedSharding {
    /// The HLO sharding string (`{replicated}`,
    /// `{devices=[2,1]<=[2]}`, `{devices=[2,1,2]<=[2,2]T(1,0)
    /// last_tile_dim_replicate}`): dimensions split over mesh axes in
    /// the spec's order, the unused axes replicated.
    pub fn hlo_sharding(&self, rank: usize) -> Option<String> {
        let axis = |n: &String| self.axis_names.iter().position(|a| a == n);
        let mut used: Vec<usize> = Vec::new();
        let mut tiles = vec![1u64; rank.max(self.partitions.len())];
        for (d, axes) in self.partitions.iter().enumerate() {
            for a in axes {
                let i = axis(a)?;
                if used.contains(&i) {
                    return None;
                }
                used.push(i);
                tiles[d] = tiles[d].saturating_mul(u64::from(*self.axis_sizes.get(i)?));
            }
        }
        if used.is_empty() {
            return Some("{replicated}".into());
        }
        let unused: Vec<usize> = (0..self.axis_sizes.len())
            .filter(|i| !used.contains(i))
            .collect();
        let replicated = unused
            .iter()
            .map(|&i| self.axis_sizes.get(i).map_or(1, |&s| u64::from(s)))
            .fold(1u64, u64::saturating_mul);
        let mut perm = used.clone();
        perm.extend(&unused);
        let join = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(",");
        let mut dims: Vec<String> = tiles.iter().map(u64::to_string).collect();
        if replicated > 1 {
            dims.push(replicated.to_string());
        }
        // Without a transpose the iota's shape is just the device count
        // (`<=[8]`, as XLA writes it); with one, the mesh's shape.
        let transposed = perm.iter().enumerate().any(|(i, &p)| i != p);
        let iota = match transposed {
            true => join(&mut self.axis_sizes.iter().map(u32::to_string)),
            false => (self.axis_sizes.iter().map(|&s| u64::from(s)))
                .fold(1u64, u64::saturating_mul)
                .to_string(),
        };
        let mut s = format!("{{devices=[{}]<=[{iota}]", dims.join(","));
        if transposed {
            s.push_str(&format!(
                "T({})",
                join(&mut perm.iter().map(usize::to_string))
            ));
        }
        if replicated > 1 {
            s.push_str(" last_tile_dim_replicate");
        }
        s.push('}');
        Some(s)
    }
}

/// The sharding of one argument or result.
#[derive(Clone, PartialEq, Debug)]
pub enum Sharding {
    /// No sharding was specified.
    Unspecified,
    /// An `xla.OpSharding` protocol buffer (artifacts older than version 9).
    HloProto(Vec<u8>),
    /// A named sharding (artifacts from version 6).
    Named(NamedSharding),
}

impl Sharding {
    /// The HLO sharding string of an array of `rank` dimensions: `None`
    /// when unspecified, stored as a protocol buffer, or not expressible.
    pub fn hlo_sharding(&self, rank: usize) -> Option<String> {
        match self {
            Sharding::Named(n) => n.hlo_sharding(rank),
            _ => None,
        }
    }
}

/// A safety check disabled at export time.
#[derive(Clone, PartialEq, Debug)]
pub enum DisabledCheck {
    /// The platform check.
    Platform,
    /// The check that a custom call target is known stable.
    CustomCall(String),
    /// Shape assertions.
    ShapeAssertions,
}

/// A deserialized `jax.export.Exported`.
#[derive(Clone, PartialEq, Debug)]
pub struct Exported {
    /// The `serialization_version` field (JAX stores 3 for every version
    /// that reads as 3).
    pub serialization_version: u16,
    /// The exported function's name (`jit_f`).
    pub function_name: String,
    /// How the flat arguments nest (`(args, kwargs)`).
    pub in_tree: PyTreeDef,
    /// How the flat results nest.
    pub out_tree: PyTreeDef,
    /// The flat arguments' abstract values, in order.
    pub in_avals: Vec<Aval>,
    /// The flat results' abstract values, in order.
    pub out_avals: Vec<Aval>,
    /// The flat arguments' shardings (empty when none were stored).
    pub in_shardings: Vec<Sharding>,
    /// The flat results' shardings.
    pub out_shardings: Vec<Sharding>,
    /// The number of devices the module was lowered for.
    pub nr_devices: u32,
    /// The platforms the module was lowered for (`cpu`, `cuda`, …).
    pub platforms: Vec<String>,
    /// The ordered effects, by type name.
    pub ordered_effects: Vec<String>,
    /// The unordered effects, by type name.
    pub unordered_effects: Vec<String>,
    /// The safety checks disabled at export time.
    pub disabled_checks: Vec<DisabledCheck>,
    /// The calling convention (`mlir_module_serialization_version`) of the
    /// module.
    pub calling_convention_version: u16,
    /// Which flat arguments the module keeps (the others were unused and
    /// dropped).
    pub module_kept_var_idx: Vec<u16>,
    /// Whether the module uses global constants for symbolic dimensions.
    pub uses_global_constants: bool,
    /// The producer string of the embedded bytecode (`StableHLO_v1.15.0`).
    pub producer: String,
    /// The VHLO version of the embedded bytecode.
    pub vhlo_version: VhloVersion,
    /// The embedded portable artifact, as stored.
    pub mlir_module_serialized: Vec<u8>,
    /// The decoded StableHLO module.
    pub module: ir::Module,
}

/// Reads a `jax.export` artifact (`Exported.serialize()` output) and
/// decodes its StableHLO module. The `vjp` field is ignored.
pub fn read_jax_export(bytes: &[u8]) -> Result<Exported> {
    let buf = Buf(bytes);
    let root = buf.root()?;
    let unique_avals = root
        .tables(42)?
        .iter()
        .map(|t| aval(t))
        .collect::<Result<Vec<_>>>()?;
    let unique_meshes = root.tables(44)?;
    let unique_shardings = root
        .tables(46)?
        .iter()
        .map(|t| named_sharding(t, &unique_meshes))
        .collect::<Result<Vec<_>>>()?;
    let by_index = |field: u16, list_field: u16| -> Result<Vec<Aval>> {
        let idx = root.u32s(field)?;
        if idx.is_empty() {
            return root.tables(list_field)?.iter().map(|t| aval(t)).collect();
        }
        idx.iter()
            .map(|&i| {
                unique_avals
                    .get(i as usize)
                    .cloned()
                    .ok_or_else(|| ExportError::Malformed {
                        offset: root.pos,
                        detail: format!("aval index {i} out of range"),
                    })
            })
            .collect()
    };
    let shardings = |field: u16, list_field: u16| -> Result<Vec<Sharding>> {
        let idx = root.u32s(field)?;
        if idx.is_empty() {
            return root
                .tables(list_field)?
                .iter()
                .map(|t| sharding(t, &unique_meshes))
                .collect();
        }
        idx.iter()
            .map(|&i| match i {
                0 => Ok(Sharding::Unspecified),
                i => unique_shardings
                    .get(i as usize - 1)
                    .cloned()
                    .map(Sharding::Named)
                    .ok_or_else(|| ExportError::Malformed {
                        offset: root.pos,
                        detail: format!("sharding index {i} out of range"),
                    }),
            })
            .collect()
    };
    let module_bytes = root.bytes(30)?.ok_or_else(|| ExportError::Malformed {
        offset: root.pos,
        detail: "no mlir_module_serialized".into(),
    })?;
    let (producer, vhlo_version) = bytecode::portable_artifact_version(module_bytes)?;
    let module = bytecode::read_bytecode(module_bytes)?;
    let nr_devices = match root.scalar::<4>(40)? {
        Some(b) => u32::from_le_bytes(b),
        None => root
            .scalar::<2>(16)?
            .map_or(0, |b| i16::from_le_bytes(b).max(0) as u32),
    };
    let mut budget = bytes.len();
    Ok(Exported {
        serialization_version: root.scalar::<2>(4)?.map_or(0, u16::from_le_bytes),
        function_name: root.string(6)?.unwrap_or_default(),
        in_tree: pytree(
            &root.table(8)?.ok_or_else(|| root.missing("in_tree"))?,
            0,
            &mut budget,
        )?,
        out_tree: pytree(
            &root.table(12)?.ok_or_else(|| root.missing("out_tree"))?,
            0,
            &mut budget,
        )?,
        in_avals: by_index(48, 10)?,
        out_avals: by_index(50, 14)?,
        in_shardings: shardings(52, 18)?,
        out_shardings: shardings(54, 20)?,
        nr_devices,
        platforms: root.strings(22)?,
        ordered_effects: root
            .tables(24)?
            .iter()
            .map(|t| Ok(t.string(4)?.unwrap_or_default()))
            .collect::<Result<_>>()?,
        unordered_effects: root
            .tables(26)?
            .iter()
            .map(|t| Ok(t.string(4)?.unwrap_or_default()))
            .collect::<Result<_>>()?,
        disabled_checks: root
            .tables(28)?
            .iter()
            .map(|t| {
                Ok(match t.scalar::<1>(4)?.map_or(0, |b| b[0]) {
                    0 => DisabledCheck::Platform,
                    1 => DisabledCheck::CustomCall(t.string(6)?.unwrap_or_default()),
                    _ => DisabledCheck::ShapeAssertions,
                })
            })
            .collect::<Result<_>>()?,
        calling_convention_version: root.scalar::<2>(32)?.map_or(0, u16::from_le_bytes),
        module_kept_var_idx: root.u16s(34)?,
        uses_global_constants: root.scalar::<1>(36)?.is_some_and(|b| b[0] != 0),
        producer,
        vhlo_version,
        mlir_module_serialized: module_bytes.to_vec(),
        module,
    })
}

/// How deeply pytrees may nest.
const MAX_TREE_DEPTH: usize = 256;

/// Decodes a pytree; `budget` bounds the nodes decoded (children may share
/// tables, which would otherwise expand exponentially).
fn pytree(t: &Table<'_>, depth: usize, budget: &mut usize) -> Result<PyTreeDef> {
    if depth > MAX_TREE_DEPTH || *budget == 0 {
        return Err(ExportError::Malformed {
            offset: t.pos,
            detail: "pytree nests too deeply or has too many nodes".into(),
        });
    }
    *budget -= 1;
    Ok(PyTreeDef {
        kind: t.scalar::<1>(4)?.map_or(0, |b| b[0] as i8),
        children: t
            .tables(6)?
            .iter()
            .map(|c| pytree(c, depth + 1, budget))
            .collect::<Result<_>>()?,
        children_names: t.strings(8)?,
        custom_name: t.string(10)?,
    })
}

fn aval(t: &Table<'_>) -> Result<Aval> {
    Ok(Aval {
        is_array: t.scalar::<1>(4)?.map_or(0, |b| b[0]) == 0,
        shape: t.strings(6)?,
        dtype: DType::from_code(t.scalar::<1>(8)?.map_or(0, |b| b[0] as i8))?,
        memory_space: t.scalar::<1>(10)?.map_or(0, |b| b[0] as i8),
    })
}

fn mesh(t: &Table<'_>, ns: &mut NamedSharding) -> Result<()> {
    ns.axis_sizes = t.u32s(4)?;
    ns.axis_names = t.strings(6)?;
    if ns.axis_sizes.len() != ns.axis_names.len() {
        return Err(ExportError::Malformed {
            offset: t.pos,
            detail: "mesh axis names and sizes differ in length".into(),
        });
    }
    Ok(())
}

fn named_sharding(t: &Table<'_>, meshes: &[Table<'_>]) -> Result<NamedSharding> {
    let mut ns = NamedSharding::default();
    if meshes.is_empty() {
        if let Some(m) = t.table(4)? {
            mesh(&m, &mut ns)?;
        }
    } else {
        let i = t.scalar::<4>(10)?.map_or(0, u32::from_le_bytes) as usize;
        let m = meshes.get(i).ok_or_else(|| ExportError::Malformed {
            offset: t.pos,
            detail: format!("abstract mesh index {i} out of range"),
        })?;
        mesh(m, &mut ns)?;
    }
    if let Some(spec) = t.table(6)? {
        ns.partitions = spec
            .tables(4)?
            .iter()
            .map(|p| p.strings(4))
            .collect::<Result<_>>()?;
    }
    ns.memory_kind = t.string(8)?;
    Ok(ns)
}

fn sharding(t: &Table<'_>, meshes: &[Table<'_>]) -> Result<Sharding> {
    Ok(match t.scalar::<1>(4)?.map_or(0, |b| b[0]) {
        1 => Sharding::HloProto(t.bytes(6)?.unwrap_or_default().to_vec()),
        2 => match t.table(8)? {
            Some(n) => Sharding::Named(named_sharding(&n, meshes)?),
            None => Sharding::Unspecified,
        },
        _ => Sharding::Unspecified,
    })
}

/// The whole FlatBuffer.
#[derive(Copy, Clone)]
struct Buf<'a>(&'a [u8]);

/// A table: its position in the buffer and its vtable's.
#[derive(Copy, Clone)]
struct Table<'a> {
    buf: Buf<'a>,
    pos: usize,
    vtable: usize,
    vtable_len: usize,
}

impl<'a> Buf<'a> {
    fn err(&self, offset: usize, detail: impl Into<String>) -> ExportError {
        ExportError::Malformed {
            offset,
            detail: detail.into(),
        }
    }

    fn get<const N: usize>(&self, at: usize) -> Result<[u8; N]> {
        at.checked_add(N)
            .and_then(|end| self.0.get(at..end))
            .map(|s| s.try_into().expect("slice of length N"))
            .ok_or_else(|| {
                self.err(
                    at,
                    format!("{N}-byte read past the end ({} bytes)", self.0.len()),
                )
            })
    }

    fn u32(&self, at: usize) -> Result<usize> {
        Ok(u32::from_le_bytes(self.get::<4>(at)?) as usize)
    }

    /// Follows the unsigned offset stored at `at`.
    fn follow(&self, at: usize) -> Result<usize> {
        let target = at + self.u32(at)?;
        if target >= self.0.len() {
            return Err(self.err(at, "offset points past the end"));
        }
        Ok(target)
    }

    fn table_at(&self, pos: usize) -> Result<Table<'a>> {
        let soff = i32::from_le_bytes(self.get::<4>(pos)?) as i64;
        let vtable = pos as i64 - soff;
        if vtable < 0 || vtable as usize >= self.0.len() {
            return Err(self.err(pos, "vtable outside the buffer"));
        }
        let vtable = vtable as usize;
        let vtable_len = u16::from_le_bytes(self.get::<2>(vtable)?) as usize;
        if vtable_len < 4 || !vtable_len.is_multiple_of(2) {
            return Err(self.err(vtable, format!("vtable length {vtable_len}")));
        }
        self.get::<2>(vtable + vtable_len - 2)?;
        Ok(Table {
            buf: *self,
            pos,
            vtable,
            vtable_len,
        })
    }

    fn root(&self) -> Result<Table<'a>> {
        let pos = self.follow(0)?;
        self.table_at(pos)
    }

    /// A vector at `pos`: its element start and length, each element `size`
    /// bytes.
    fn vector(&self, pos: usize, size: usize) -> Result<(usize, usize)> {
        let len = self.u32(pos)?;
        let start = pos + 4;
        if len
            .checked_mul(size)
            .and_then(|b| b.checked_add(start))
            .is_none_or(|end| end > self.0.len())
        {
            return Err(self.err(pos, format!("vector of {len} elements past the end")));
        }
        Ok((start, len))
    }
}

impl<'a> Table<'a> {
    fn missing(&self, field: &str) -> ExportError {
        self.buf
            .err(self.pos, format!("required field {field} is missing"))
    }

    /// The absolute position of field `voffset`, when present.
    fn field(&self, voffset: u16) -> Result<Option<usize>> {
        let voffset = voffset as usize;
        if voffset + 2 > self.vtable_len {
            return Ok(None);
        }
        let rel = u16::from_le_bytes(self.buf.get::<2>(self.vtable + voffset)?) as usize;
        Ok((rel != 0).then_some(self.pos + rel))
    }

    fn scalar<const N: usize>(&self, voffset: u16) -> Result<Option<[u8; N]>> {
        match self.field(voffset)? {
            Some(at) => Ok(Some(self.buf.get::<N>(at)?)),
            None => Ok(None),
        }
    }

    fn table(&self, voffset: u16) -> Result<Option<Table<'a>>> {
        match self.field(voffset)? {
            Some(at) => Ok(Some(self.buf.table_at(self.buf.follow(at)?)?)),
            None => Ok(None),
        }
    }

    fn bytes(&self, voffset: u16) -> Result<Option<&'a [u8]>> {
        match self.field(voffset)? {
            Some(at) => {
                let (start, len) = self.buf.vector(self.buf.follow(at)?, 1)?;
                Ok(Some(&self.buf.0[start..start + len]))
            }
            None => Ok(None),
        }
    }

    fn string(&self, voffset: u16) -> Result<Option<String>> {
        Ok(self
            .bytes(voffset)?
            .map(|b| String::from_utf8_lossy(b).into_owned()))
    }

    /// The element positions of a vector of offsets.
    fn offsets(&self, voffset: u16) -> Result<Vec<usize>> {
        let Some(at) = self.field(voffset)? else {
            return Ok(Vec::new());
        };
        let (start, len) = self.buf.vector(self.buf.follow(at)?, 4)?;
        (0..len).map(|i| self.buf.follow(start + 4 * i)).collect()
    }

    fn tables(&self, voffset: u16) -> Result<Vec<Table<'a>>> {
        self.offsets(voffset)?
            .into_iter()
            .map(|p| self.buf.table_at(p))
            .collect()
    }

    fn strings(&self, voffset: u16) -> Result<Vec<String>> {
        self.offsets(voffset)?
            .into_iter()
            .map(|p| {
                let (start, len) = self.buf.vector(p, 1)?;
                Ok(String::from_utf8_lossy(&self.buf.0[start..start + len]).into_owned())
            })
            .collect()
    }

    fn u32s(&self, voffset: u16) -> Result<Vec<u32>> {
        let Some(at) = self.field(voffset)? else {
            return Ok(Vec::new());
        };
        let (start, len) = self.buf.vector(self.buf.follow(at)?, 4)?;
        (0..len)
            .map(|i| Ok(u32::from_le_bytes(self.buf.get::<4>(start + 4 * i)?)))
            .collect()
    }

    fn u16s(&self, voffset: u16) -> Result<Vec<u16>> {
        let Some(at) = self.field(voffset)? else {
            return Ok(Vec::new());
        };
        let (start, len) = self.buf.vector(self.buf.follow(at)?, 2)?;
        (0..len)
            .map(|i| Ok(u16::from_le_bytes(self.buf.get::<2>(start + 2 * i)?)))
            .collect()
    }
}
