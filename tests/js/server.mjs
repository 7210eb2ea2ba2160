// tests/js/server.mjs -- start the real `accel-advisor serve` on 127.0.0.1, as
// tests/integration/harness.c does for the C tests: port 0, the port read from
// the `listening` line of its JSON log, the log kept for failure reports.
import { spawn } from 'node:child_process';

export async function startServer(binary, args = []) {
  const child = spawn(binary, ['serve', '--listen', '127.0.0.1:0', '--rules-watch=false', ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines = [];
  let partial = '';
  let port = 0;
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15))));
  const listening = new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      partial += chunk;
      let nl;
      while ((nl = partial.indexOf('\n')) >= 0) {
        const line = partial.slice(0, nl);
        partial = partial.slice(nl + 1);
        lines.push(line);
        if (port === 0 && line.includes('"event":"listening"')) {
          port = JSON.parse(line).port;
          resolve();
        }
      }
    });
    exited.then((code) => reject(new Error(`the server exited with status ${code} before listening:\n${lines.join('\n')}`)));
    setTimeout(() => reject(new Error(`the server did not listen within 20 s:\n${lines.join('\n')}`)), 20000).unref();
  });
  await listening;
  return {
    url: `http://127.0.0.1:${port}/`,
    log: () => lines.join('\n'),
    // SIGTERM and wait: a clean drain exits 0 (a sanitizer report would not).
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) throw new Error(`the server exited with status ${code}:\n${lines.join('\n')}`);
    },
  };
}

// An assertion that says what it expected.
export function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}
