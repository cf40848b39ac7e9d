//! Weights of a `Kernel` type as candle tensors: `Packed` implements
//! candle's `QuantizedType`, so a `QTensor` built on it multiplies with our
//! kernels wherever candle's own `QMatMul` is used.
//!
//! The product reads each weight row once for the whole batch: activations
//! are quantised first, then every row is multiplied with every token
//! while it sits in cache. A prompt read as one batch costs one pass over
//! the weights per layer, not one per token.

use super::Kernel;
use candle_core::quantized::{GgmlDType, QStorage, QTensor, QuantizedType};
use candle_core::{CpuStorage, Result, Shape};
use half::f16;
use std::sync::Arc;

/// The blocks are shared: a model multiplies with its matrices directly
/// (`model::weight`) as well as through their `QTensor`s.
pub struct Packed<T: Kernel> {
    // A Vec behind the Arc: collecting into `Arc<[T]>` copies the blocks.
    blocks: Arc<Vec<T>>,
}

impl<T: Kernel> Clone for Packed<T> {
    fn clone(&self) -> Self {
        Packed {
            blocks: self.blocks.clone(),
        }
    }
}

impl<T: Kernel> Packed<T> {
    /// Blocks from a tensor's bytes as the GGUF file stores them.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() % T::BYTES != 0 {
            candle_core::bail!(
                "{:?} data of {} bytes is not a whole number of {}-byte blocks",
                T::DTYPE,
                bytes.len(),
                T::BYTES
            )
        }
        Ok(Packed {
            blocks: Arc::new(bytes.chunks_exact(T::BYTES).map(T::read).collect()),
        })
    }
}

/// The `m` tokens of `lhs` (`k` values each) quantised to `T`'s activations.
pub fn quantize<T: Kernel>(lhs: &[f32], k: usize, m: usize) -> Vec<T::Act> {
    let mut act = vec![T::ACT_ZERO; m * (k / T::BLOCK)];
    for (x, q) in lhs.chunks_exact(k).zip(act.chunks_exact_mut(k / T::BLOCK)) {
        T::quantize_act(x, q);
    }
    act
}

/// `dst[i][j] = Σ lhs[i][·] · rows[j][·]` for `m` tokens of `k` values
/// and `n` weight rows (`dst` is `m × n`), with the kernel's `dot`.
pub fn matmul<T: Kernel>(
    (m, k, n): (usize, usize, usize),
    lhs: &[f32],
    rows: &[T],
    dst: &mut [f32],
) -> Result<()> {
    if k % T::BLOCK != 0
        || lhs.len() != m * k
        || dst.len() < m * n
        || rows.len() < n * (k / T::BLOCK)
    {
        candle_core::bail!(
            "{:?} matmul of ({m}, {k}, {n}): {} input values, {} outputs, {} weight blocks",
            T::DTYPE,
            lhs.len(),
            dst.len(),
            rows.len()
        )
    }
    let kb = k / T::BLOCK;
    #[cfg(not(target_arch = "wasm32"))]
    let act = super::native::quantize_split::<T>(lhs, k, m);
    #[cfg(target_arch = "wasm32")]
    let act = quantize::<T>(lhs, k, m);
    #[cfg(not(target_arch = "wasm32"))]
    super::native::products::<T>((m, n, kb), &act, rows, dst);
    #[cfg(target_arch = "wasm32")]
    products::<T>((m, n, kb), &act, rows, dst, n);
    Ok(())
}

/// `dst[i * stride + j]` for `m` tokens' quantised activations `act`
/// (`kb` blocks each) and the first `n` rows of `rows`.
#[inline(always)]
pub(super) fn products<T: Kernel>(
    (m, n, kb): (usize, usize, usize),
    act: &[T::Act],
    rows: &[T],
    dst: &mut [f32],
    stride: usize,
) {
    if m >= T::WIDEN_FROM {
        // A batch: each row unpacked once, then plain 8-bit products.
        let mut wide = vec![T::WIDE_ZERO; kb];
        // Tokens four at a time, the last `m % 4` one by one.
        let quads = m / 4 * 4;
        for (j, row) in rows.chunks_exact(kb).take(n).enumerate() {
            for (w, x) in wide.iter_mut().zip(row) {
                *w = x.widen();
            }
            for (t, four) in act.chunks_exact(4 * kb).enumerate() {
                let q = |i: usize| &four[i * kb..(i + 1) * kb];
                let sums = T::dot_wide4(&wide, [q(0), q(1), q(2), q(3)]);
                for (i, s) in sums.into_iter().enumerate() {
                    dst[(4 * t + i) * stride + j] = s;
                }
            }
            for (i, q) in act.chunks_exact(kb).enumerate().skip(quads) {
                dst[i * stride + j] = T::dot_wide(&wide, q);
            }
        }
        return;
    }
    // A few tokens: two rows at a time, each token's activations loaded
    // once for both; an odd last row alone.
    for (p, two) in rows.chunks_exact(2 * kb).take(n / 2).enumerate() {
        let (a, b) = two.split_at(kb);
        for (i, q) in act.chunks_exact(kb).enumerate() {
            let [x, y] = T::dot2(a, b, q);
            dst[i * stride + 2 * p] = x;
            dst[i * stride + 2 * p + 1] = y;
        }
    }
    if n % 2 == 1 {
        let row = &rows[(n - 1) * kb..n * kb];
        for (i, q) in act.chunks_exact(kb).enumerate() {
            dst[i * stride + n - 1] = T::dot(row, q);
        }
    }
}

impl<T: Kernel> QuantizedType for Packed<T> {
    fn dtype(&self) -> GgmlDType {
        T::DTYPE
    }
    fn matmul_t(&self, mkn: (usize, usize, usize), lhs: &[f32], dst: &mut [f32]) -> Result<()> {
        matmul(mkn, lhs, &self.blocks, dst)
    }
    fn matmul_t_f16(
        &self,
        (m, k, n): (usize, usize, usize),
        lhs: &[f16],
        dst: &mut [f16],
    ) -> Result<()> {
        let lhs: Vec<f32> = lhs.iter().map(|v| v.to_f32()).collect();
        let mut out = vec![0f32; m * n];
        matmul((m, k, n), &lhs, &self.blocks, &mut out)?;
        for (d, v) in dst.iter_mut().zip(out) {
            *d = f16::from_f32(v);
        }
        Ok(())
    }
    fn embedding(&self, ids: &[u32], rows: usize, hidden: usize) -> Result<CpuStorage> {
        if hidden % T::BLOCK != 0 {
            candle_core::bail!("embedding width {hidden} is not a multiple of {}", T::BLOCK)
        }
        let kb = hidden / T::BLOCK;
        let mut out = vec![0f32; ids.len() * hidden];
        for (&id, o) in ids.iter().zip(out.chunks_exact_mut(hidden)) {
            let id = id as usize;
            if id >= rows || (id + 1) * kb > self.blocks.len() {
                candle_core::bail!("token {id} is outside the embedding's {rows} rows")
            }
            T::dequantize(&self.blocks[id * kb..(id + 1) * kb], o);
        }
        Ok(CpuStorage::F32(out))
    }
    fn dequantize(&self, elem_count: usize) -> Result<CpuStorage> {
        let mut out = vec![0f32; self.blocks.len() * T::BLOCK];
        T::dequantize(&self.blocks, &mut out);
        out.truncate(elem_count);
        Ok(CpuStorage::F32(out))
    }
    fn storage_size_in_bytes(&self) -> usize {
        self.blocks.len() * T::BYTES
    }
    fn as_ptr(&self) -> *const u8 {
        self.blocks.as_ptr() as *const u8
    }
    fn block_size(&self) -> usize {
        T::BLOCK
    }
    /// Weights come from files only; quantising floats into these types is
    /// candle's job (its own storage), never asked of this one.
    fn from_float(&mut self, _xs: &[f32]) {
        debug_assert!(
            false,
            "Packed<{:?}> is read from files, not quantised",
            T::DTYPE
        );
    }
    fn from_float_imatrix(&mut self, _xs: &[f32], _w: &[f32], _n: usize) {
        debug_assert!(
            false,
            "Packed<{:?}> is read from files, not quantised",
            T::DTYPE
        );
    }
    fn size(&self) -> usize {
        self.blocks.len() * std::mem::size_of::<T>()
    }
}

/// Whether `dtype` runs on our kernels (the others are candle's): every
/// type the page has kernels for, natively too (AVX2 where the CPU has
/// it, `quant::native`), so that the CLI's model sums as the page's does.
pub fn has_kernels(dtype: GgmlDType) -> bool {
    matches!(
        dtype,
        GgmlDType::Q8_0
            | GgmlDType::Q4_0
            | GgmlDType::Q4_1
            | GgmlDType::Q5_0
            | GgmlDType::Q5_1
            | GgmlDType::Q2K
            | GgmlDType::Q3K
            | GgmlDType::Q4K
            | GgmlDType::Q5K
            | GgmlDType::Q6K
    )
}

/// A `QTensor` of `dtype` on our kernels from its stored bytes (a type
/// `has_kernels` names), and the same blocks as a storage of their own.
pub fn qtensor(
    dtype: GgmlDType,
    bytes: &[u8],
    shape: Shape,
) -> Result<(QTensor, Arc<dyn QuantizedType>)> {
    use super::activation::BlockQ8_0;
    use super::kquants::{BlockQ2K, BlockQ3K, BlockQ4K, BlockQ5K, BlockQ6K};
    use super::legacy::{BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1};
    fn make<T: Kernel>(bytes: &[u8], shape: Shape) -> Result<(QTensor, Arc<dyn QuantizedType>)> {
        let p = Packed::<T>::from_bytes(bytes)?;
        let t = QTensor::new(QStorage::Cpu(Box::new(p.clone())), shape)?;
        Ok((t, Arc::new(p)))
    }
    match dtype {
        GgmlDType::Q8_0 => make::<BlockQ8_0>(bytes, shape),
        GgmlDType::Q4_0 => make::<BlockQ4_0>(bytes, shape),
        GgmlDType::Q4_1 => make::<BlockQ4_1>(bytes, shape),
        GgmlDType::Q5_0 => make::<BlockQ5_0>(bytes, shape),
        GgmlDType::Q5_1 => make::<BlockQ5_1>(bytes, shape),
        GgmlDType::Q2K => make::<BlockQ2K>(bytes, shape),
        GgmlDType::Q3K => make::<BlockQ3K>(bytes, shape),
        GgmlDType::Q4K => make::<BlockQ4K>(bytes, shape),
        GgmlDType::Q5K => make::<BlockQ5K>(bytes, shape),
        GgmlDType::Q6K => make::<BlockQ6K>(bytes, shape),
        other => candle_core::bail!("{other:?} has no kernels of ours"),
    }
}
