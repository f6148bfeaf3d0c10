//! Integer arithmetic on sizes and indices, shared by shapes and layouts.

/// `⌈n / d⌉` for `d > 0`, exact over the whole `i64` range (it never forms
/// `n + d − 1`, which overflows near `i64::MAX`): `ceil_div(7, 4) == 2`,
/// `ceil_div(-7, 4) == -1`.
pub fn ceil_div(n: i64, d: i64) -> i64 {
    debug_assert!(d > 0, "ceil_div by {d}");
    n.div_euclid(d) + i64::from(n.rem_euclid(d) != 0)
}

/// Advances `index` to the next one in row-major order within `dims` (the
/// last dimension fastest); `false`, with `index` back at all zeros, after
/// the last.
pub fn next_index(index: &mut [i64], dims: &[i64]) -> bool {
    for d in (0..index.len()).rev() {
        index[d] += 1;
        if index[d] < dims[d] {
            return true;
        }
        index[d] = 0;
    }
    false
}

/// FNV-1a's 64-bit offset basis: the hash of no bytes.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, 64-bit, continued from `hash` over `bytes`: a fingerprint that
/// is the same in every build and process (executables' fingerprints).
pub fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}
