//! The conformance cases: one folder per case under
//! `tests/conformance/cases` holding `module.hlo`, `case.json` (argument
//! and output types, the comparison rule, elements not to check, devices)
//! and the arrays `arg<i>[.d<device>].npy`, `out<j>[.d<device>].npy`.

use std::path::{Path, PathBuf};

use serde_json::Value;
use xla_core::io::{read_npy, NpyOptions};
use xla_core::{HloModule, Literal, PrimitiveType};

use crate::Rule;

/// The folder of the conformance cases.
pub fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases")
}

/// Every case folder, sorted by name; with `XLA_CONFORMANCE=<text>` set,
/// only the cases whose name contains `<text>`.
pub fn all() -> Vec<PathBuf> {
    let filter = std::env::var("XLA_CONFORMANCE").ok();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .unwrap_or_else(|e| panic!("{}: {e}", cases_dir().display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").exists())
        .filter(|p| filter.as_ref().is_none_or(|f| name(p).contains(f.as_str())))
        .collect();
    dirs.sort();
    dirs
}

/// A case's name: its folder's.
pub fn name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The forms of a case's module (`tests/conformance/README.md`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Form {
    /// `module.hlo`: HLO text.
    HloText,
    /// `module.mlir`: StableHLO text.
    StableHloText,
    /// `module.jax_export`: the `jax.export` artifact.
    JaxExport,
    /// `module.hlo` printed as StableHLO text and read back.
    HloTextViaStableHlo,
}

impl Form {
    /// The file holding this form.
    pub fn file(self) -> &'static str {
        match self {
            Form::HloText => "module.hlo",
            Form::StableHloText => "module.mlir",
            Form::JaxExport => "module.jax_export",
            Form::HloTextViaStableHlo => "module.hlo",
        }
    }
}

/// One case's description (`case.json`).
#[derive(Clone, Debug)]
pub struct Case {
    /// The case's folder.
    pub dir: PathBuf,
    /// How outputs are compared.
    pub rule: Rule,
    /// The element type of each argument.
    pub args: Vec<PrimitiveType>,
    /// The element type of each output leaf (tuples flattened).
    pub outs: Vec<PrimitiveType>,
    /// `(output, flat index)` pairs not to compare.
    pub unchecked: Vec<(usize, usize)>,
    /// `(replicas, partitions)` of a multi-device (collective) case.
    pub devices: Option<(usize, usize)>,
}

impl Case {
    /// Reads `dir/case.json`.
    pub fn read(dir: &Path) -> Result<Case, String> {
        let path = dir.join("case.json");
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let json: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let types = |key: &str| -> Result<Vec<PrimitiveType>, String> {
            json[key]
                .as_array()
                .ok_or(format!("case.json has no {key}"))?
                .iter()
                .map(|a| {
                    let t = a["dtype"].as_str().unwrap_or_default();
                    t.parse().map_err(|_| format!("unknown dtype {t}"))
                })
                .collect()
        };
        let tolerance = &json["tolerance"];
        let count = |key: &str| json[key].as_u64().map(|n| n as usize);
        let index = |v: &Value| -> Result<usize, String> {
            v.as_u64()
                .map(|n| n as usize)
                .ok_or("a bad unchecked pair".to_string())
        };
        Ok(Case {
            dir: dir.to_path_buf(),
            rule: Rule {
                exact: json["exact"].as_bool().ok_or("case.json has no exact")?,
                atol: tolerance["atol"].as_f64().unwrap_or(0.0),
                rtol: tolerance["rtol"].as_f64().unwrap_or(0.0),
                ulp: tolerance["ulp"].as_f64(),
                nan_bits: false,
            },
            args: types("args")?,
            outs: types("outs")?,
            unchecked: json["unchecked"]
                .as_array()
                .map(|pairs| {
                    (pairs.iter())
                        .map(|p| Ok((index(&p[0])?, index(&p[1])?)))
                        .collect::<Result<Vec<_>, String>>()
                })
                .transpose()?
                .unwrap_or_default(),
            devices: count("num_partitions").map(|p| (count("num_replicas").unwrap_or(1), p)),
        })
    }

    /// The case's module, parsed from its HLO text.
    pub fn module(&self) -> Result<HloModule, String> {
        self.module_in(Form::HloText)
    }

    /// The case's module, read from one of its forms.
    pub fn module_in(&self, form: Form) -> Result<HloModule, String> {
        let path = self.dir.join(form.file());
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let module = xla_core::load_module(&bytes).map_err(|e| format!("{}: {e}", form.file()))?;
        if form != Form::HloTextViaStableHlo {
            return Ok(module);
        }
        let text = xla_core::mlir::print_stablehlo(&module).map_err(|e| format!("print: {e}"))?;
        xla_core::load_module(text.as_bytes()).map_err(|e| format!("read back: {e}\n{text}"))
    }

    /// The file suffix of each device's arrays: `[""]` for a single-device
    /// case, `[".d0", ".d1", …]` otherwise (device-major).
    pub fn device_suffixes(&self) -> Vec<String> {
        match self.devices {
            None => vec![String::new()],
            Some((replicas, partitions)) => (0..replicas * partitions)
                .map(|d| format!(".d{d}"))
                .collect(),
        }
    }

    /// The arguments of the device with file suffix `suffix`.
    pub fn args(&self, suffix: &str) -> Result<Vec<Literal>, String> {
        (0..self.args.len())
            .map(|i| read_array(&self.dir.join(format!("arg{i}{suffix}.npy")), self.args[i]))
            .collect()
    }

    /// Output `j` of the device with file suffix `suffix`, as XLA computed it.
    pub fn out(&self, j: usize, suffix: &str) -> Result<Literal, String> {
        let ty = *self.outs.get(j).ok_or(format!("no output {j}"))?;
        read_array(&self.dir.join(format!("out{j}{suffix}.npy")), ty)
    }

    /// Compares the leaves of a run's result with the expected outputs of
    /// the device with file suffix `suffix`, skipping the unchecked
    /// elements.
    pub fn check(&self, result: &Literal, suffix: &str) -> Result<(), String> {
        let leaves = flatten_result(result);
        if leaves.len() != self.outs.len() {
            return Err(format!(
                "{} results, expected {}",
                leaves.len(),
                self.outs.len()
            ));
        }
        for (j, got) in leaves.into_iter().enumerate() {
            let want = self.out(j, suffix)?;
            let skip: Vec<usize> = (self.unchecked.iter())
                .filter(|(o, _)| *o == j)
                .map(|&(_, e)| e)
                .collect();
            self.rule
                .compare(got, &want, &skip)
                .map_err(|m| format!("out{j}{suffix}: {m}"))?;
        }
        Ok(())
    }
}

fn flatten_result(result: &Literal) -> Vec<&Literal> {
    crate::flatten(result)
        .into_iter()
        .filter(|l| l.shape().is_array())
        .collect()
}

/// An `.npy` array of element type `ty` (bf16 files are read as bf16).
pub fn read_array(path: &Path, ty: PrimitiveType) -> Result<Literal, String> {
    let options = NpyOptions {
        as_type: (ty == PrimitiveType::Bf16).then_some(ty),
    };
    read_npy(path, &options).map_err(|e| format!("{}: {e}", path.display()))
}
