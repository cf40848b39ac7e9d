//! Reading a model's tensors from a GGUF file: whole, or a share of a
//! matrix's rows (`split::Part`), on our kernels or candle's.

use crate::model::quant::packed;
use crate::model::split::Part;
use candle_core::quantized::gguf_file::Content;
use candle_core::quantized::{QStorage, QTensor};
use candle_core::{Device, Result};
use std::borrow::Cow;
use std::io::{Read, Seek, SeekFrom};

/// Reads one tensor: ours when the type is one we have kernels for,
/// candle's otherwise.
pub(super) fn load_tensor<R: Read + Seek>(
    content: &Content,
    reader: &mut R,
    name: &str,
) -> Result<QTensor> {
    load_rows(content, reader, name, Part::WHOLE)
}

/// Reads `part`'s rows of a matrix (each row is a contiguous run of
/// blocks in the file).
pub(super) fn load_rows<R: Read + Seek>(
    content: &Content,
    reader: &mut R,
    name: &str,
    part: Part,
) -> Result<QTensor> {
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
        return info.read(reader, content.tensor_data_offset, &Device::Cpu);
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
        return packed::qtensor(dtype, data, shape);
    }
    QTensor::new(
        QStorage::from_data(Cow::Borrowed(data), &Device::Cpu, dtype)?,
        shape,
    )
}
