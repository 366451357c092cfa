// The code loader run as the agent runs it (its stdin instructions, its channel, the console preload,
// the runtime modules linked beside the code), against a fake browser that counts what it is asked:
// what the loader does with chrome-remote-interface before and for a bundle.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { LOADER_READY_RECORD, type ConsoleRecord, type LoaderInstruction } from '../../../src/runtime/sandbox/channel.js';
import { CONSOLE_PRELOAD_PATH } from '../../../src/runtime/sandbox/sandboxed-process.js';
import { CODE_LOADER_PATH } from '../../../src/runtime/sandbox/code-loader-files.js';
import { defaultRuntimeModulesDir, linkRuntimeModules } from '../../../src/runtime/sandbox/runtime-modules.js';
import { RUNTIME_PACKAGES } from '../../../src/schemas/runtime-packages.js';

/** Answers /json/protocol with its own descriptor and accepts DevTools WebSockets, counting both. */
export interface FakeBrowser {
  port: number;
  wsEndpoint: string;
  protocolRequests: number;
  /** WebSockets accepted so far. */
  sockets: number;
  /** The methods of the commands sent over its WebSockets, each answered with an empty result. */
  commands: string[];
  /** For each of `commands`, the WebSocket it came on (1 for the first accepted). */
  commandSockets: number[];
  /** Closes every WebSocket open now; `/dropped` answers once all of them are closed. */
  dropSockets(): void;
  close(): Promise<void>;
}

export async function startFakeBrowser(name: string): Promise<FakeBrowser> {
  const descriptor = { version: { major: '1', minor: '3' }, domains: [{ domain: `Fake${name}`, commands: [{ name: 'ping', parameters: [{ name: 'text', type: 'string' }] }] }] };
  const open = new Set<WebSocket>();
  let dropped: Promise<unknown> = Promise.resolve();
  const server: Server = createServer((request, response) => {
    if (request.url === '/json/protocol') {
      browser.protocolRequests += 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(descriptor));
      return;
    }
    if (request.url === '/dropped') {
      void dropped.then(() => response.writeHead(204).end());
      return;
    }
    response.writeHead(404).end();
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket) => {
    browser.sockets += 1;
    const number = browser.sockets;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('message', (data) => {
      const { id, method } = JSON.parse(String(data)) as { id: number; method: string };
      browser.commands.push(method);
      browser.commandSockets.push(number);
      socket.send(JSON.stringify({ id, result: {} }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const browser: FakeBrowser = {
    port,
    wsEndpoint: `ws://127.0.0.1:${port}/devtools/browser/${name}`,
    protocolRequests: 0,
    sockets: 0,
    commands: [],
    commandSockets: [],
    dropSockets: () => {
      dropped = Promise.all([...open].map((socket) => new Promise((resolve) => socket.once('close', resolve).close(1001, 'dropped'))));
    },
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return browser;
}

function resetCounts(browser: FakeBrowser): void {
  browser.protocolRequests = 0;
  browser.sockets = 0;
  browser.commands = [];
  browser.commandSockets = [];
}

export interface FakeBrowsers {
  /** The pod's browser. */
  browser: FakeBrowser;
  /** Another one. */
  other: FakeBrowser;
  /** A new pod folder for each call. */
  nextPodDir(): string;
}

/** Mocha hooks of the calling suite: two fake browsers, their counts reset before each test, and a folder for pods. */
export function useFakeBrowsers(prefix: string): FakeBrowsers {
  let workRoot = '';
  let pods = 0;
  const fakes = { nextPodDir: () => join(workRoot, `pod-${(pods += 1)}`) } as FakeBrowsers;
  before(async () => {
    workRoot = mkdtempSync(join(tmpdir(), prefix));
    fakes.browser = await startFakeBrowser('Pod');
    fakes.other = await startFakeBrowser('Other');
  });
  after(async () => {
    await fakes.browser.close();
    await fakes.other.close();
    rmSync(workRoot, { recursive: true, force: true });
  });
  beforeEach(() => {
    resetCounts(fakes.browser);
    resetCounts(fakes.other);
  });
  return fakes;
}

export interface LoaderRun {
  /** The bundle's last console line (JSON), as the channel carried it. */
  printed: unknown;
  /** Every console line the channel carried. */
  consoleLines: string[];
  /** The watched browser's commands so far when the loader said it was ready (undefined: it never said so). */
  commandsWhenReady: string[] | undefined;
  /** The watched browser's WebSockets so far when the loader said it was ready. */
  socketsWhenReady: number | undefined;
}

export interface LoaderRunOptions {
  /** The pod folder to make (its code folder holds the bundle as main.mjs). */
  podDir: string;
  bundle: string;
  instructions: (codeDir: string) => LoaderInstruction[];
  /** What a pool member loads ahead; undefined: a cold pod. */
  preload?: string[];
  /** False: the bundle is told only once the loader said it was ready, as a pool member's is. */
  tellEarly?: boolean;
  /** Whose commands and sockets are noted when the loader says it is ready. */
  watched: FakeBrowser;
  /** Runs once the loader said it was ready, before a late bundle is told. */
  onReady?: () => void;
  /** Set in the loader's environment besides this process's (as the agent sets AWS_LAMBDA_RUNTIME_API). */
  env?: Record<string, string>;
}

/** Runs the loader with `bundle` as the code until it exits; fails unless it exits 0. */
export async function runCodeLoader({ podDir, bundle, instructions, preload, tellEarly = true, watched, onReady, env }: LoaderRunOptions): Promise<LoaderRun> {
  const codeDir = join(podDir, 'code');
  mkdirSync(codeDir, { recursive: true });
  linkRuntimeModules(podDir, defaultRuntimeModulesDir());
  writeFileSync(join(codeDir, 'main.mjs'), bundle);
  // As the agent starts it: console goes to the channel (sandboxed-process.ts).
  const child = spawn(process.execPath, ['--import', pathToFileURL(CONSOLE_PRELOAD_PATH).href, CODE_LOADER_PATH, codeDir, RUNTIME_PACKAGES.join(','), ...(preload ? [preload.join(',')] : [])], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  let commandsWhenReady: string[] | undefined;
  let socketsWhenReady: number | undefined;
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const told = instructions(codeDir);
  let left = told.length;
  const tell = (some: LoaderInstruction[]) => {
    for (const instruction of some) child.stdin!.write(`${JSON.stringify(instruction)}\n`);
    left -= some.length;
    if (left === 0) child.stdin!.end();
  };
  const channel = child.stdio[3] as Readable;
  let channelText = '';
  channel.on('data', (chunk: Buffer) => {
    channelText += chunk.toString();
    if (commandsWhenReady || !chunk.toString().includes(LOADER_READY_RECORD)) return;
    commandsWhenReady = [...watched.commands];
    socketsWhenReady = watched.sockets;
    onReady?.();
    // A pool member's bundle comes only after it said it was ready.
    if (!tellEarly) tell(told.filter((instruction) => 'bundle' in instruction));
  });
  tell(tellEarly ? told : told.filter((instruction) => 'browser' in instruction));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0, stderr);
  const records = channelText.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; message?: string });
  const consoleLines = records.filter((record): record is ConsoleRecord => record.type === 'console').map((record) => record.message);
  assert.ok(consoleLines.length > 0, `the bundle printed nothing to the console (stdout: ${stdout})`);
  return { printed: JSON.parse(consoleLines[consoleLines.length - 1]), consoleLines, commandsWhenReady, socketsWhenReady };
}
