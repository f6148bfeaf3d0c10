//! The vocabulary of inference errors: attribute references, operand
//! counts, shape kinds, rank rules, element-type classes and callee names,
//! each printed the way the messages read.

use std::fmt;

pub use crate::TypeClass;

/// A list of dimension numbers, printed as in HLO text: `{1,0}`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DimList(pub Vec<i64>);

impl fmt::Display for DimList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("}")
    }
}

/// An attribute, or one entry of a list attribute, printed as `iota_dimension`
/// or `slice_sizes[1]`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Attr {
    /// The attribute's name, as in HLO text.
    pub name: &'static str,
    /// The entry's position, for a list attribute.
    pub position: Option<usize>,
}

impl Attr {
    /// A scalar attribute.
    pub const fn scalar(name: &'static str) -> Self {
        Attr {
            name,
            position: None,
        }
    }

    /// Entry `position` of a list attribute.
    pub const fn entry(name: &'static str, position: usize) -> Self {
        Attr {
            name,
            position: Some(position),
        }
    }
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "{}[{p}]", self.name),
            None => f.write_str(self.name),
        }
    }
}

/// How many operands (or called computations) an op takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Count {
    /// Exactly this many.
    Exactly(usize),
    /// At least this many.
    AtLeast(usize),
    /// `2·N` with `N ≥ 1`: N inputs followed by N init values.
    InputsAndInits,
    /// `2·N + 1` with `N ≥ 1`: N operands, the indices, N updates.
    OperandsIndicesUpdates,
}

impl Count {
    /// `true` if `actual` satisfies the count.
    pub fn admits(self, actual: usize) -> bool {
        match self {
            Count::Exactly(n) => actual == n,
            Count::AtLeast(n) => actual >= n,
            Count::InputsAndInits => actual >= 2 && actual.is_multiple_of(2),
            Count::OperandsIndicesUpdates => actual >= 3 && !actual.is_multiple_of(2),
        }
    }

    /// The count with its noun: `1 operand`, `at least 2 operands`.
    pub fn of(self, noun: &str) -> String {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        match self {
            Count::Exactly(n) => format!("{n} {noun}{}", plural(n)),
            Count::AtLeast(n) => format!("at least {n} {noun}{}", plural(n)),
            Count::InputsAndInits => format!("2·N {noun}s (N inputs, then N init values)"),
            Count::OperandsIndicesUpdates => {
                format!("2·N + 1 {noun}s (N operands, the indices, then N updates)")
            }
        }
    }
}

/// What kind of shape a value must have.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// An array of any rank.
    Array,
    /// A rank-0 array.
    Scalar,
    /// A tuple.
    Tuple,
    /// A token.
    Token,
    /// An array or a tuple (not a token).
    ArrayOrTuple,
    /// The context a send or recv returns: `(data, u32[], token[])`.
    Context,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Array => "an array",
            Kind::Scalar => "a scalar",
            Kind::Tuple => "a tuple",
            Kind::Token => "a token",
            Kind::ArrayOrTuple => "an array or a tuple",
            Kind::Context => "a send or recv context (data, u32[], token[])",
        })
    }
}

/// A required rank.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RankRule {
    /// Exactly this rank.
    Exactly(usize),
    /// At least this rank.
    AtLeast(usize),
    /// Rank 1 or 2 (vectors and matrices).
    OneOrTwo,
}

impl fmt::Display for RankRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RankRule::Exactly(n) => write!(f, "rank {n}"),
            RankRule::AtLeast(n) => write!(f, "rank at least {n}"),
            RankRule::OneOrTwo => f.write_str("rank 1 or 2"),
        }
    }
}

/// A computation an op calls, named as in XLA's text and API.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Callee {
    /// `to_apply` (reduce, map, call, scatter, sort, all-reduce …).
    ToApply,
    /// The `condition` of a while loop.
    Condition,
    /// The `body` of a while loop.
    Body,
    /// Branch `i` of a conditional (`0` = true, `1` = false in the
    /// predicate form).
    Branch(usize),
    /// The `select` computation of select-and-scatter.
    Select,
    /// The `scatter` computation of select-and-scatter.
    Scatter,
    /// The fused computation of a fusion.
    Calls,
}

impl fmt::Display for Callee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Callee::ToApply => f.write_str("to_apply"),
            Callee::Condition => f.write_str("condition"),
            Callee::Body => f.write_str("body"),
            Callee::Branch(i) => write!(f, "branch_computations[{i}]"),
            Callee::Select => f.write_str("select"),
            Callee::Scatter => f.write_str("scatter"),
            Callee::Calls => f.write_str("calls"),
        }
    }
}
