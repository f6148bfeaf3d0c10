//! The integration tests of xla-jit, one module per subject, in one test
//! binary (one link instead of one per file): `cargo test -p xla-jit --test all
//! emit_golden::` runs one subject.

mod disasm;
mod dot;
mod emit_bitcast;
mod emit_complex;
mod emit_convolution;
mod emit_elementwise;
mod emit_epilogue;
mod emit_gather;
mod emit_golden;
mod emit_harness;
mod emit_interp;
mod emit_layouts;
mod emit_native;
mod emit_reduce;
mod emit_reduce_window;
mod emit_rng_bit_generator;
mod emit_row;
mod emit_scatter;
mod emit_select_and_scatter;
mod emit_sort;
mod fusion;
mod math;
mod pool;
mod runtime_basics;
mod runtime_batch_norm;
mod runtime_collectives;
mod runtime_conformance;
mod runtime_control;
mod runtime_convolution;
mod runtime_copies;
mod runtime_donation;
mod runtime_dots;
mod runtime_fft;
mod runtime_linalg;
mod runtime_random;
mod runtime_rng_bit_generator;
mod runtime_sort;
mod runtime_suite;
mod runtime_support;
