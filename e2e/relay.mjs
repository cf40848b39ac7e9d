// `roundtable serve` (the binary cargo built) for the end-to-end tests:
// the app's files and the live-class relay on a port of 127.0.0.1, with a
// relay key of this test run's own (never the user's, in their home).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const BINARY = ['target/debug/roundtable', 'target/release/roundtable'].find((p) => existsSync(p));
/** The key every relay of this run signs teacher tokens with (a restarted
 * relay with it gives a class back to its teacher). */
export const RELAY_KEY = join(tmpdir(), `rt-e2e-relay-key-${process.pid}`);

/** Starts the relay on `port` (0: any free one); `key`: another key file
 * (a relay whose key changed); `extra`: more options. */
export async function startRelay({ port = 0, extra = [], key = RELAY_KEY } = {}) {
  assert.ok(BINARY, 'the roundtable binary is built (cargo test or cargo build builds target/debug/roundtable)');
  const args = ['serve', '--port', String(port), '--dist', 'dist', '--key-file', key, ...extra];
  const proc = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout });
  const url = await new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`roundtable serve exited (${code}) before serving`)));
    lines.once('line', (line) => {
      const m = /^SERVING (http:\/\/\S+)/.exec(line);
      m ? resolve(m[1]) : reject(new Error(`unexpected first line: ${line}`));
    });
  });
  lines.on('line', () => {});
  return {
    url,
    port: Number(new URL(url).port),
    async kill() {
      if (proc.exitCode !== null) return;
      const gone = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await gone;
    },
  };
}
