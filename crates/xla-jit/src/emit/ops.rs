//! The elementwise ops the emitters know, sorted out of the op table once
//! ([`op_of`] is the only `match` over every [`Opcode`] here), so the
//! per-type emitters match on small enums.

use xla_core::Opcode;

use crate::math::UnaryFn;

/// A unary elementwise op.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Unary {
    /// `abs`
    Abs,
    /// `negate`
    Negate,
    /// `ceil`
    Ceil,
    /// `floor`
    Floor,
    /// `round-nearest-even`
    RoundNearestEven,
    /// `round-nearest-afz`
    RoundNearestAfz,
    /// `sign`
    Sign,
    /// `sqrt`
    Sqrt,
    /// `rsqrt`
    Rsqrt,
    /// `is-finite`
    IsFinite,
    /// `not`
    Not,
    /// `popcnt`
    PopulationCount,
    /// `count-leading-zeros`
    Clz,
    /// `real`
    Real,
    /// `imag`
    Imag,
    /// A transcendental function of the math library.
    Math(UnaryFn),
}

/// A binary elementwise op (comparisons aside).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Binary {
    /// `add`
    Add,
    /// `subtract`
    Subtract,
    /// `multiply`
    Multiply,
    /// `divide`
    Divide,
    /// `remainder`
    Remainder,
    /// `maximum`
    Maximum,
    /// `minimum`
    Minimum,
    /// `and`
    And,
    /// `or`
    Or,
    /// `xor`
    Xor,
    /// `shift-left`
    ShiftLeft,
    /// `shift-right-logical`
    ShiftRightLogical,
    /// `shift-right-arithmetic`
    ShiftRightArithmetic,
    /// `power`
    Power,
    /// `atan2`
    Atan2,
}

/// What an opcode is to the elementwise emitters.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Op {
    /// A unary op.
    Unary(Unary),
    /// A binary op.
    Binary(Binary),
    /// `compare`
    Compare,
    /// `select`
    Select,
    /// `clamp`
    Clamp,
    /// `convert`
    Convert,
    /// `bitcast-convert`
    BitcastConvert,
    /// `reduce-precision`
    ReducePrecision,
    /// `map`
    Map,
    /// `complex`
    Complex,
    /// Not an elementwise op.
    Other,
}

/// The elementwise meaning of `op`.
pub fn op_of(op: Opcode) -> Op {
    use Opcode::*;
    let u = Op::Unary;
    let m = |f| Op::Unary(Unary::Math(f));
    let b = Op::Binary;
    match op {
        Abs => u(Unary::Abs),
        Negate => u(Unary::Negate),
        Ceil => u(Unary::Ceil),
        Floor => u(Unary::Floor),
        RoundNearestEven => u(Unary::RoundNearestEven),
        RoundNearestAfz => u(Unary::RoundNearestAfz),
        Sign => u(Unary::Sign),
        Sqrt => u(Unary::Sqrt),
        Rsqrt => u(Unary::Rsqrt),
        IsFinite => u(Unary::IsFinite),
        Not => u(Unary::Not),
        PopulationCount => u(Unary::PopulationCount),
        Clz => u(Unary::Clz),
        Real => u(Unary::Real),
        Imag => u(Unary::Imag),
        Add => b(Binary::Add),
        Subtract => b(Binary::Subtract),
        Multiply => b(Binary::Multiply),
        Divide => b(Binary::Divide),
        Remainder => b(Binary::Remainder),
        Maximum => b(Binary::Maximum),
        Minimum => b(Binary::Minimum),
        And => b(Binary::And),
        Or => b(Binary::Or),
        Xor => b(Binary::Xor),
        ShiftLeft => b(Binary::ShiftLeft),
        ShiftRightLogical => b(Binary::ShiftRightLogical),
        ShiftRightArithmetic => b(Binary::ShiftRightArithmetic),
        Power => b(Binary::Power),
        Atan2 => b(Binary::Atan2),
        Compare => Op::Compare,
        Select => Op::Select,
        Clamp => Op::Clamp,
        Convert => Op::Convert,
        BitcastConvert => Op::BitcastConvert,
        ReducePrecision => Op::ReducePrecision,
        Map => Op::Map,
        Complex => Op::Complex,
        op => UnaryFn::of(op).map_or(Op::Other, m),
    }
}
