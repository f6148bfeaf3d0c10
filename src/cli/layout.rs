//! `xla layout SHAPE [--index i,j,...]`: a shape's buffer in memory order.

use std::io::{self, Write};

use xla_core::layout::IndexMap;
use xla_core::{ArrayShape, Shape};

use super::{stdout, Failure, Outcome};

/// The most slots printed without `--all`: a page of a terminal's worth is
/// far less, and a mistyped size (`f32[100000000000]`) would otherwise
/// stream gigabytes.
const MAX_SLOTS: i64 = 1 << 16;

/// Print the buffer of SHAPE in memory order.
///
/// One token per slot: the element's multi-index `i,j,...`, or `_` for
/// padding.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// An array shape in XLA text syntax, e.g. 'f32[3,5]{1,0:T(2,2)}'.
    shape: String,
    /// Print the linear index (offset in elements) of this element instead.
    #[arg(long, value_name = "i,j,...", allow_hyphen_values = true)]
    index: Option<String>,
    /// Print every slot of a buffer of more than 65536 slots (refused
    /// without it).
    #[arg(long)]
    all: bool,
}

/// Runs the subcommand: status 1 for an invalid shape or index, 2 for an
/// image over 65536 slots without `--all`.
pub fn run(args: Args) -> Outcome {
    let shape: Shape = args
        .shape
        .parse()
        .map_err(|e| Failure::Invalid(format!("in shape: {e}")))?;
    let array: &ArrayShape = shape
        .as_array()
        .ok_or_else(|| Failure::Invalid(format!("{shape} is not an array shape")))?;
    let map = array
        .index_map()
        .map_err(|e| Failure::Invalid(e.to_string()))?;
    match args.index {
        Some(text) => {
            let index = parse_index(&text)?;
            if index.len() != array.rank() {
                return Err(Failure::Invalid(format!(
                    "index {text} has {} components but {array} has rank {}",
                    index.len(),
                    array.rank()
                )));
            }
            for (d, (&i, &size)) in index.iter().zip(array.dims()).enumerate() {
                if i < 0 || i >= size {
                    return Err(Failure::Invalid(format!(
                        "index {i} is out of range for dimension {d} of size {size} in {array}"
                    )));
                }
            }
            stdout::write(&format!("{}\n", map.linear(&index)))
        }
        None if map.buffer_len() > MAX_SLOTS && !args.all => Err(Failure::Usage(format!(
            "{array} has {} slots; the image is refused beyond {MAX_SLOTS} \
             (--all prints every slot, --index i,j,... one element's offset)",
            map.buffer_len()
        ))),
        None => stdout::finish(write_slots(&map)),
    }
}

/// Writes one token per buffer slot as it goes: a buffer of 10¹¹ slots
/// (with `--all`) streams in constant memory.
fn write_slots(map: &IndexMap) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    for offset in 0..map.buffer_len() {
        if offset > 0 {
            out.write_all(b" ")?;
        }
        match map.multi(offset) {
            Some(index) => {
                for (d, i) in index.iter().enumerate() {
                    if d > 0 {
                        out.write_all(b",")?;
                    }
                    write!(out, "{i}")?;
                }
            }
            None => out.write_all(b"_")?,
        }
    }
    out.write_all(b"\n")?;
    out.flush()
}

fn parse_index(text: &str) -> Result<Vec<i64>, Failure> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .enumerate()
        .map(|(d, part)| {
            part.trim().parse().map_err(|_| {
                Failure::Invalid(format!("index component {d} (`{part}`) is not an integer"))
            })
        })
        .collect()
}
