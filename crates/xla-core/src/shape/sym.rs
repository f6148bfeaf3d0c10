//! Symbolic dimension sizes for compile-time shape checking.
//!
//! A [`SymDim`] is a polynomial with integer coefficients over named sizes,
//! kept in a normal form so that equal expressions compare equal:
//! `B * N`, `N * B` and `(B + 0) * N` are one value; `A + B - B` is `A`.
//! Symbols stand for sizes, so they are assumed to be `≥ 0`.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

use super::Dim;

/// A product of symbols, sorted (`["B", "N"]` is `B * N`); empty for the
/// constant term.
type Monomial = Vec<String>;

/// A symbolic dimension size: a polynomial over named sizes.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct SymDim {
    /// Non-zero coefficients by monomial.
    terms: BTreeMap<Monomial, i64>,
}

impl SymDim {
    /// The size named `name`.
    pub fn symbol(name: impl Into<String>) -> Self {
        let mut terms = BTreeMap::new();
        terms.insert(vec![name.into()], 1);
        SymDim { terms }
    }

    /// The symbols this size mentions, sorted, without repeats.
    pub fn symbols(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .terms
            .keys()
            .flat_map(|m| m.iter().map(String::as_str))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Evaluates with concrete values for the symbols; `None` if a symbol has
    /// no value.
    pub fn eval(&self, value_of: impl Fn(&str) -> Option<i64>) -> Option<i64> {
        let mut total = 0i64;
        for (mono, coeff) in &self.terms {
            let mut product = *coeff;
            for sym in mono {
                product = product.checked_mul(value_of(sym)?)?;
            }
            total = total.checked_add(product)?;
        }
        Some(total)
    }

    /// If this is `c · m` for a single monomial `m`, returns `(m, c)`.
    fn single_term(&self) -> Option<(&Monomial, i64)> {
        let mut it = self.terms.iter();
        match (it.next(), it.next()) {
            (Some((m, c)), None) => Some((m, *c)),
            _ => None,
        }
    }

    fn from_terms(terms: impl IntoIterator<Item = (Monomial, i64)>) -> Self {
        let mut out = BTreeMap::new();
        for (m, c) in terms {
            let entry = out.entry(m).or_insert(0i64);
            *entry = entry.wrapping_add(c);
        }
        out.retain(|_, c| *c != 0);
        SymDim { terms: out }
    }

    fn constant_term(&self) -> i64 {
        self.terms.get(&Vec::new()).copied().unwrap_or(0)
    }
}

/// Removes the symbols of `divisor` from `mono` (as multisets); `None` if
/// `mono` does not contain them all.
fn divide_monomial(mono: &Monomial, divisor: &Monomial) -> Option<Monomial> {
    let mut rest = mono.clone();
    for sym in divisor {
        let pos = rest.iter().position(|s| s == sym)?;
        rest.remove(pos);
    }
    Some(rest)
}

impl Dim for SymDim {
    const SEPARATOR: &'static str = ", ";

    fn constant(value: i64) -> Self {
        SymDim::from_terms([(Vec::new(), value)])
    }

    fn as_const(&self) -> Option<i64> {
        if self.terms.is_empty() {
            return Some(0);
        }
        match self.single_term() {
            Some((m, c)) if m.is_empty() => Some(c),
            _ => None,
        }
    }

    fn add(&self, other: &Self) -> Self {
        SymDim::from_terms(
            self.terms
                .iter()
                .chain(&other.terms)
                .map(|(m, c)| (m.clone(), *c)),
        )
    }

    fn sub(&self, other: &Self) -> Self {
        SymDim::from_terms(
            self.terms.iter().map(|(m, c)| (m.clone(), *c)).chain(
                other
                    .terms
                    .iter()
                    .map(|(m, c)| (m.clone(), c.wrapping_neg())),
            ),
        )
    }

    fn mul(&self, other: &Self) -> Self {
        SymDim::from_terms(self.terms.iter().flat_map(|(ma, ca)| {
            other.terms.iter().map(move |(mb, cb)| {
                let mut m = ma.clone();
                m.extend(mb.iter().cloned());
                m.sort();
                (m, ca.wrapping_mul(*cb))
            })
        }))
    }

    fn exact_div(&self, divisor: &Self) -> Option<Self> {
        if self == divisor && !self.terms.is_empty() {
            return Some(Self::constant(1));
        }
        let (dm, dc) = divisor.single_term()?;
        if dc == 0 {
            return None;
        }
        let mut out = Vec::with_capacity(self.terms.len());
        for (m, c) in &self.terms {
            if c % dc != 0 {
                return None;
            }
            out.push((divide_monomial(m, dm)?, c / dc));
        }
        Some(SymDim::from_terms(out))
    }

    fn floor_div(&self, divisor: i64) -> Option<Self> {
        if divisor <= 0 {
            return None;
        }
        if let Some(c) = self.as_const() {
            return Some(Self::constant(c.div_euclid(divisor)));
        }
        // `⌊(k·P + c) / k⌋ = P + ⌊c / k⌋` when the symbolic part `k·P` has
        // every coefficient divisible by `k` (so `P` is an integer):
        // `⌊(2·H − 1) / 2⌋ = H − 1`.
        self.terms
            .iter()
            .all(|(m, c)| m.is_empty() || c % divisor == 0)
            .then(|| {
                SymDim::from_terms(self.terms.iter().map(|(m, c)| {
                    let c = if m.is_empty() {
                        c.div_euclid(divisor)
                    } else {
                        c / divisor
                    };
                    (m.clone(), c)
                }))
            })
    }

    fn known_cmp(&self, other: &Self) -> Option<Ordering> {
        let diff = self.sub(other);
        if let Some(c) = diff.as_const() {
            return Some(c.cmp(&0));
        }
        // Symbols are sizes (≥ 0): a difference whose coefficients all have
        // one sign is bounded by its constant term.
        let constant = diff.constant_term();
        let symbolic = diff.terms.iter().filter(|(m, _)| !m.is_empty());
        let (mut all_pos, mut all_neg) = (true, true);
        for (_, &c) in symbolic {
            all_pos &= c > 0;
            all_neg &= c < 0;
        }
        if all_pos && constant > 0 {
            Some(Ordering::Greater)
        } else if all_neg && constant < 0 {
            Some(Ordering::Less)
        } else {
            None
        }
    }
}

impl fmt::Display for SymDim {
    /// Prints a canonical form: higher-degree terms first, then by name, the
    /// constant last: `B * N + 2`, `N - 2`, `2 * A`, `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        let mut terms: Vec<(&Monomial, i64)> = self.terms.iter().map(|(m, c)| (m, *c)).collect();
        terms.sort_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        for (i, (mono, coeff)) in terms.into_iter().enumerate() {
            let magnitude = coeff.unsigned_abs();
            if i == 0 {
                if coeff < 0 {
                    f.write_str("-")?;
                }
            } else {
                f.write_str(if coeff < 0 { " - " } else { " + " })?;
            }
            if mono.is_empty() {
                write!(f, "{magnitude}")?;
                continue;
            }
            if magnitude != 1 {
                write!(f, "{magnitude} * ")?;
            }
            f.write_str(&mono.join(" * "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(name: &str) -> SymDim {
        SymDim::symbol(name)
    }
    fn c(v: i64) -> SymDim {
        SymDim::constant(v)
    }

    #[test]
    fn normal_form() {
        let (a, b, n) = (s("A"), s("B"), s("N"));
        assert_eq!(b.mul(&n), n.mul(&b));
        assert_eq!(a.add(&b).sub(&b), a);
        assert_eq!(b.mul(&n).to_string(), "B * N");
        assert_eq!(a.add(&b).to_string(), "A + B");
        assert_eq!(n.sub(&c(2)).to_string(), "N - 2");
        assert_eq!(c(2).mul(&a).add(&b.mul(&n)).to_string(), "B * N + 2 * A");
        assert_eq!(c(0).sub(&n).to_string(), "-N");
        assert_eq!(c(0).to_string(), "0");
        assert_eq!(n.sub(&n).as_const(), Some(0));
    }

    #[test]
    fn division() {
        let (b, n) = (s("B"), s("N"));
        assert_eq!(b.mul(&n).exact_div(&n), Some(b.clone()));
        assert_eq!(c(4).mul(&n).exact_div(&c(2)), Some(c(2).mul(&n)));
        assert_eq!(n.exact_div(&c(2)), None);
        assert_eq!(n.add(&b).exact_div(&n.add(&b)), Some(c(1)));
        assert_eq!(c(6).mul(&n).floor_div(3), Some(c(2).mul(&n)));
        assert_eq!(n.floor_div(2), None);
        assert_eq!(c(2).mul(&n).sub(&c(1)).floor_div(2), Some(n.sub(&c(1))));
        assert_eq!(c(4).mul(&n).add(&c(7)).floor_div(4), Some(n.add(&c(1))));
        assert_eq!(c(2).mul(&n).add(&c(1)).floor_div(4), None);
        assert_eq!(n.ceil_div(1), Some(n.clone()));
        assert_eq!(c(7).ceil_div(2), Some(c(4)));
    }

    #[test]
    fn comparisons_answer_only_what_is_known() {
        let (b, n) = (s("B"), s("N"));
        assert!(n.known_lt(&n.add(&c(1))));
        assert!(n.sub(&c(2)).known_lt(&n));
        assert_eq!(b.known_cmp(&n), None);
        assert_eq!(n.known_cmp(&n), Some(Ordering::Equal));
        assert!(n.add(&c(1)).known_gt(&c(0)));
        assert!(n.add(&b).known_ne(&c(-1)));
    }

    #[test]
    fn eval() {
        let e = s("B").mul(&s("N")).add(&c(2));
        assert_eq!(
            e.eval(|x| match x {
                "B" => Some(3),
                "N" => Some(4),
                _ => None,
            }),
            Some(14)
        );
        assert_eq!(e.eval(|_| None), None);
        assert_eq!(e.symbols(), ["B", "N"]);
    }
}
