//! Layouts: how an array's elements are placed in linear memory.
//!
//! A layout is a `minor_to_major` permutation, optionally padded dimensions
//! with a padding value, and optionally a list of tiles applied in order
//! (see `docs/semantics.md`, *Layouts and tiles*). [`IndexMap`] turns
//! a layout into the mapping between multi-indices and buffer offsets.
//!
//! Text syntax, inside a shape's braces:
//!
//! | text | meaning |
//! |---|---|
//! | `{1,0}` | `minor_to_major = [1, 0]` (row-major at rank 2) |
//! | `{1,0:T(2,2)}` | one 2×2 tile over the two most-minor physical dimensions |
//! | `{1,0:T(8,128)(2,1)}` | two tiles, applied one after the other |
//! | `{4,3,2,1,0:T(*,*,2,*,3)}` | `*` merges a dimension into the next more-minor one |
//! | `{0,1:P(3,5)}` | padded to sizes `[3, 5]` (per logical dimension), padding value unspecified |
//! | `{0,1:P(3,5;zero)}` | … with padding value `zero`, `one`, `lowest` or `highest` |
//! | `{1,0:S(1)}` | memory space 1 (accepted and kept; no effect on indexing) |
//!
//! Padding is applied before tiling: tiles see the padded sizes.

mod index;

use std::fmt;

pub(crate) use index::check_order;
pub use index::IndexMap;

/// A tile entry that merges its dimension into the next more-minor one,
/// written `*` in text.
pub const COMBINE_DIM: i64 = -1;

/// One tile: sizes from the most-major tile dimension to the most-minor.
///
/// A tile with `k` entries applies to the `k` most-minor physical dimensions
/// of whatever the previous tile (or the untiled array) produced.
/// [`COMBINE_DIM`] (`*`) merges that dimension into the next more-minor one.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Tile {
    /// Tile sizes, most-major first; each positive or [`COMBINE_DIM`].
    pub dims: Vec<i64>,
}

impl Tile {
    /// A tile with the given sizes (most-major first).
    pub fn new(dims: impl Into<Vec<i64>>) -> Self {
        Tile { dims: dims.into() }
    }
}

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if *d == COMBINE_DIM {
                f.write_str("*")?;
            } else {
                write!(f, "{d}")?;
            }
        }
        f.write_str(")")
    }
}

/// The value stored in padding elements of a padded layout.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum PaddingValue {
    /// Unspecified: padding elements may hold anything.
    #[default]
    Unknown,
    /// Zero of the element type.
    Zero,
    /// One of the element type.
    One,
    /// The lowest value of the element type (−∞ for floats).
    Lowest,
    /// The highest value of the element type (+∞ for floats).
    Highest,
}

impl PaddingValue {
    /// The text keyword (`zero`, `one`, `lowest`, `highest`), `None` for unknown.
    pub const fn keyword(self) -> Option<&'static str> {
        match self {
            Self::Unknown => None,
            Self::Zero => Some("zero"),
            Self::One => Some("one"),
            Self::Lowest => Some("lowest"),
            Self::Highest => Some("highest"),
        }
    }

    /// Parses a keyword written by [`PaddingValue::keyword`].
    pub fn from_keyword(word: &str) -> Option<Self> {
        [Self::Zero, Self::One, Self::Lowest, Self::Highest]
            .into_iter()
            .find(|v| v.keyword() == Some(word))
    }
}

/// Padded dimensions: every logical dimension `i` is stored as if its size were
/// `dims[i]` (≥ the logical size).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Padding {
    /// Padded size per logical dimension (not in physical order).
    pub dims: Vec<i64>,
    /// What the padding elements hold.
    pub value: PaddingValue,
}

/// How an array's elements are placed in memory.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Layout {
    /// Physical order of the logical dimensions, most-minor first (entries
    /// are dimension numbers). `f32[2,3]{1,0}` (default) stores
    /// `[[a,b,c],[d,e,f]]` as `a b c d e f`; `{0,1}` as `a d b e c f`.
    pub minor_to_major: Vec<i64>,
    /// Padded dimensions, applied before tiling.
    pub padding: Option<Padding>,
    /// Tiles, applied in order.
    pub tiles: Vec<Tile>,
    /// Memory space (`S(n)` in text); kept for round trips, no effect here.
    pub memory_space: i64,
}

impl Layout {
    /// A plain layout with the given `minor_to_major` order.
    pub fn new(minor_to_major: impl Into<Vec<i64>>) -> Self {
        Layout {
            minor_to_major: minor_to_major.into(),
            padding: None,
            tiles: Vec::new(),
            memory_space: 0,
        }
    }

    /// The default layout of a rank-`rank` array: major-to-minor in dimension
    /// order, `minor_to_major = [rank-1, …, 1, 0]` (row-major).
    pub fn default_for_rank(rank: usize) -> Self {
        Self::new((0..rank as i64).rev().collect::<Vec<_>>())
    }

    /// Adds tiles.
    pub fn with_tiles(mut self, tiles: impl IntoIterator<Item = Tile>) -> Self {
        self.tiles.extend(tiles);
        self
    }

    /// Adds padded dimensions.
    pub fn with_padding(mut self, dims: impl Into<Vec<i64>>, value: PaddingValue) -> Self {
        self.padding = Some(Padding {
            dims: dims.into(),
            value,
        });
        self
    }

    /// The number of dimensions this layout describes.
    pub fn rank(&self) -> usize {
        self.minor_to_major.len()
    }

    /// `true` if this is the default (row-major, unpadded, untiled) layout.
    pub fn is_default(&self) -> bool {
        self.padding.is_none()
            && self.tiles.is_empty()
            && self
                .minor_to_major
                .iter()
                .rev()
                .copied()
                .eq(0..self.rank() as i64)
    }

    /// `true` if neither padded nor tiled: offsets are a dot product of the
    /// index with per-dimension strides.
    pub fn is_dense(&self) -> bool {
        self.padding.is_none() && self.tiles.is_empty()
    }

    /// Logical dimension numbers in physical order, most-major first.
    pub fn major_to_minor(&self) -> impl Iterator<Item = usize> + '_ {
        self.minor_to_major.iter().rev().map(|&d| d as usize)
    }

    /// Checks this layout against the dimension sizes of an array.
    pub fn validate(&self, dims: &[i64]) -> Result<(), LayoutError> {
        IndexMap::new(dims, self).map(|_| ())
    }

    /// Element strides of a dense layout, per logical dimension (in
    /// elements, not bytes). `f32[2,3]{0,1}` has strides `[1, 2]`.
    /// `None` for padded or tiled layouts.
    pub fn dense_strides(&self, dims: &[i64]) -> Option<Vec<i64>> {
        if !self.is_dense() || dims.len() != self.rank() {
            return None;
        }
        let mut strides = vec![0; dims.len()];
        let mut stride = 1i64;
        for &d in &self.minor_to_major {
            strides[d as usize] = stride;
            stride = stride.saturating_mul(dims[d as usize]);
        }
        Some(strides)
    }
}

impl fmt::Display for Layout {
    /// Prints the braces' content form used in shapes: `{1,0:T(2,2)}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, d) in self.minor_to_major.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        let has_extra = self.padding.is_some() || !self.tiles.is_empty() || self.memory_space != 0;
        if has_extra {
            f.write_str(":")?;
        }
        if let Some(p) = &self.padding {
            f.write_str("P(")?;
            for (i, d) in p.dims.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{d}")?;
            }
            if let Some(k) = p.value.keyword() {
                write!(f, ";{k}")?;
            }
            f.write_str(")")?;
        }
        if !self.tiles.is_empty() {
            f.write_str("T")?;
            for t in &self.tiles {
                write!(f, "{t}")?;
            }
        }
        if self.memory_space != 0 {
            write!(f, "S({})", self.memory_space)?;
        }
        f.write_str("}")
    }
}

/// A layout that does not fit its array, or that is malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// `minor_to_major` has the wrong length.
    #[error("layout {layout} has {len} entries in minor_to_major but the array has rank {rank}")]
    WrongRank {
        /// The layout.
        layout: Box<Layout>,
        /// Its number of entries.
        len: usize,
        /// The array's rank.
        rank: usize,
    },
    /// `minor_to_major` is not a permutation of `0..rank`.
    #[error("layout {layout}: minor_to_major is not a permutation of 0..{rank}")]
    NotPermutation {
        /// The layout.
        layout: Box<Layout>,
        /// The array's rank.
        rank: usize,
    },
    /// Padded dimensions of the wrong length.
    #[error("layout {layout} pads {len} dimensions but the array has rank {rank}")]
    PaddingRank {
        /// The layout.
        layout: Box<Layout>,
        /// Number of padded sizes.
        len: usize,
        /// The array's rank.
        rank: usize,
    },
    /// A padded size below the logical size.
    #[error("layout {layout}: padded size {padded} of dimension {dim} is below its size {size}")]
    PaddingTooSmall {
        /// The layout.
        layout: Box<Layout>,
        /// The dimension number.
        dim: usize,
        /// Its padded size.
        padded: i64,
        /// Its logical size.
        size: i64,
    },
    /// A tile size that is zero or negative (other than `*`).
    #[error("layout {layout}: tile {tile} has size {size}; tile sizes must be positive or `*`")]
    BadTileSize {
        /// The layout.
        layout: Box<Layout>,
        /// The tile.
        tile: Tile,
        /// The offending size.
        size: i64,
    },
    /// A tile with more dimensions than the array it applies to.
    #[error("layout {layout}: tile {tile} has {len} dimensions but applies to {rank}")]
    TileRank {
        /// The layout.
        layout: Box<Layout>,
        /// The tile.
        tile: Tile,
        /// The tile's number of dimensions.
        len: usize,
        /// The number of dimensions it applies to.
        rank: usize,
    },
    /// A tile whose most-minor entry is `*` (there is nothing to merge into).
    #[error(
        "layout {layout}: tile {tile} ends in `*`, but the most-minor dimension cannot be combined"
    )]
    CombineMinor {
        /// The layout.
        layout: Box<Layout>,
        /// The tile.
        tile: Tile,
    },
    /// A tile that has no sizes at all.
    #[error("layout {layout}: empty tile")]
    EmptyTile {
        /// The layout.
        layout: Box<Layout>,
    },
    /// The buffer would hold more than `i64::MAX` elements (or bytes).
    #[error("layout {layout}: the buffer size overflows")]
    Overflow {
        /// The layout.
        layout: Box<Layout>,
    },
}
