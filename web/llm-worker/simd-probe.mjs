// Whether this browser's relaxed SIMD computes the byte dot products the
// model worker's relaxed build relies on (scripts/build-wasm.sh copies this
// file beside worker.js, which imports it).
//
// Validating a module that uses them is not enough: Node 20's V8 (11.3)
// validates and runs i32x4.relaxed_dot_i8x16_i7x16_add_s, but on CPUs with
// AVX-VNNI it returns twice the sum (seen: -120 for four products of -3·5),
// while Chromium 156 on the same CPU returns -60. So a tiny module is run
// on numbers whose sums are known, through both instructions the build
// uses, with a negative signed operand (the case that differs).

/** A module exporting `add(a, b)`: lane 0 of i32x4.relaxed_dot_i8x16_i7x16_add_s
 * (splat a, splat b, 0), and `dot(a, b)`: lane 0 of
 * i16x8.relaxed_dot_i8x16_i7x16_s (splat a, splat b), sign-extended. */
const splats = [0x20, 0x00, 0xfd, 0x0f, 0x20, 0x01, 0xfd, 0x0f];
const add = [0, ...splats, 0xfd, 0x0c, ...new Array(16).fill(0), 0xfd, 0x93, 0x02, 0xfd, 0x1b, 0x00, 0x0b];
const dot = [0, ...splats, 0xfd, 0x92, 0x02, 0xfd, 0x18, 0x00, 0x0b];
export const PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, // type: (i32, i32) -> i32
  0x03, 0x03, 0x02, 0x00, 0x00, // two functions of it
  0x07, 0x0d, 0x02, 0x03, 0x61, 0x64, 0x64, 0x00, 0x00, 0x03, 0x64, 0x6f, 0x74, 0x00, 0x01, // "add", "dot"
  0x0a, 3 + add.length + dot.length, 0x02, add.length, ...add, dot.length, ...dot,
]);

/**
 * "relaxed" when relaxed SIMD validates and gives the right sums, else why
 * not: "missing" (the browser has none) or "wrong" (it has it, with sums
 * the kernels cannot use). `wasm` is the WebAssembly namespace (tests pass
 * stand-ins).
 */
export function relaxedSimd(wasm = WebAssembly) {
  if (!wasm.validate(PROBE)) return 'missing';
  try {
    const { exports } = new wasm.Instance(new wasm.Module(PROBE));
    // Four products of -3·5 (and the same with 127·-127 at the i16 edge
    // the Q8_0 and K-quant kernels reach: 2·127·127 still fits).
    const ok = exports.add(-3, 5) === -60 && exports.dot(-3, 5) === -30
      && exports.add(-127, 127) === -64516 && exports.dot(-127, 127) === -32258;
    return ok ? 'relaxed' : 'wrong';
  } catch {
    return 'wrong';
  }
}
