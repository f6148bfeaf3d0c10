//! Locations: `loc(…)` with names, file positions, call sites, fused
//! locations and `#loc` aliases.

use crate::mlir::ir::Location;
use crate::mlir::text::Parser;
use crate::text::ParseError;

impl<'a> Parser<'a> {
    /// A location: `loc(…)`; `None` for `loc(unknown)`. An alias
    /// (`loc(#loc3)`) is resolved when the module has been read.
    pub(crate) fn location(&mut self) -> Result<Option<Location>, ParseError> {
        self.c.expect("loc")?;
        self.c.expect("(")?;
        let loc = self.location_body()?;
        self.c.expect(")")?;
        Ok(loc)
    }

    fn location_body(&mut self) -> Result<Option<Location>, ParseError> {
        self.deeper()?;
        let loc = self.location_inner();
        self.depth -= 1;
        loc
    }

    fn location_inner(&mut self) -> Result<Option<Location>, ParseError> {
        if self.c.eat("#") {
            let alias = self.c.expect_name("a location alias")?.to_string();
            return Ok(Some(Location {
                name: Some(format!("#{alias}")),
                file: None,
            }));
        }
        if self.c.eat_keyword("unknown") {
            return Ok(None);
        }
        if self.c.eat_keyword("callsite") {
            self.c.expect("(")?;
            let callee = self.location_body()?;
            self.c.expect("at")?;
            let caller = self.location_body()?;
            self.c.expect(")")?;
            return Ok(merge(callee, caller));
        }
        if self.c.eat_keyword("fused") {
            if self.c.looking_at("<") {
                self.opaque_attr()?;
            }
            self.c.expect("[")?;
            let mut loc = None;
            if !self.c.eat("]") {
                loop {
                    loc = merge(loc, self.location_body()?);
                    if self.c.eat("]") {
                        break;
                    }
                    self.c.expect(",")?;
                }
            }
            return Ok(loc);
        }
        let text = self.string_utf8()?;
        if self.c.eat(":") {
            let line = self.c.int()?;
            self.c.expect(":")?;
            let col = self.c.int()?;
            if self.c.eat_keyword("to") {
                // `to :117` or `to 12:3`: the end of the range.
                if !self.c.eat(":") {
                    self.c.int()?;
                    self.c.expect(":")?;
                }
                self.c.int()?;
            }
            return Ok(Some(Location {
                name: None,
                file: Some((text, line.max(0) as u32, col.max(0) as u32)),
            }));
        }
        let child = if self.c.eat("(") {
            let child = self.location_body()?;
            self.c.expect(")")?;
            child
        } else {
            None
        };
        Ok(Some(Location {
            name: Some(text),
            file: child.and_then(|c| c.file),
        }))
    }
}

/// The more useful of two locations: a name from the first that has one,
/// a file position from the first that has one.
fn merge(a: Option<Location>, b: Option<Location>) -> Option<Location> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Location {
            name: a.name.or(b.name),
            file: a.file.or(b.file),
        }),
        (a, b) => a.or(b),
    }
}
