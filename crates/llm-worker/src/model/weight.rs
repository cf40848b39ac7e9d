//! A weight matrix and its product with a batch of tokens.
//!
//! A matrix of a type with kernels of ours (`quant::packed`) is multiplied
//! by them directly, not through candle's `QMatMul::forward`: natively,
//! candle 0.11 hands Q4_K, Q6_K and (on CPUs with VNNI) Q8_0 products to
//! kernels of its own, repacked, before our storage is asked, so the CLI's
//! sums were not the page's (nor the scalar kernel's the tests check).
//! Other types go through candle.

use candle_core::quantized::{QMatMul, QTensor, QuantizedType};
use candle_core::{DType, Device, Module, Result, Tensor};
use std::sync::Arc;

pub(super) struct Weight {
    qmm: QMatMul,
    /// The same blocks on our kernels, when the type has them.
    ours: Option<Arc<dyn QuantizedType>>,
}

impl Weight {
    pub(super) fn new(t: QTensor, ours: Option<Arc<dyn QuantizedType>>) -> Result<Weight> {
        Ok(Weight {
            qmm: QMatMul::from_qtensor(t)?,
            ours,
        })
    }

    /// The tied output head: the embedding table's own tensor.
    pub(super) fn shared(t: &Arc<QTensor>, ours: Option<Arc<dyn QuantizedType>>) -> Result<Weight> {
        Ok(Weight {
            qmm: QMatMul::from_arc(t.clone())?,
            ours,
        })
    }

    /// (rows, columns).
    pub(super) fn dims(&self) -> (usize, usize) {
        let d = match &self.qmm {
            QMatMul::QTensor(t) => t.shape().dims(),
            QMatMul::Tensor(t) | QMatMul::TensorF16(t) => t.dims(),
        };
        match d {
            [r, c] => (*r, *c),
            [c] => (1, *c),
            _ => (0, 0),
        }
    }

    /// Bytes as stored.
    pub(super) fn bytes(&self) -> usize {
        match &self.qmm {
            QMatMul::QTensor(t) => t.storage_size_in_bytes(),
            QMatMul::Tensor(t) | QMatMul::TensorF16(t) => {
                t.elem_count() * t.dtype().size_in_bytes()
            }
        }
    }

    /// `x` (1, m, k) times the matrix's rows: (1, m, rows); a share of no
    /// rows (a small matrix split many ways) gives no values.
    pub(super) fn apply(&self, x: &Tensor) -> Result<Tensor> {
        let (n, k) = self.dims();
        if n == 0 {
            return Tensor::zeros((1, x.dim(1)?, 0), DType::F32, &Device::Cpu);
        }
        let Some(ours) = &self.ours else {
            return self.qmm.forward(x);
        };
        let (_, m, width) = x.dims3()?;
        if width != k {
            candle_core::bail!("a product of {width} values with rows of {k}")
        }
        let lhs: Vec<f32> = x.flatten_all()?.to_vec1()?;
        let mut dst = vec![0f32; m * n];
        ours.matmul_t((m, k, n), &lhs, &mut dst)?;
        Tensor::from_vec(dst, (1, m, n), &Device::Cpu)
    }
}
