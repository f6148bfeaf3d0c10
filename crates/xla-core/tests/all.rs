//! The integration tests of xla-core, one module per subject, in one test
//! binary (one link instead of one per file): `cargo test -p xla-core --test all
//! interp_reduce::` runs one subject.

mod autodiff_api;
mod autodiff_fd;
mod builder_errors;
mod builder_models;
mod builder_ops;
mod convert;
mod hlo_fixtures;
mod hlo_text;
mod infer_broadcast;
mod infer_collective;
mod infer_control;
mod infer_data_movement;
mod infer_dot;
mod infer_dynamic;
mod infer_elementwise;
mod infer_indexing;
mod infer_instruction;
mod infer_linalg;
mod infer_normalization;
mod infer_random;
mod infer_reduce;
mod infer_side_effect;
mod interp_collective;
mod interp_common;
mod interp_control;
mod interp_custom_call;
mod interp_data_movement;
mod interp_dot;
mod interp_dynamic;
mod interp_elementwise;
mod interp_elementwise_float;
mod interp_indexing;
mod interp_linalg;
mod interp_normalization;
mod interp_random;
mod interp_reduce;
mod interp_side_effect;
mod layout_assignment;
mod layout_props;
mod literal;
mod literal_text;
mod npy;
mod passes_batch_norm;
mod passes_cleanup;
mod passes_constant_folding;
mod passes_differential;
mod passes_files;
mod passes_pipeline;
mod passes_simplify;
mod passes_support;
mod safetensors;
#[path = "data/values.rs"]
mod values;
mod verify;
