// Parts of `browserfn dev`: the local secrets file (dotenv lines or a JSON object; errors never show a value) and the console echo.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLocalSecrets } from '../../src/server/dev/local-secrets.js';
import { consoleEcho, formatConsole, type ConsoleLine } from '../../src/server/dev/console-echo.js';

describe('browserfn dev: local secrets file', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'dev-secrets-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('reads dotenv lines: comments, export, quotes, a trailing comment after an unquoted value', () => {
    const secrets = readLocalSecrets(file('.env.browserfn', '# c\n\nexport A=1\nB = "two words # kept"\nC=\'single\'\nD=plain # note\nE="line\\nbreak"\nF=\n'));
    assert.deepEqual(Object.fromEntries(secrets), { A: '1', B: 'two words # kept', C: 'single', D: 'plain', E: 'line\nbreak', F: '' });
  });

  it('reads a JSON object of strings when the name ends in .json', () => {
    assert.deepEqual(Object.fromEntries(readLocalSecrets(file('s.json', '{"API_TOKEN": "v1", "OTHER": "v2"}'))), { API_TOKEN: 'v1', OTHER: 'v2' });
    assert.throws(() => readLocalSecrets(file('n.json', '{"A": 1}')), /the value of A must be a string/);
    assert.throws(() => readLocalSecrets(file('a.json', '["x"]')), /one JSON object/);
  });

  it('names the line of a malformed entry or a bad name, never the value', () => {
    const value = 'do-not-print-me';
    for (const [name, text, pattern] of [
      ['bad-line.env', `A=1\n${value}\n`, /:2: expected NAME=value/],
      ['bad-name.env', `bad-name!=${value}\n`, /secret name "bad-name!"/],
    ] as const) {
      assert.throws(
        () => readLocalSecrets(file(name, text)),
        (err: Error) => pattern.test(err.message) && !err.message.includes(value),
      );
    }
  });
});

describe('browserfn dev: console echo', () => {
  it('hands on the console records of pod output, lines split across chunks joined, other lines left out', () => {
    const lines: ConsoleLine[] = [];
    const echo = consoleEcho((line) => lines.push(line));
    const pod = { namespace: 'default', name: 'inv-1-a1' };
    const record = JSON.stringify({ level: 30, msg: 'console', console: { level: 'warn', message: 'careful', timestamp: 't' } });
    echo(pod, JSON.stringify({ level: 30, msg: 'browser ready' }) + '\n' + record.slice(0, 10));
    echo(pod, record.slice(10) + '\nnot json\n');
    assert.deepEqual(lines, [{ pod: 'inv-1-a1', level: 'warn', message: 'careful' }]);
    assert.equal(formatConsole(lines[0], 'greet'), '[greet warn] careful');
    assert.equal(formatConsole({ ...lines[0], level: 'info' }, 'greet'), '[greet] careful');
  });
});
