//! Reading a model's tensors from a GGUF file: whole, or a share of a
//! matrix's rows (`split::Part`), on our kernels or candle's.

use super::weight::Weight;
use crate::model::quant::packed;
use crate::model::split::Part;
use candle_core::quantized::gguf_file::Content;
use candle_core::quantized::{QStorage, QTensor, QuantizedType};
use candle_core::{Device, Result};
use std::borrow::Cow;
use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

/// Reads one tensor: ours when the type is one we have kernels for,
/// candle's otherwise.
pub(super) fn load_tensor<R: Read + Seek>(
    content: &Content,
    reader: &mut R,
    name: &str,
) -> Result<QTensor> {
    Ok(load_rows(content, reader, name, Part::WHOLE)?.0)
}

/// `part`'s rows of a weight matrix (`load_rows`), as a `Weight`.
pub(super) fn load_weight<R: Read + Seek>(
    content: &Content,
    reader: &mut R,
    name: &str,
    part: Part,
) -> Result<Weight> {
    let (t, ours) = load_rows(content, reader, name, part)?;
    Weight::new(t, ours)
}

/// Reads `part`'s rows of a matrix (each row is a contiguous run of
/// blocks in the file), and for a type with kernels of ours the same
/// blocks as our storage (shared with the tensor).
pub(super) fn load_rows<R: Read + Seek>(
    content: &Content,
    reader: &mut R,
    name: &str,
    part: Part,
) -> Result<(QTensor, Option<Arc<dyn QuantizedType>>)> {
    let Some(info) = content.tensor_infos.get(name) else {
        candle_core::bail!("the file has no tensor {name}")
    };
    let dtype = info.ggml_dtype;
    let dims = info.shape.dims();
    let (rows, cols) = match dims {
        [r, c] => (*r, *c),
        [c] => (1, *c),
        _ => candle_core::bail!("tensor {name} has {} dimensions", dims.len()),
    };
    if cols % dtype.block_size() != 0 {
        candle_core::bail!("tensor {name}'s rows of {cols} are not whole {dtype:?} blocks")
    }
    if part.is_whole() && !packed::has_kernels(dtype) {
        return Ok((
            info.read(reader, content.tensor_data_offset, &Device::Cpu)?,
            None,
        ));
    }
    let row_bytes = cols / dtype.block_size() * dtype.type_size();
    let mine = part.rows(rows);
    let len = mine.len() * row_bytes;
    let start = content.tensor_data_offset + info.offset + (mine.start * row_bytes) as u64;
    reader.seek(SeekFrom::Start(start))?;
    // candle views the bytes as blocks in place: a buffer aligned for any
    // block type (an empty share included).
    let mut words = vec![0u64; len.div_ceil(8)];
    // SAFETY: a view of the buffer's first `len` bytes; any bytes are
    // valid u64 words, and u8 needs no alignment.
    let data = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, len) };
    reader.read_exact(data)?;
    let shape = if dims.len() == 2 {
        candle_core::Shape::from((mine.len(), cols))
    } else {
        info.shape.clone()
    };
    if packed::has_kernels(dtype) {
        let (t, ours) = packed::qtensor(dtype, data, shape)?;
        return Ok((t, Some(ours)));
    }
    let t = QTensor::new(
        QStorage::from_data(Cow::Borrowed(data), &Device::Cpu, dtype)?,
        shape,
    )?;
    Ok((t, None))
}
