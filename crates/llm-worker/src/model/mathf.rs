//! `expf`, `sinf` and `cosf` as the C library of llama.cpp's wasm build
//! (emscripten's musl) computes them, so that a forward pass can round as
//! llama.cpp's does, in the browser and natively alike.
//!
//! Rust's own `f32::exp` is the platform's: glibc natively, and in wasm a
//! port of an older FreeBSD `expf` that differs from musl's in the last
//! bit now and then. musl's `expf` works in double precision: x·32/ln 2 is
//! split into an integer k and a remainder r in [-1/2, 1/2]; 2^(k/32) is
//! a table entry (2^(i/32), i = k mod 32, correctly rounded to a double)
//! with k's high part added to its exponent, 2^(r/32) a cubic, and the
//! product is rounded once to a float. `sinf` and `cosf` are the FreeBSD
//! ones in both musl and the `libm` crate.

/// Entries of 2^(i/32) (i in 0..32), correctly rounded to doubles, with
/// `i << 47` taken off their bits so that adding `k << 47` for any k
/// with k mod 32 = i gives 2^(k/32) (see `table`).
fn table(i: usize) -> u64 {
    const T: [u64; 32] = [
        0x3ff0000000000000,
        0x3fefd9b0d3158574,
        0x3fefb5586cf9890f,
        0x3fef9301d0125b51,
        0x3fef72b83c7d517b,
        0x3fef54873168b9aa,
        0x3fef387a6e756238,
        0x3fef1e9df51fdee1,
        0x3fef06fe0a31b715,
        0x3feef1a7373aa9cb,
        0x3feedea64c123422,
        0x3feece086061892d,
        0x3feebfdad5362a27,
        0x3feeb42b569d4f82,
        0x3feeab07dd485429,
        0x3feea47eb03a5585,
        0x3feea09e667f3bcd,
        0x3fee9f75e8ec5f74,
        0x3feea11473eb0187,
        0x3feea589994cce13,
        0x3feeace5422aa0db,
        0x3feeb737b0cdc5e5,
        0x3feec49182a3f090,
        0x3feed503b23e255d,
        0x3feee89f995ad3ad,
        0x3feeff76f2fb5e47,
        0x3fef199bdd85529c,
        0x3fef3720dcef9069,
        0x3fef5818dcfba487,
        0x3fef7c97337b9b5f,
        0x3fefa4afa2a490da,
        0x3fefd0765b6e4540,
    ];
    T[i]
}

const N: f64 = 32.0;

/// e^x, as musl's `expf` rounds it.
pub fn expf(x: f32) -> f32 {
    let top = (x.to_bits() >> 20) & 0x7ff;
    if top >= 88f32.to_bits() >> 20 {
        // |x| >= 88, infinite or not a number.
        if x == f32::NEG_INFINITY {
            return 0.0;
        }
        if top >= f32::INFINITY.to_bits() >> 20 {
            return x + x;
        }
        if x > f32::from_bits(0x42b1_7217) {
            // Above ln(2^128).
            return f32::INFINITY;
        }
        if x < f32::from_bits(0xc2cf_f1b4) {
            // Below ln(2^-150).
            return 0.0;
        }
    }
    // 1/ln 2, scaled by N.
    let inv_ln2_n = f64::from_bits(0x3ff7_1547_652b_82fe) * N;
    // 1.5 · 2^52: adding it rounds to an integer, ties to even.
    let shift = f64::from_bits(0x4338_0000_0000_0000);
    let z = inv_ln2_n * x as f64;
    let kd = z + shift;
    let ki = kd.to_bits();
    let kd = kd - shift;
    let r = z - kd;
    let t = table((ki % 32) as usize).wrapping_add(ki << 47);
    let s = f64::from_bits(t);
    // 2^(r/N) - 1 ≈ c0·r³ + c1·r² + c2·r.
    let c0 = f64::from_bits(0x3fac_6af8_4b91_2394) / (N * N * N);
    let c1 = f64::from_bits(0x3fce_bfce_50fa_c4f3) / (N * N);
    let c2 = f64::from_bits(0x3fe6_2e42_ff0c_52d6) / N;
    let z = c0 * r + c1;
    let r2 = r * r;
    let y = c2 * r + 1.0;
    let y = z * r2 + y;
    (y * s) as f32
}

/// sin x, as musl's `sinf` rounds it.
pub fn sinf(x: f32) -> f32 {
    libm::sinf(x)
}

/// cos x, as musl's `cosf` rounds it.
pub fn cosf(x: f32) -> f32 {
    libm::cosf(x)
}
