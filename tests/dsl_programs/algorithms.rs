//! Whole algorithms with loops over several kinds of state: gradient
//! descent on an MLP (against JAX), a Mandelbrot set in complex numbers, a
//! Game of Life glider, a prime sieve, a Hillis–Steele scan and histogram
//! equalization of a u8 image.

use super::{assert_close, backends, check, fx, lit, vals};
use xla::prelude::*;

xla! {
    /// The mean squared error of a two-layer MLP and its gradients.
    pub fn mse_grads(x: f32[B, D], y: f32[B, C], w1: f32[D, H], b1: f32[H], w2: f32[H, C], b2: f32[C])
        -> (f32, f32[D, H], f32[H], f32[H, C], f32[C])
    {
        let z = x.dot(w1).add(b1, [1]);
        let h = z.max(0.0);
        let diff = h.dot(w2).add(b2, [1]) - y;
        let dout = diff * (2.0 / (B * C));
        let dz = select(z > 0.0, dout.dot(w2.transpose([1, 0])), 0.0);
        ((diff * diff).reduce_sum([0, 1]) / (B * C), x.transpose([1, 0]).dot(dz), dz.reduce_sum([0]),
         h.transpose([1, 0]).dot(dout), dout.reduce_sum([0]))
    }

    /// Twenty steps of gradient descent; the final loss and parameters.
    pub fn train(x: f32[B, D], y: f32[B, C], w1: f32[D, H], b1: f32[H], w2: f32[H, C], b2: f32[C])
        -> (f32, f32[D, H], f32[H], f32[H, C], f32[C])
    {
        let mut w1 = w1;
        let mut b1 = b1;
        let mut w2 = w2;
        let mut b2 = b2;
        let mut step = 0;
        while step < 20 {
            let (_, g1, gb1, g2, gb2) = mse_grads(x, y, w1, b1, w2, b2);
            w1 = w1 - 0.05 * g1;
            b1 = b1 - 0.05 * gb1;
            w2 = w2 - 0.05 * g2;
            b2 = b2 - 0.05 * gb2;
            step += 1;
        }
        (mse_grads(x, y, w1, b1, w2, b2).0, w1, b1, w2, b2)
    }

    /// Iterations (of 30) before `z ← z² + c` leaves the disk of radius 2.
    pub fn mandelbrot(re: f32[H, W], im: f32[H, W]) -> s32[H, W] {
        let c = re.complex(im);
        let mut z = c * 0.0;
        let mut count = broadcast(0, [H, W]);
        let mut i = 0;
        while i < 30 {
            z = z * z + c;
            count = count + select(z.abs() <= 2.0, 1, 0);
            i += 1;
        }
        count
    }

    /// `n` generations of Conway's Game of Life, cells beyond the border dead.
    pub fn life(grid: s32[H, W], n: s32) -> s32[H, W] {
        let mut g = grid;
        let mut t = 0;
        while t < n {
            let neighbours = g.reduce_window(0, |a, b| a + b, [3, 3], [1, 1], same) - g;
            let alive = ((g == 1) & (neighbours == 2)) | (neighbours == 3);
            g = alive.convert(s32);
            t += 1;
        }
        g
    }

    /// The primes below 100, by the sieve of Eratosthenes.
    pub fn primes() -> pred[100] {
        let n = iota(s32[100], 0);
        let mut prime = n >= 2;
        let mut p = 2;
        while p * p < 100 {
            let p_is_prime = prime.dynamic_slice([p], [1]).reshape([]);
            prime = select(p_is_prime & (n % p == 0) & (n > p), false, prime);
            p += 1;
        }
        prime
    }

    /// An inclusive scan in log₂ N steps of shifted additions.
    pub fn hillis_steele(x: s32[N]) -> s32[N] {
        let mut y = x;
        let mut shift = 1;
        while shift < N {
            let shifted = concat([broadcast(0, [N]), y], 0).dynamic_slice([N - shift], [N]);
            y = y + shifted;
            shift *= 2;
        }
        y
    }

    /// Histogram equalization: each level maps through the normalized
    /// cumulative histogram.
    pub fn equalize(img: u8[H, W]) -> u8[H, W] {
        let levels = img.reshape([H * W, 1]).convert(s32);
        let hist = broadcast(0, [256]).scatter(levels, broadcast(1, [H * W]), |a, b| a + b, ScatterDims {
            update_window_dims: [], inserted_window_dims: [0], scatter_dims_to_operand_dims: [0], index_vector_dim: 1,
        });
        let cdf = hist.cumsum(0);
        let first = select(cdf > 0, cdf, s32::MAX).reduce_min([0]);
        let scale = (cdf - first).convert(f32) / (H * W - first).convert(f32) * 255.0;
        let lut = scale.round_nearest_even().clamp(0.0, 255.0).convert(u8);
        lut.gather(levels, GatherDims {
            offset_dims: [], collapsed_slice_dims: [0], start_index_map: [0], index_vector_dim: 1,
        }, [1]).reshape([H, W])
    }
}

#[test]
fn gradient_descent_matches_jax() {
    let p = |n: &str| fx(&format!("train/{n}"));
    for (name, be) in backends() {
        let (loss, w1, b1, w2, b2) =
            train::call(be, p("x"), p("y"), p("w1"), p("b1"), p("w2"), p("b2")).unwrap();
        for (i, got) in [loss, w1, b1, w2, b2].iter().enumerate() {
            check(name, &format!("train/out{i}"), got, 1e-4, 1e-5);
        }
    }
}

#[test]
fn mandelbrot_set() {
    let (h, w) = (24, 36);
    let re: Vec<f32> = (0..h * w)
        .map(|k| -2.2 + 3.0 * (k % w) as f32 / w as f32)
        .collect();
    let im: Vec<f32> = (0..h * w)
        .map(|k| -1.2 + 2.4 * (k / w) as f32 / h as f32)
        .collect();
    let (re, im) = (lit(&[h, w], &re), lit(&[h, w], &im));
    let [(_, jit), (_, interpreter)] = backends();
    let got = mandelbrot::call(jit, &re, &im).unwrap();
    let want = mandelbrot::call(interpreter, &re, &im).unwrap();
    assert_close(
        "mandelbrot, JIT against the interpreter",
        &got,
        &want,
        0.0,
        0.0,
    );
    let counts = vals::<i32>(&want);
    // c = -2.2 - 1.2i escapes at once; c ≈ -0.03 + 0i (row 12, column 26) never does.
    assert_eq!(counts[0], 0);
    assert_eq!(counts[(12 * w + 26) as usize], 30);
}

#[test]
fn game_of_life_glider() {
    let mut grid = vec![0i32; 8 * 8];
    for (r, c) in [(0, 1), (1, 2), (2, 0), (2, 1), (2, 2)] {
        grid[r * 8 + c] = 1;
    }
    let mut moved = vec![0i32; 8 * 8];
    for (r, c) in [(1, 2), (2, 3), (3, 1), (3, 2), (3, 3)] {
        moved[r * 8 + c] = 1;
    }
    for (name, be) in backends() {
        let g = life::call(be, &lit(&[8, 8], &grid), &Literal::scalar(4i32)).unwrap();
        assert_eq!(
            vals::<i32>(&g),
            moved,
            "{name}: a glider moves one cell down and right in 4 generations"
        );
    }
}

#[test]
fn prime_sieve() {
    let want: Vec<bool> = (0..100u32)
        .map(|n| n >= 2 && (2..n).all(|d| n % d != 0))
        .collect();
    for (name, be) in backends() {
        assert_eq!(vals::<bool>(&primes::call(be).unwrap()), want, "{name}");
    }
}

#[test]
fn scan_in_log_steps() {
    let x: Vec<i32> = (0..37).map(|i| (i * 7) % 11 - 5).collect();
    let want: Vec<i32> = x
        .iter()
        .scan(0, |s, v| {
            *s += v;
            Some(*s)
        })
        .collect();
    for (name, be) in backends() {
        let y = hillis_steele::call(be, &lit(&[37], &x)).unwrap();
        assert_eq!(vals::<i32>(&y), want, "{name}");
    }
}

#[test]
fn histogram_equalization() {
    let img: Vec<u8> = (0..12 * 10).map(|k| (100 + (k * 37) % 40) as u8).collect();
    let mut hist = [0i32; 256];
    for &v in &img {
        hist[v as usize] += 1;
    }
    let cdf: Vec<i32> = hist
        .iter()
        .scan(0, |s, h| {
            *s += h;
            Some(*s)
        })
        .collect();
    let first = *cdf.iter().find(|&&c| c > 0).unwrap();
    let lut: Vec<u8> = cdf
        .iter()
        .map(|&c| {
            let v = (c - first) as f32 / (120 - first) as f32 * 255.0;
            v.round_ties_even().clamp(0.0, 255.0) as u8
        })
        .collect();
    let want: Vec<u8> = img.iter().map(|&v| lut[v as usize]).collect();
    for (name, be) in backends() {
        let y = equalize::call(be, &lit(&[12, 10], &img)).unwrap();
        assert_eq!(vals::<u8>(&y), want, "{name}");
    }
}
