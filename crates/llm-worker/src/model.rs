//! The transformer itself (llama and qwen2 layouts), on candle tensors:
//! weights of the types candle has wasm SIMD kernels for are candle's own
//! `QTensor`s, the others are `quant::packed` ones on our kernels. The
//! weights are shared; each conversation's keys and values live in a
//! `Cache` of its own.
//!
//! A forward pass runs layer by layer (`begin`, `layer`, `finish`), so the
//! engine can read a whole prompt as one batch and still report progress
//! and take a cancel between layers.

use crate::inspect::Meta;
use crate::quant::packed;
use candle_core::quantized::gguf_file::Content;
use candle_core::quantized::{QMatMul, QTensor};
use candle_core::{DType, Device, Module, Result, Tensor};
use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

struct Layer {
    attn_norm: Tensor,
    q: QMatMul,
    k: QMatMul,
    v: QMatMul,
    o: QMatMul,
    /// qwen2's attention biases.
    bias: Option<[Tensor; 3]>,
    ffn_norm: Tensor,
    gate: QMatMul,
    up: QMatMul,
    down: QMatMul,
}

pub struct Model {
    embed: Tensor,
    layers: Vec<Layer>,
    norm: Tensor,
    output: QMatMul,
    eps: f64,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    /// Rotary tables, one row per position (`max_context` × rope_dim/2).
    cos: Tensor,
    sin: Tensor,
    /// Rotation of (i, i + d/2) pairs (qwen2) rather than (2i, 2i + 1).
    neox: bool,
}

/// One conversation's keys and values, per layer: (1, kv_heads, t, head_dim).
#[derive(Clone, Default)]
pub struct Cache {
    kv: Vec<Option<(Tensor, Tensor)>>,
}

impl Cache {
    /// Positions held.
    pub fn len(&self) -> usize {
        match self.kv.first() {
            Some(Some((k, _))) => k.dim(2).unwrap_or(0),
            _ => 0,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn clear(&mut self) {
        self.kv.clear();
    }
}

/// A forward pass in progress: the hidden states of the tokens fed.
pub struct Pass {
    x: Tensor,
    pos: usize,
    seq: usize,
    layer: usize,
    mask: Option<Tensor>,
}

impl Pass {
    pub fn layers_done(&self) -> usize {
        self.layer
    }
    /// The position after the pass's last token.
    pub fn end(&self) -> usize {
        self.pos + self.seq
    }
}

/// Reads one tensor: ours when the type is one we have kernels for,
/// candle's otherwise.
fn load_tensor<R: Read + Seek>(content: &Content, reader: &mut R, name: &str) -> Result<QTensor> {
    let Some(info) = content.tensor_infos.get(name) else {
        candle_core::bail!("the file has no tensor {name}")
    };
    let dtype = info.ggml_dtype;
    let elems = info.shape.elem_count();
    let bytes = elems / dtype.block_size() * dtype.type_size();
    if packed::has_kernels(dtype) {
        let mut data = vec![0u8; bytes];
        reader.seek(SeekFrom::Start(content.tensor_data_offset + info.offset))?;
        reader.read_exact(&mut data)?;
        return packed::qtensor(dtype, &data, info.shape.clone());
    }
    info.read(reader, content.tensor_data_offset, &Device::Cpu)
}

fn floats(t: QTensor) -> Result<Tensor> {
    t.dequantize(&Device::Cpu)
}

fn rope_tables(dim: usize, base: f32, len: usize) -> Result<(Tensor, Tensor)> {
    let inv: Vec<f32> = (0..dim)
        .step_by(2)
        .map(|i| 1f32 / base.powf(i as f32 / dim as f32))
        .collect();
    let half = inv.len();
    let inv = Tensor::from_vec(inv, (1, half), &Device::Cpu)?;
    let pos = Tensor::arange(0u32, len as u32, &Device::Cpu)?
        .to_dtype(DType::F32)?
        .reshape((len, 1))?;
    let angles = pos.matmul(&inv)?;
    Ok((angles.cos()?, angles.sin()?))
}

impl Model {
    pub fn load<R: Read + Seek>(
        content: &Content,
        reader: &mut R,
        arch: &str,
        max_context: usize,
    ) -> Result<Model> {
        let meta = Meta(&content.metadata);
        let key = |k: &str| format!("{arch}.{k}");
        let need = |k: &str| {
            meta.u32(&key(k))
                .map(|v| v as usize)
                .ok_or_else(|| candle_core::Error::Msg(format!("the file has no {}", key(k))))
        };
        let f32_of = |k: &str| meta.get(&key(k)).and_then(|v| v.to_f32().ok());
        let heads = need("attention.head_count")?;
        let kv_heads = meta
            .u32(&key("attention.head_count_kv"))
            .map(|v| v as usize)
            .unwrap_or(heads);
        let hidden = need("embedding_length")?;
        let blocks = need("block_count")?;
        if heads == 0 || kv_heads == 0 || hidden % heads != 0 || heads % kv_heads != 0 {
            candle_core::bail!("{heads} attention heads ({kv_heads} for keys and values) do not divide a width of {hidden}")
        }
        let head_dim = hidden / heads;
        let rope_dim = meta
            .u32(&key("rope.dimension_count"))
            .map(|v| v as usize)
            .unwrap_or(head_dim);
        if rope_dim != head_dim {
            candle_core::bail!(
                "rotary embeddings over {rope_dim} of each head's {head_dim} values are not supported"
            )
        }
        let eps = f32_of("attention.layer_norm_rms_epsilon").unwrap_or(1e-5) as f64;
        let base = f32_of("rope.freq_base").unwrap_or(10_000.0);
        let (cos, sin) = rope_tables(rope_dim, base, max_context)?;

        let embed_q = Arc::new(load_tensor(content, reader, "token_embd.weight")?);
        let embed = embed_q.dequantize(&Device::Cpu)?;
        let output = if content.tensor_infos.contains_key("output.weight") {
            QMatMul::from_qtensor(load_tensor(content, reader, "output.weight")?)?
        } else {
            QMatMul::from_arc(embed_q)?
        };
        let norm = floats(load_tensor(content, reader, "output_norm.weight")?)?;
        let mut layers = Vec::with_capacity(blocks);
        for i in 0..blocks {
            let mut t = |n: &str| load_tensor(content, reader, &format!("blk.{i}.{n}"));
            let mm = |q: QTensor| QMatMul::from_qtensor(q);
            let bias = if arch == "qwen2" {
                Some([
                    floats(t("attn_q.bias")?)?,
                    floats(t("attn_k.bias")?)?,
                    floats(t("attn_v.bias")?)?,
                ])
            } else {
                None
            };
            layers.push(Layer {
                attn_norm: floats(t("attn_norm.weight")?)?,
                q: mm(t("attn_q.weight")?)?,
                k: mm(t("attn_k.weight")?)?,
                v: mm(t("attn_v.weight")?)?,
                o: mm(t("attn_output.weight")?)?,
                bias,
                ffn_norm: floats(t("ffn_norm.weight")?)?,
                gate: mm(t("ffn_gate.weight")?)?,
                up: mm(t("ffn_up.weight")?)?,
                down: mm(t("ffn_down.weight")?)?,
            });
        }
        Ok(Model {
            embed,
            layers,
            norm,
            output,
            eps,
            heads,
            kv_heads,
            head_dim,
            cos,
            sin,
            neox: arch == "qwen2",
        })
    }

    pub fn layers(&self) -> usize {
        self.layers.len()
    }

    /// Starts a pass over `tokens`, which follow the cache's positions.
    pub fn begin(&self, tokens: &[u32], cache: &Cache) -> Result<Pass> {
        let seq = tokens.len();
        if seq == 0 {
            candle_core::bail!("a forward pass needs at least one token")
        }
        let pos = cache.len();
        if pos + seq > self.cos.dim(0)? {
            candle_core::bail!(
                "{} positions exceed the context of {}",
                pos + seq,
                self.cos.dim(0)?
            )
        }
        let ids = Tensor::new(tokens, &Device::Cpu)?;
        let x = self.embed.index_select(&ids, 0)?.unsqueeze(0)?;
        // Causal mask: token i sees the cache and tokens 0..=i.
        let mask = (seq > 1)
            .then(|| {
                let t = pos + seq;
                let m: Vec<f32> = (0..seq)
                    .flat_map(|i| {
                        (0..t).map(move |j| if j > pos + i { f32::NEG_INFINITY } else { 0.0 })
                    })
                    .collect();
                Tensor::from_vec(m, (seq, t), &Device::Cpu)
            })
            .transpose()?;
        Ok(Pass {
            x,
            pos,
            seq,
            layer: 0,
            mask,
        })
    }

    fn rope(&self, x: &Tensor, pos: usize, seq: usize) -> Result<Tensor> {
        let cos = self.cos.narrow(0, pos, seq)?;
        let sin = self.sin.narrow(0, pos, seq)?;
        if self.neox {
            candle_nn::rotary_emb::rope(x, &cos, &sin)
        } else {
            candle_nn::rotary_emb::rope_i(x, &cos, &sin)
        }
    }

    /// Runs the pass's next layer, extending the cache.
    pub fn layer(&self, pass: &mut Pass, cache: &mut Cache) -> Result<()> {
        let Some(l) = self.layers.get(pass.layer) else {
            candle_core::bail!("the pass has run every layer")
        };
        let (seq, pos, hd) = (pass.seq, pass.pos, self.head_dim);
        let (h, kvh) = (self.heads, self.kv_heads);
        let x = &pass.x;
        let n = candle_nn::ops::rms_norm(x, &l.attn_norm, self.eps as f32)?;
        let (mut q, mut k, mut v) = (l.q.forward(&n)?, l.k.forward(&n)?, l.v.forward(&n)?);
        if let Some([bq, bk, bv]) = &l.bias {
            q = q.broadcast_add(bq)?;
            k = k.broadcast_add(bk)?;
            v = v.broadcast_add(bv)?;
        }
        let heads = |t: Tensor, n: usize| t.reshape((1, seq, n, hd))?.transpose(1, 2)?.contiguous();
        let q = self.rope(&heads(q, h)?, pos, seq)?;
        let k = self.rope(&heads(k, kvh)?, pos, seq)?;
        let v = heads(v, kvh)?;
        if cache.kv.len() < self.layers.len() {
            cache.kv.resize(self.layers.len(), None);
        }
        let (k, v) = match cache.kv[pass.layer].take() {
            Some((ck, cv)) => (Tensor::cat(&[&ck, &k], 2)?, Tensor::cat(&[&cv, &v], 2)?),
            None => (k, v),
        };
        cache.kv[pass.layer] = Some((k.clone(), v.clone()));
        let t = k.dim(2)?;
        // Grouped-query attention without copying keys: the query heads that
        // share a key head are stacked as rows of one product.
        let rep = h / kvh;
        let q = q.reshape((1, kvh, rep * seq, hd))?;
        let scores = (q.matmul(&k.t()?)? / (hd as f64).sqrt())?;
        let scores = match &pass.mask {
            Some(m) => scores
                .reshape((1, kvh, rep, seq, t))?
                .broadcast_add(m)?
                .reshape((1, kvh, rep * seq, t))?,
            None => scores,
        };
        let att = candle_nn::ops::softmax_last_dim(&scores)?.matmul(&v)?;
        let att = att
            .reshape((1, h, seq, hd))?
            .transpose(1, 2)?
            .reshape((1, seq, h * hd))?;
        let x = (l.o.forward(&att)? + x)?;
        let n = candle_nn::ops::rms_norm(&x, &l.ffn_norm, self.eps as f32)?;
        let ff = (candle_nn::ops::silu(&l.gate.forward(&n)?)? * l.up.forward(&n)?)?;
        pass.x = (l.down.forward(&ff)? + x)?;
        pass.layer += 1;
        Ok(())
    }

    /// The next token's logits (vocabulary-long) after the pass's last token.
    pub fn finish(&self, pass: Pass) -> Result<Tensor> {
        if pass.layer != self.layers.len() {
            candle_core::bail!(
                "the pass has run {} of {} layers",
                pass.layer,
                self.layers.len()
            )
        }
        let x = pass.x.narrow(1, pass.seq - 1, 1)?;
        let x = candle_nn::ops::rms_norm(&x, &self.norm, self.eps as f32)?;
        self.output.forward(&x)?.flatten_all()?.to_dtype(DType::F32)
    }

    /// A whole forward pass.
    pub fn forward(&self, tokens: &[u32], cache: &mut Cache) -> Result<Tensor> {
        let mut pass = self.begin(tokens, cache)?;
        while pass.layer < self.layers.len() {
            self.layer(&mut pass, cache)?;
        }
        self.finish(pass)
    }
}
