//! Element-wise ops: unary functions, binary arithmetic and comparisons
//! (with XLA's lowering of implicit broadcasts to explicit `broadcast`
//! instructions), select, clamp, conversions and map.

use super::{XlaBuilder, XlaComputation, XlaOp};
use crate::hlo::{Attrs, ComparisonDirection, ComparisonType, Opcode};
use crate::infer::{self, Signature};
use crate::{ArrayShape, PrimitiveType, Result};

/// One `XlaBuilder` method per plain element-wise row of the op table
/// (the rows whose builder column names a method), documented by the row.
macro_rules! elementwise_methods {
    ($($(#[$doc:meta])* $variant:ident => $name:literal, $arity:expr, $family:ident,
       $form:ident $(($($form_args:tt)*))?, $cost:ident, [$($flag:ident)*], $builder:tt;)*) => {
        impl XlaBuilder {
            $(elementwise_method!([$(#[$doc])*] $form $builder $variant);)*
        }
    };
}

/// The method of one row: unary, binary, or none.
macro_rules! elementwise_method {
    ([$($doc:tt)*] Unary $method:ident $variant:ident) => {
        $($doc)*
        pub fn $method(&self, operand: XlaOp) -> Result<XlaOp> {
            self.unary(Opcode::$variant, operand)
        }
    };
    ([$($doc:tt)*] Binary $method:ident $variant:ident) => {
        $($doc)*
        ///
        /// `broadcast_dimensions` maps the lower-rank operand's
        /// dimensions onto the other's (empty: none).
        pub fn $method(
            &self,
            lhs: XlaOp,
            rhs: XlaOp,
            broadcast_dimensions: &[i64],
        ) -> Result<XlaOp> {
            self.binary(Opcode::$variant, lhs, rhs, broadcast_dimensions)
        }
    };
    ([$($doc:tt)*] $form:ident $builder:tt $variant:ident) => {};
}

crate::hlo::op_table!(elementwise_methods);

macro_rules! compare_ops {
    ($($(#[$doc:meta])* $name:ident => $dir:ident, $total:expr;)*) => {
        impl XlaBuilder {
            $(
                $(#[$doc])*
                pub fn $name(
                    &self,
                    lhs: XlaOp,
                    rhs: XlaOp,
                    broadcast_dimensions: &[i64],
                ) -> Result<XlaOp> {
                    self.compare_ordered(lhs, rhs, broadcast_dimensions, ComparisonDirection::$dir, $total)
                }
            )*
        }
    };
}

compare_ops! {
    /// `lhs == rhs`.
    eq => Eq, false;
    /// `lhs != rhs`.
    ne => Ne, false;
    /// `lhs >= rhs`.
    ge => Ge, false;
    /// `lhs > rhs`.
    gt => Gt, false;
    /// `lhs <= rhs`.
    le => Le, false;
    /// `lhs < rhs`.
    lt => Lt, false;
    /// `lhs == rhs` under the total order of floats (bit equality).
    eq_total_order => Eq, true;
    /// `lhs != rhs` under the total order of floats.
    ne_total_order => Ne, true;
    /// `lhs >= rhs` under the total order of floats.
    ge_total_order => Ge, true;
    /// `lhs > rhs` under the total order of floats.
    gt_total_order => Gt, true;
    /// `lhs <= rhs` under the total order of floats.
    le_total_order => Le, true;
    /// `lhs < rhs` under the total order of floats
    /// (`−NaN < −∞ < … < −0 < +0 < … < +∞ < +NaN`).
    lt_total_order => Lt, true;
}

impl XlaBuilder {
    fn unary(&self, opcode: Opcode, operand: XlaOp) -> Result<XlaOp> {
        let x = self.array(opcode.name(), operand, 0)?;
        let shape = infer::unary(opcode, &x)?;
        Ok(self.emit(opcode, shape, &[operand], Attrs::default(), vec![]))
    }

    fn binary(
        &self,
        opcode: Opcode,
        lhs: XlaOp,
        rhs: XlaOp,
        broadcast_dimensions: &[i64],
    ) -> Result<XlaOp> {
        let name = opcode.name();
        let (l, r) = (self.array(name, lhs, 0)?, self.array(name, rhs, 1)?);
        let shape = infer::binary(opcode, &l, &r, Some(broadcast_dimensions))?;
        let operands =
            self.broadcast_operands([lhs, rhs], [&l, &r], broadcast_dimensions, &shape)?;
        Ok(self.emit(opcode, shape, &operands, Attrs::default(), vec![]))
    }

    /// `compare(lhs, rhs), direction=…, type=…`: element-wise comparison
    /// giving `pred`. `comparison_type` `None` uses the element type's
    /// default.
    pub fn compare(
        &self,
        lhs: XlaOp,
        rhs: XlaOp,
        broadcast_dimensions: &[i64],
        direction: ComparisonDirection,
        comparison_type: Option<ComparisonType>,
    ) -> Result<XlaOp> {
        let name = Opcode::Compare.name();
        let (l, r) = (self.array(name, lhs, 0)?, self.array(name, rhs, 1)?);
        let dims = Some(broadcast_dimensions);
        let shape = infer::compare(&l, &r, dims, direction, comparison_type)?;
        let operands =
            self.broadcast_operands([lhs, rhs], [&l, &r], broadcast_dimensions, &shape)?;
        let attrs = Attrs {
            comparison_direction: Some(direction),
            comparison_type,
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Compare, shape, &operands, attrs, vec![]))
    }

    /// A comparison; `total_order` asks for the total order of floats, which
    /// for other types is the ordinary order (`docs/semantics.md`, *Comparisons*).
    fn compare_ordered(
        &self,
        lhs: XlaOp,
        rhs: XlaOp,
        broadcast_dimensions: &[i64],
        direction: ComparisonDirection,
        total_order: bool,
    ) -> Result<XlaOp> {
        let ty = self.array(Opcode::Compare.name(), lhs, 0)?.element_type();
        let comparison_type =
            (total_order && ty.is_floating()).then_some(ComparisonType::TotalOrder);
        self.compare(lhs, rhs, broadcast_dimensions, direction, comparison_type)
    }

    /// XLA's `BinaryOp` lowering: the lower-rank operand is InDim-broadcast
    /// with `broadcast_dimensions`, then every operand whose dimensions are
    /// not the result's is broadcast (scalars, size-1 dimensions), so the
    /// HLO element-wise instruction sees operands of the result's
    /// dimensions.
    fn broadcast_operands(
        &self,
        mut ops: [XlaOp; 2],
        shapes: [&ArrayShape; 2],
        broadcast_dimensions: &[i64],
        result: &ArrayShape,
    ) -> Result<[XlaOp; 2]> {
        let [l, r] = shapes;
        if !broadcast_dimensions.is_empty() && l.rank() != r.rank() {
            let small = usize::from(l.rank() > r.rank());
            let mut to = result.dims().to_vec();
            for (i, &d) in broadcast_dimensions.iter().enumerate() {
                to[d as usize] = shapes[small].dims()[i];
            }
            ops[small] = self.in_dim_broadcast(ops[small], &to, broadcast_dimensions)?;
        }
        for op in &mut ops {
            if self.array("broadcast", *op, 0)?.dims() != result.dims() {
                *op = self.add_broadcast_sequence(result.dims(), *op)?;
            }
        }
        Ok(ops)
    }

    /// `select(pred, on_true, on_false)`: element-wise choice (a scalar
    /// `pred` chooses whole arrays or tuples).
    pub fn select(&self, pred: XlaOp, on_true: XlaOp, on_false: XlaOp) -> Result<XlaOp> {
        let s = self.shapes("select", &[pred, on_true, on_false])?;
        let shape = infer::select(&s[0], &s[1], &s[2])?;
        Ok(self.emit(
            Opcode::Select,
            shape,
            &[pred, on_true, on_false],
            Attrs::default(),
            vec![],
        ))
    }

    /// `clamp(min, operand, max) = min(max(min, operand), max)`; `min` and
    /// `max` are scalars or have the operand's shape.
    pub fn clamp(&self, min: XlaOp, operand: XlaOp, max: XlaOp) -> Result<XlaOp> {
        let s = self.arrays("clamp", &[min, operand, max])?;
        let shape = infer::clamp(&s[0], &s[1], &s[2])?;
        Ok(self.emit(
            Opcode::Clamp,
            shape,
            &[min, operand, max],
            Attrs::default(),
            vec![],
        ))
    }

    /// `convert`: element-wise value conversion to `new_element_type`.
    pub fn convert_element_type(
        &self,
        operand: XlaOp,
        new_element_type: PrimitiveType,
    ) -> Result<XlaOp> {
        let x = self.array("convert", operand, 0)?;
        let shape = infer::convert(&x, new_element_type)?;
        Ok(self.emit(Opcode::Convert, shape, &[operand], Attrs::default(), vec![]))
    }

    /// `bitcast-convert`: reinterprets the bits as `new_element_type`.
    pub fn bitcast_convert_type(
        &self,
        operand: XlaOp,
        new_element_type: PrimitiveType,
    ) -> Result<XlaOp> {
        let x = self.array("bitcast-convert", operand, 0)?;
        let shape = infer::bitcast_convert(&x, new_element_type)?;
        Ok(self.emit(
            Opcode::BitcastConvert,
            shape,
            &[operand],
            Attrs::default(),
            vec![],
        ))
    }

    /// `reduce-precision`: rounds to `exponent_bits` / `mantissa_bits`.
    pub fn reduce_precision(
        &self,
        operand: XlaOp,
        exponent_bits: i64,
        mantissa_bits: i64,
    ) -> Result<XlaOp> {
        let x = self.array("reduce-precision", operand, 0)?;
        let shape = infer::reduce_precision(&x, exponent_bits, mantissa_bits)?;
        let attrs = Attrs {
            exponent_bits: Some(exponent_bits),
            mantissa_bits: Some(mantissa_bits),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::ReducePrecision, shape, &[operand], attrs, vec![]))
    }

    /// `map(operands…), dimensions=…, to_apply=computation`: applies a
    /// scalar computation element by element.
    pub fn map(
        &self,
        operands: &[XlaOp],
        computation: &XlaComputation,
        dimensions: &[i64],
    ) -> Result<XlaOp> {
        let arrays = self.arrays("map", operands)?;
        let refs: Vec<&ArrayShape> = arrays.iter().collect();
        let program = computation.program_shape();
        let shape = infer::map(&refs, Signature::from(&program), dimensions)?;
        let called = vec![self.embed(computation)];
        let attrs = Attrs {
            dimensions: Some(dimensions.to_vec()),
            ..Attrs::default()
        };
        Ok(self.emit(Opcode::Map, shape, operands, attrs, called))
    }

    /// The complex conjugate `(re, −im)`; the identity on real types. As in
    /// XLA, lowered to `complex(real(x), negate(imag(x)))`.
    pub fn conj(&self, operand: XlaOp) -> Result<XlaOp> {
        if !self.array("conj", operand, 0)?.element_type().is_complex() {
            return Ok(operand);
        }
        let re = self.real(operand)?;
        let im = self.imag(operand)?;
        let neg_im = self.neg(im)?;
        self.complex(re, neg_im, &[])
    }
}
