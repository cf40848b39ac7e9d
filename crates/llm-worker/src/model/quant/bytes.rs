//! Blocks as a GGUF file stores them: `block!` declares one (its fields'
//! bytes in order, little-endian, no padding) and `read` takes one from
//! its bytes.

/// A type any bytes of its size are a valid value of, laid out as a GGUF
/// file stores it. Implemented for the plain numbers blocks hold, arrays
/// of them, and the structs `block!` declares from them.
///
/// # Safety
/// The type has no padding and every bit pattern of its bytes is a value.
pub unsafe trait Plain: Copy {}

// SAFETY: integers and floats of every bit pattern, no padding.
unsafe impl Plain for u8 {}
// SAFETY: as above.
unsafe impl Plain for i8 {}
// SAFETY: as above.
unsafe impl Plain for i16 {}
// SAFETY: as above.
unsafe impl Plain for f32 {}
// SAFETY: `f16` is a `u16` (its bits).
unsafe impl Plain for half::f16 {}
// SAFETY: an array has its elements' bytes and no padding of its own.
unsafe impl<T: Plain, const N: usize> Plain for [T; N] {}

// Blocks are read with the machine's byte order: GGUF's is little-endian,
// as are wasm's and the native targets'.
const _: () = assert!(cfg!(target_endian = "little"));

/// One `T` from its stored bytes (`bytes.len() == size_of::<T>()`).
pub fn read<T: Plain>(bytes: &[u8]) -> T {
    let size = size_of::<T>();
    assert_eq!(
        bytes.len(),
        size,
        "a {} block is {size} bytes",
        std::any::type_name::<T>()
    );
    // SAFETY: `bytes` holds `size_of::<T>()` bytes, any of which are a `T`
    // (`Plain`); the read needs no alignment.
    unsafe { bytes.as_ptr().cast::<T>().read_unaligned() }
}

/// The all-zero `T`.
pub const fn zeroed<T: Plain>() -> T {
    // SAFETY: any bytes are a `T` (`Plain`), zeros too.
    unsafe { std::mem::zeroed() }
}

/// Declares a block type: the struct as written, `#[repr(C)]`, with the
/// derives every block has and `Plain`, its size checked to be `$bytes`
/// and the sum of its fields' (so it has no padding).
macro_rules! block {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($(#[$field_meta:meta])* pub $field:ident: $ty:ty),+ $(,)?
        } = $bytes:literal bytes
    ) => {
        $(#[$meta])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name {
            $($(#[$field_meta])* pub $field: $ty,)+
        }
        const _: () = assert!(size_of::<$name>() == $bytes);
        const _: () = assert!(size_of::<$name>() == 0 $(+ size_of::<$ty>())+);
        const _: () = {
            const fn plain<T: $crate::model::quant::bytes::Plain>() {}
            $(plain::<$ty>();)+
        };
        // SAFETY: `repr(C)` with no padding (the sizes above) and every
        // field `Plain` (`plain`).
        unsafe impl $crate::model::quant::bytes::Plain for $name {}
    };
}
pub(crate) use block;
