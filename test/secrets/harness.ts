// The real façade with the secrets routes (and the Function lookups the CLI makes) on 127.0.0.1:0,
// over a real embedded store, with every log line captured (to prove that values never reach the
// log) and every response body recorded.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/api/app.js';
import { secretRoutes } from '../../src/api/routes/secrets/index.js';
import functionsGet from '../../src/api/routes/functions/functions-get.js';
import functionsList from '../../src/api/routes/functions/functions-list.js';
import { openEmbeddedCluster } from '../../src/cluster/embedded/index.js';
import { Kinds } from '../../src/cluster/objects.js';
import type { ClusterPort } from '../../src/cluster/port.js';
import { loadSettings } from '../../src/config/settings.js';
import { Metrics } from '../../src/config/metrics.js';
import type { FunctionObject } from '../../src/schemas/resources.js';
import { boundTo, sealValue, UNBOUND } from '../../src/secrets/hpke.js';
import { newSecretObject, type SecretMeta } from '../../src/secrets/objects.js';
import { captureLog } from '../support/log-capture.js';
import type { Archive } from '../../src/functions/archived/archive.js';
import { WaitingInvocations } from '../../src/functions/waiting-invocations.js';

export const KEYS = { a: 'k1', b: 'k2' } as const;
export const PROJECTS = { a: 'proj-a', b: 'proj-b' } as const;

export interface Reply<T = any> {
  status: number;
  body: T;
  text: string;
}

export interface Harness {
  url: string;
  dataDir: string;
  cluster: ClusterPort;
  /** Every log line written so far (JSON text). */
  logLines: string[];
  /** Every response body text received so far. */
  responses: string[];
  request<T = any>(method: string, path: string, body?: unknown, key?: string): Promise<Reply<T>>;
  createFunction(name: string, project?: string): Promise<FunctionObject>;
  getFunction(fn: FunctionObject): Promise<FunctionObject>;
  /** Creates a secret over HTTP with the public clients' sealedSecretValue form. */
  createSecret(secretKey: string, value: string, key?: string): Promise<Reply>;
  stop(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'browserfn-secrets-'));
  const responses: string[] = [];
  const { log, lines: logLines } = captureLog('trace');
  const settings = loadSettings({ dataDir, env: { BROWSERFN_API_KEYS: `${KEYS.a}:${PROJECTS.a},${KEYS.b}:${PROJECTS.b}` } });
  const cluster = await openEmbeddedCluster({ file: join(dataDir, 'store.db'), encryptionKey: randomBytes(32) });
  const app = createApp({ settings, cluster, log, metrics: new Metrics(), archive: null as unknown as Archive, waitingInvocations: new WaitingInvocations(cluster) }, { routes: [...secretRoutes, functionsGet, functionsList] });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request = async <T>(method: string, path: string, body?: unknown, key: string = KEYS.a): Promise<Reply<T>> => {
    const headers: Record<string, string> = { 'x-svc-api-key': key };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    responses.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
  };

  const harness: Harness = {
    url,
    dataDir,
    cluster,
    logLines,
    responses,
    request,
    async createFunction(name, project = PROJECTS.a) {
      return cluster.resource<FunctionObject>(Kinds.Function).create({
        apiVersion: 'browserfn.dev/v1alpha1',
        kind: 'Function',
        metadata: { name, namespace: project },
        spec: { name },
      });
    },
    async getFunction(fn) {
      const current = await cluster.resource<FunctionObject>(Kinds.Function).get(fn.metadata.namespace, fn.metadata.name);
      if (!current) throw new Error(`Function ${fn.metadata.name} is gone`);
      return current;
    },
    async createSecret(secretKey, value, key = KEYS.a) {
      const keypair = await request<{ id: string; publicKey: string }>('GET', '/v1/secrets/keypair', undefined, key);
      const sealedSecretValue = await sealCompat(keypair.body.publicKey, value);
      return request('POST', '/v1/secrets', { secretKey, sealedSecretValue, keypairId: keypair.body.id }, key);
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await cluster.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** base64(enc || ciphertext) with empty info and aad, as the public clients seal. */
export async function sealCompat(publicKeyB64: string, value: string): Promise<string> {
  const { enc, ciphertext } = await sealValue(new Uint8Array(Buffer.from(publicKeyB64, 'base64')), new TextEncoder().encode(value), UNBOUND);
  return Buffer.concat([enc, ciphertext]).toString('base64');
}

/** The encapsulatedKey + sealedValue form, bound to project and name. */
export async function sealBound(publicKeyB64: string, project: string, secretKey: string, value: string): Promise<{ encapsulatedKey: string; sealedValue: string }> {
  const { enc, ciphertext } = await sealValue(new Uint8Array(Buffer.from(publicKeyB64, 'base64')), new TextEncoder().encode(value), boundTo(project, secretKey));
  return { encapsulatedKey: Buffer.from(enc).toString('base64'), sealedValue: Buffer.from(ciphertext).toString('base64') };
}

/**
 * The forms a leaked value could take in a response or a JSON log line: as is, JSON-escaped once
 * and twice (a pod's JSON log line forwarded inside the node agent's), base64 (Secret data,
 * Basic auth) and base64url, and the random part alone (survives any escaping of the rest).
 */
export function leakedForms(value: string): string[] {
  const escaped = JSON.stringify(value).slice(1, -1);
  const forms = [value, escaped, JSON.stringify(escaped).slice(1, -1), Buffer.from(value).toString('base64'), Buffer.from(value).toString('base64url')];
  const random = /[0-9a-f]{24}/.exec(value);
  if (random) forms.push(random[0]);
  return [...new Set(forms)];
}

/** A random value that is easy to search for in logs and bodies. */
export const secretValueFor = (label: string): string => `value-of-${label}-${randomBytes(12).toString('hex')}`;

/** Stores a secret directly through the cluster port with a chosen creation time (as another replica would). */
export async function putSecretAt(cluster: ClusterPort, project: string, secretKey: string, createdAt: number, value = `v-${secretKey}`): Promise<SecretMeta> {
  const meta: SecretMeta = { id: randomUUID(), secretKey, createdAt };
  await cluster.resource(Kinds.Secret).create(newSecretObject(project, meta, value));
  return meta;
}

/** Sets a Function's attached secret IDs directly through the port. */
export async function setAttached(cluster: ClusterPort, fn: FunctionObject, ids: string[]): Promise<FunctionObject> {
  const functions = cluster.resource<FunctionObject>(Kinds.Function);
  const current = await functions.get(fn.metadata.namespace, fn.metadata.name);
  if (!current) throw new Error(`Function ${fn.metadata.name} is gone`);
  return functions.update({ ...current, spec: { ...current.spec, secrets: ids } });
}
