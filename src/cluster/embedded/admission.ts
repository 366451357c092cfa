// What the API server does to an object before storing it: validation, defaulting and the
// rules of the main resource vs the status subresource. Pure functions over JSON; the store
// adds resourceVersion, conflicts, events and garbage collection.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject, ObjectMeta, ResourceType } from '../objects.js';
import { apiVersionOf } from '../objects.js';
import { InvalidError } from '../port.js';
import { API_GROUP } from '../objects.js';
import { resourceProblems, type ResourceKindName } from '../../schemas/resource-schemas.js';

const isResourceKind = (kind: string): kind is ResourceKindName => kind === 'Function' || kind === 'Build' || kind === 'Invocation' || kind === 'BrowserPool';
import { validateLabels } from '../labels.js';
import { dns1123LabelProblem, dns1123SubdomainProblem, qualifiedNameProblem } from '../names.js';

const DATA_KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAX_DATA_BYTES = 1024 * 1024;
const MAX_ANNOTATION_BYTES = 256 * 1024;

const isCore = (type: ResourceType, kind: string): boolean => type.group === '' && type.kind === kind;

/** Kubernetes timestamps: RFC 3339 in UTC with second precision. */
export const timestamp = (now = new Date()): string => now.toISOString().replace(/\.\d{3}Z$/, 'Z');

export const describeObject = (type: ResourceType, namespace: string | undefined, name: string): string =>
  namespace ? `${type.kind} "${name}" in namespace "${namespace}"` : `${type.kind} "${name}"`;

function jsonClone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function checkShape(type: ResourceType, input: KubeObject): KubeObject {
  if (input === null || typeof input !== 'object') throw new InvalidError(`expected a ${type.kind} object`);
  const obj = jsonClone(input);
  const apiVersion = apiVersionOf(type);
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
    throw new InvalidError(`apiVersion "${obj.apiVersion}" does not match the resource: expected "${apiVersion}"`);
  }
  if (obj.kind !== undefined && obj.kind !== type.kind) throw new InvalidError(`kind "${obj.kind}" does not match the resource: expected "${type.kind}"`);
  if (obj.metadata === null || typeof obj.metadata !== 'object') throw new InvalidError(`${type.kind}: metadata is required`);
  if (typeof obj.metadata.name !== 'string' || obj.metadata.name === '') throw new InvalidError(`${type.kind}: metadata.name is required`);
  // The browserfn kinds are checked against the same JSON Schemas their CRDs carry, so both backends
  // refuse the same objects with a message naming the field.
  if (type.group === API_GROUP && isResourceKind(type.kind)) {
    const problem = resourceProblems(type.kind, obj);
    if (problem) throw new InvalidError(`${type.kind}.${type.group} "${obj.metadata.name}" is invalid: ${problem}`);
  }
  // apiVersion and kind first, as the API server serializes them.
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = obj;
  return { apiVersion, kind: type.kind, ...rest };
}

function validateName(type: ResourceType, name: string): void {
  // Namespaces are DNS labels; everything else here is a DNS subdomain.
  const problem = isCore(type, 'Namespace') ? dns1123LabelProblem(name) : dns1123SubdomainProblem(name);
  if (problem) throw new InvalidError(`${type.kind} name "${name}" is invalid: a lowercase RFC 1123 ${isCore(type, 'Namespace') ? 'label' : 'subdomain'} ${problem}`);
}

export function validateNamespace(type: ResourceType, namespace: string | undefined): string {
  if (!type.namespaced) return '';
  if (namespace === undefined || namespace === '') throw new InvalidError(`${type.kind} is namespaced: a namespace is required`);
  const problem = dns1123LabelProblem(namespace);
  if (problem) throw new InvalidError(`namespace "${namespace}" is invalid: a lowercase RFC 1123 label ${problem}`);
  return namespace;
}

function validateMetadata(meta: ObjectMeta): void {
  validateLabels(meta.labels);
  if (meta.annotations !== undefined) {
    if (meta.annotations === null || typeof meta.annotations !== 'object') throw new InvalidError('metadata.annotations must be an object of string keys to string values');
    let size = 0;
    for (const [key, value] of Object.entries(meta.annotations)) {
      const problem = qualifiedNameProblem(key);
      if (problem) throw new InvalidError(`metadata.annotations: key "${key}" ${problem}`);
      if (typeof value !== 'string') throw new InvalidError(`metadata.annotations["${key}"] must be a string`);
      size += key.length + value.length;
    }
    if (size > MAX_ANNOTATION_BYTES) throw new InvalidError(`metadata.annotations: total size ${size} must be no more than ${MAX_ANNOTATION_BYTES} bytes`);
  }
  if (meta.finalizers !== undefined) {
    if (!Array.isArray(meta.finalizers)) throw new InvalidError('metadata.finalizers must be a list of strings');
    for (const finalizer of meta.finalizers) {
      const problem = typeof finalizer === 'string' ? qualifiedNameProblem(finalizer) : 'must be a string';
      if (problem) throw new InvalidError(`metadata.finalizers: "${String(finalizer)}" ${problem}`);
    }
  }
  if (meta.ownerReferences !== undefined) {
    if (!Array.isArray(meta.ownerReferences)) throw new InvalidError('metadata.ownerReferences must be a list');
    for (const [i, ref] of meta.ownerReferences.entries()) {
      for (const field of ['apiVersion', 'kind', 'name', 'uid'] as const) {
        if (typeof ref?.[field] !== 'string' || ref[field] === '') throw new InvalidError(`metadata.ownerReferences[${i}].${field} is required`);
      }
    }
    if (meta.ownerReferences.filter((ref) => ref.controller).length > 1) {
      throw new InvalidError('metadata.ownerReferences: only one reference can have controller set to true');
    }
  }
}

function validateDataMap(kind: string, field: string, map: unknown, base64: boolean): number {
  if (map === undefined) return 0;
  if (map === null || typeof map !== 'object' || Array.isArray(map)) throw new InvalidError(`${kind} ${field} must be an object of keys to string values`);
  let size = 0;
  for (const [key, value] of Object.entries(map)) {
    if (key.length > 253 || !DATA_KEY.test(key)) {
      throw new InvalidError(`${kind} ${field}: key "${key}" must consist of alphanumeric characters, '-', '_' or '.' (at most 253)`);
    }
    if (typeof value !== 'string') throw new InvalidError(`${kind} ${field}["${key}"] must be a string`);
    if (base64 && !BASE64.test(value)) throw new InvalidError(`${kind} ${field}["${key}"] must be base64-encoded (standard alphabet, padded)`);
    size += base64 ? Buffer.byteLength(value, 'base64') : Buffer.byteLength(value, 'utf8');
  }
  return size;
}

/** Secrets take `stringData` as a write-only convenience: merged into `data` as base64, never stored. */
function prepareData(type: ResourceType, obj: KubeObject): void {
  if (isCore(type, 'Secret')) {
    validateDataMap('Secret', 'stringData', obj.stringData, false);
    if (obj.stringData) {
      obj.data = { ...obj.data };
      for (const [key, value] of Object.entries(obj.stringData)) obj.data[key] = Buffer.from(value, 'utf8').toString('base64');
    }
    delete obj.stringData;
    obj.type ??= 'Opaque';
    const size = validateDataMap('Secret', 'data', obj.data, true);
    if (size > MAX_DATA_BYTES) throw new InvalidError(`Secret data: total size ${size} must be no more than ${MAX_DATA_BYTES} bytes`);
  } else if (isCore(type, 'ConfigMap')) {
    const size = validateDataMap('ConfigMap', 'data', obj.data, false) + validateDataMap('ConfigMap', 'binaryData', obj.binaryData, true);
    for (const key of Object.keys(obj.binaryData ?? {})) {
      if (obj.data && Object.hasOwn(obj.data, key)) throw new InvalidError(`ConfigMap: key "${key}" is in both data and binaryData; use one`);
    }
    if (size > MAX_DATA_BYTES) throw new InvalidError(`ConfigMap data: total size ${size} must be no more than ${MAX_DATA_BYTES} bytes`);
  }
}

/** What the server puts in `status` on create when status is a subresource (clients cannot set it). */
function initialStatus(type: ResourceType): unknown {
  if (isCore(type, 'Pod')) return { phase: 'Pending' };
  if (isCore(type, 'Namespace')) return { phase: 'Active' };
  return undefined;
}

function setOrDelete<K extends keyof KubeObject>(obj: KubeObject, key: K, value: KubeObject[K] | undefined): void {
  if (value === undefined) delete obj[key];
  else obj[key] = value;
}

/** Everything but metadata and status: what a change to bumps `generation`. */
function desiredState(obj: KubeObject): Omit<KubeObject, 'metadata' | 'status'> {
  const { metadata: _metadata, status: _status, ...rest } = obj;
  return rest;
}

export function admitCreate(type: ResourceType, input: KubeObject, now: Date): KubeObject {
  const obj = checkShape(type, input);
  const meta = obj.metadata;
  validateName(type, meta.name);
  if (type.namespaced) meta.namespace = validateNamespace(type, meta.namespace);
  else delete meta.namespace;
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  meta.uid = randomUUID();
  meta.generation = 1;
  meta.creationTimestamp = timestamp(now);
  validateMetadata(meta);
  if (type.hasStatusSubresource) setOrDelete(obj, 'status', initialStatus(type));
  prepareData(type, obj);
  return jsonClone(obj);
}

/** The main resource: metadata and spec/data change; status is kept when it is a subresource. */
export function admitUpdate(type: ResourceType, stored: KubeObject, input: KubeObject): KubeObject {
  const obj = checkShape(type, input);
  const meta = obj.metadata;
  const old = stored.metadata;
  if (meta.uid !== undefined && meta.uid !== old.uid) throw new InvalidError(`metadata.uid: field is immutable (stored ${old.uid}, got ${meta.uid})`);
  meta.uid = old.uid;
  meta.creationTimestamp = old.creationTimestamp;
  meta.namespace = old.namespace;
  if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
  else delete meta.deletionTimestamp;
  validateMetadata(meta);
  if (old.deletionTimestamp) {
    const added = (meta.finalizers ?? []).filter((f) => !(old.finalizers ?? []).includes(f));
    if (added.length) throw new InvalidError(`metadata.finalizers: no new finalizers can be added while the object is being deleted (${added.join(', ')})`);
  }
  if (type.hasStatusSubresource) setOrDelete(obj, 'status', stored.status);
  prepareData(type, obj);
  if (isCore(type, 'Secret') && obj.type !== stored.type) throw new InvalidError(`Secret type: field is immutable (stored "${stored.type}", got "${obj.type}")`);
  if (stored.immutable === true) {
    if (obj.immutable !== true) throw new InvalidError(`${type.kind} immutable: field is immutable when \`immutable\` is set`);
    if (!isDeepStrictEqual(obj.data, stored.data) || !isDeepStrictEqual(obj.binaryData, stored.binaryData)) {
      throw new InvalidError(`${type.kind} data: field is immutable when \`immutable\` is set; create a new ${type.kind} instead`);
    }
  }
  meta.generation = (old.generation ?? 1) + (isDeepStrictEqual(desiredState(obj), desiredState(stored)) ? 0 : 1);
  meta.resourceVersion = old.resourceVersion;
  // Round-trip so that fields set to undefined compare equal to absent ones.
  return jsonClone(obj);
}

/** The status subresource: only `status` changes, everything else stays as stored. */
export function admitStatusUpdate(type: ResourceType, stored: KubeObject, input: KubeObject): KubeObject {
  if (!type.hasStatusSubresource) throw new InvalidError(`${type.kind} has no status subresource; use update`);
  const obj = jsonClone(stored);
  setOrDelete(obj, 'status', input.status === undefined ? undefined : jsonClone(input.status));
  return obj;
}

/** Marks an object for deletion (it has finalizers): deletionTimestamp once, and a generation bump as Kubernetes does. */
export function markDeleting(stored: KubeObject, now: Date): KubeObject {
  const obj = jsonClone(stored);
  obj.metadata.deletionTimestamp = timestamp(now);
  obj.metadata.generation = (obj.metadata.generation ?? 1) + 1;
  return obj;
}
