//! Q4_0: 32 4-bit values and one scale, `x = d * (q - 8)`, packed as Q4_1
//! packs them; activations in Q8_0. candle has a simd128 kernel for it,
//! but ours also takes two rows at a time and batches on unpacked rows.

use super::super::wide::{self, Wide8};
use super::super::Kernel;
use super::{bytes_at, check_len, f16_at, nibbles, quantize_row_q8_0, unpack, BlockQ8_0, QK};
use candle_core::quantized::GgmlDType;
use half::f16;

/// Q4_0: byte `j` of `qs` holds element `j` in its low nibble and element
/// `j + 16` in its high one.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockQ4_0 {
    pub d: f16,
    pub qs: [u8; QK / 2],
}
const _: () = assert!(size_of::<BlockQ4_0>() == 18);

impl Kernel for BlockQ4_0 {
    const DTYPE: GgmlDType = GgmlDType::Q4_0;
    const BLOCK: usize = QK;
    const BYTES: usize = size_of::<Self>();

    fn read(bytes: &[u8]) -> Self {
        check_len(bytes, Self::BYTES, "Q4_0");
        BlockQ4_0 {
            d: f16_at(bytes, 0),
            qs: bytes_at(bytes, 2),
        }
    }

    type Act = BlockQ8_0;
    const ACT_ZERO: BlockQ8_0 = BlockQ8_0::ZERO;

    fn quantize_act(xs: &[f32], out: &mut [BlockQ8_0]) {
        quantize_row_q8_0(xs, out)
    }

    fn dot(xs: &[Self], ys: &[BlockQ8_0]) -> f32 {
        #[cfg(target_feature = "simd128")]
        {
            super::simd::vec_dot_q4_0_q8_0(xs.len() * QK, xs, ys)
        }
        #[cfg(not(target_feature = "simd128"))]
        {
            Self::dot_scalar(xs, ys)
        }
    }

    #[cfg(target_feature = "simd128")]
    fn dot2(a: &[Self], b: &[Self], ys: &[BlockQ8_0]) -> [f32; 2] {
        debug_assert_eq!(a.len(), b.len(), "vec_dot_q4_0_q8_0: rows differ");
        super::simd::vec_dot_rows_q4_0_q8_0(a.len() * QK, [a, b], ys)
    }

    /// ggml's `ggml_vec_dot_q4_0_q8_0`: per block `sum((q - 8) * yq) * d * yd`.
    fn dot_scalar(xs: &[Self], ys: &[BlockQ8_0]) -> f32 {
        debug_assert_eq!(xs.len(), ys.len(), "vec_dot_q4_0_q8_0: size mismatch");
        let mut sumf = 0f32;
        for (x, y) in xs.iter().zip(ys) {
            let mut sumi = 0i32;
            for j in 0..QK / 2 {
                let (v0, v1) = nibbles(&x.qs, j);
                sumi += (v0 - 8) * y.qs[j] as i32 + (v1 - 8) * y.qs[j + QK / 2] as i32;
            }
            sumf += sumi as f32 * x.d.to_f32() * y.d.to_f32();
        }
        sumf
    }

    fn dequantize(xs: &[Self], out: &mut [f32]) {
        debug_assert_eq!(
            out.len(),
            xs.len() * QK,
            "dequantize_row_q4_0: size mismatch"
        );
        for (x, out) in xs.iter().zip(out.chunks_exact_mut(QK)) {
            let d = x.d.to_f32();
            for j in 0..QK / 2 {
                let (v0, v1) = nibbles(&x.qs, j);
                out[j] = (v0 - 8) as f32 * d;
                out[j + QK / 2] = (v1 - 8) as f32 * d;
            }
        }
    }

    type Wide = Wide8;
    const WIDE_ZERO: Wide8 = Wide8::ZERO;
    const WIDEN_FROM: usize = 4;

    fn widen(&self) -> Wide8 {
        Wide8 {
            d: self.d.to_f32(),
            qs: unpack(|j| nibbles(&self.qs, j), -8),
        }
    }

    fn dot_wide(xs: &[Wide8], ys: &[BlockQ8_0]) -> f32 {
        wide::dot8(xs, ys)
    }

    fn dot_wide4(xs: &[Wide8], ys: [&[BlockQ8_0]; 4]) -> [f32; 4] {
        wide::dot8_4(xs, ys)
    }
}
