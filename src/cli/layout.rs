//! `xla layout SHAPE [--index i,j,...]`: a shape's buffer in memory order.

use std::process::ExitCode;

use xla_core::{ArrayShape, Shape};

/// Print the buffer of SHAPE in memory order: one token per slot, the
/// element's multi-index `i,j,...` or `_` for padding.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// An array shape in XLA text syntax, e.g. 'f32[3,5]{1,0:T(2,2)}'.
    shape: String,
    /// Print the linear index (offset in elements) of this element instead.
    #[arg(long, value_name = "i,j,...", allow_hyphen_values = true)]
    index: Option<String>,
}

/// Runs the subcommand; `Err` carries the message for a usage error.
pub fn run(args: Args) -> Result<ExitCode, String> {
    let shape: Shape = args.shape.parse().map_err(|e| format!("in shape: {e}"))?;
    let array: &ArrayShape = shape
        .as_array()
        .ok_or_else(|| format!("{shape} is not an array shape"))?;
    let map = array.index_map().map_err(|e| e.to_string())?;
    match args.index {
        Some(text) => {
            let index = parse_index(&text)?;
            if index.len() != array.rank() {
                return Err(format!(
                    "index {text} has {} components but {array} has rank {}",
                    index.len(),
                    array.rank()
                ));
            }
            for (d, (&i, &size)) in index.iter().zip(array.dims()).enumerate() {
                if i < 0 || i >= size {
                    return Err(format!(
                        "index {i} is out of range for dimension {d} of size {size} in {array}"
                    ));
                }
            }
            println!("{}", map.linear(&index));
        }
        None => {
            let tokens: Vec<String> = (0..map.buffer_len())
                .map(|offset| match map.multi(offset) {
                    Some(index) => index
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(","),
                    None => "_".to_string(),
                })
                .collect();
            println!("{}", tokens.join(" "));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_index(text: &str) -> Result<Vec<i64>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .enumerate()
        .map(|(d, part)| {
            part.trim()
                .parse()
                .map_err(|_| format!("index component {d} (`{part}`) is not an integer"))
        })
        .collect()
}
