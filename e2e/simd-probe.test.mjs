// web/llm-worker/simd-probe.mjs, which picks the model worker's build: its
// module is well formed, and its verdict follows what an engine answers
// (stand-in engines here; real Chromium in e2e/local-cores.spec.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { PROBE, relaxedSimd } from '../web/llm-worker/simd-probe.mjs';

/** A stand-in WebAssembly namespace whose module exports `add` and `dot`. */
function engine({ validates = true, add, dot, throws = false }) {
  return {
    validate: (bytes) => {
      assert.equal(bytes, PROBE);
      return validates;
    },
    Module: class {},
    Instance: class {
      constructor() {
        if (throws) throw new Error('cannot compile');
        this.exports = { add, dot };
      }
    },
  };
}

// The sums a correct engine gives: lane 0 of four (i32x4) or two (i16x8)
// products of the splatted operands.
const right = { add: (a, b) => 4 * a * b, dot: (a, b) => 2 * a * b };

test('an engine that sums right gets the relaxed build', () => {
  assert.equal(relaxedSimd(engine(right)), 'relaxed');
});

test('an engine without relaxed SIMD gets the simd128 build', () => {
  assert.equal(relaxedSimd(engine({ ...right, validates: false })), 'missing');
});

test('an engine that validates relaxed SIMD but sums wrong gets the simd128 build', () => {
  // Node 20's V8 on AVX-VNNI: the i32x4 dot with accumulator doubled.
  assert.equal(relaxedSimd(engine({ ...right, add: (a, b) => 8 * a * b })), 'wrong');
  // Either dot reading its signed operand unsigned.
  assert.equal(relaxedSimd(engine({ ...right, dot: (a, b) => 2 * (a & 0xff) * b })), 'wrong');
  assert.equal(relaxedSimd(engine({ ...right, add: (a, b) => 4 * (a & 0xff) * b })), 'wrong');
  assert.equal(relaxedSimd(engine({ ...right, throws: true })), 'wrong');
});

test('the probe is a well-formed module (decoded by hand: two functions, add and dot)', () => {
  const bytes = [...PROBE];
  assert.deepEqual(bytes.slice(0, 8), [0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  // Walk the sections: each id, a one-byte size, then that many bytes, to the end exactly.
  const ids = [];
  for (let at = 8; at < bytes.length; ) {
    ids.push(bytes[at]);
    at += 2 + bytes[at + 1];
    assert.ok(at <= bytes.length, 'a section runs past the end');
  }
  assert.deepEqual(ids, [1, 3, 7, 10], 'type, function, export and code sections');
  const text = String.fromCharCode(...bytes);
  assert.ok(text.includes('add') && text.includes('dot'), 'exports add and dot');
  // The two opcodes under test: 0xfd 0x93 0x02 (i32x4 dot with add), 0xfd 0x92 0x02 (i16x8 dot).
  const has = (seq) => bytes.some((_, i) => seq.every((b, j) => bytes[i + j] === b));
  assert.ok(has([0xfd, 0x93, 0x02]) && has([0xfd, 0x92, 0x02]));
});

test("Node's V8 validates the probe with relaxed SIMD on (its sums are another matter)", () => {
  // Node 20 has relaxed SIMD behind a flag; a Node that has it on and
  // dropped the flag is asked without it.
  const code = `import { PROBE } from ${JSON.stringify(new URL('../web/llm-worker/simd-probe.mjs', import.meta.url).href)};
    console.log(WebAssembly.validate(PROBE));`;
  const run = (flags) => execFileSync(process.execPath, [...flags, '--input-type=module', '-e', code], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  let out;
  try {
    out = run(['--experimental-wasm-relaxed-simd']);
  } catch {
    out = run([]);
  }
  assert.equal(out, 'true');
});
