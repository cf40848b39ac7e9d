//! `Read + Seek` over the browser's files, so candle reads only the header
//! and the tensors' ranges: a stored model through an OPFS sync access
//! handle, a picked `File` through `FileReaderSync` (both worker-only APIs).

use std::io::{Error, ErrorKind, Read, Result, Seek, SeekFrom};
use wasm_bindgen::JsCast;
use web_sys::{Blob, FileReaderSync, FileSystemReadWriteOptions, FileSystemSyncAccessHandle};

fn js_err(e: wasm_bindgen::JsValue) -> Error {
    Error::other(format!("{e:?}"))
}

fn seek_to(pos: &mut u64, size: u64, to: SeekFrom) -> Result<u64> {
    let next = match to {
        SeekFrom::Start(p) => p as i128,
        SeekFrom::End(d) => size as i128 + d as i128,
        SeekFrom::Current(d) => *pos as i128 + d as i128,
    };
    if next < 0 {
        return Err(Error::new(ErrorKind::InvalidInput, "seek before the start"));
    }
    *pos = next as u64;
    Ok(*pos)
}

pub struct SyncReader {
    pub handle: FileSystemSyncAccessHandle,
    pub pos: u64,
    pub size: u64,
}

impl SyncReader {
    pub fn new(handle: FileSystemSyncAccessHandle) -> Result<SyncReader> {
        let size = handle.get_size().map_err(js_err)? as u64;
        Ok(SyncReader {
            handle,
            pos: 0,
            size,
        })
    }
}

impl Read for SyncReader {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let opts = FileSystemReadWriteOptions::new();
        opts.set_at(self.pos as f64);
        let n = self
            .handle
            .read_with_u8_array_and_options(buf, &opts)
            .map_err(js_err)? as usize;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for SyncReader {
    fn seek(&mut self, to: SeekFrom) -> Result<u64> {
        seek_to(&mut self.pos, self.size, to)
    }
}

impl Drop for SyncReader {
    fn drop(&mut self) {
        self.handle.close();
    }
}

/// A `File` (or any blob) the user picked, read in slices.
pub struct BlobReader {
    blob: Blob,
    reader: FileReaderSync,
    pub pos: u64,
    pub size: u64,
}

impl BlobReader {
    pub fn new(blob: Blob) -> Result<BlobReader> {
        let size = blob.size() as u64;
        Ok(BlobReader {
            blob,
            reader: FileReaderSync::new().map_err(js_err)?,
            pos: 0,
            size,
        })
    }
}

impl Read for BlobReader {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize> {
        let end = (self.pos + buf.len() as u64).min(self.size);
        if end <= self.pos {
            return Ok(0);
        }
        let slice = self
            .blob
            .slice_with_f64_and_f64(self.pos as f64, end as f64)
            .map_err(js_err)?;
        let bytes = self.reader.read_as_array_buffer(&slice).map_err(js_err)?;
        let array = js_sys::Uint8Array::new(bytes.unchecked_ref());
        let n = array.length() as usize;
        array.copy_to(&mut buf[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for BlobReader {
    fn seek(&mut self, to: SeekFrom) -> Result<u64> {
        seek_to(&mut self.pos, self.size, to)
    }
}
