// How objects look on the wire (the shapes the public clients read), derived from the stored objects.
import type { KubeObject } from '../cluster/objects.js';
import type { BuildObject, FunctionObject, FunctionVersionSpec, InvocationObject } from '../schemas/resources.js';
import { BUILD_TIMEOUT_MS, POD_GRACE_SECONDS } from '../schemas/deadlines.js';
import { REGION } from './region.js';
import { withoutProxyPasswords } from '../schemas/session-proxies.js';

const created = (obj: KubeObject): string => obj.metadata.annotations?.['browserfn.dev/created-at'] ?? obj.metadata.creationTimestamp ?? '';
const latest = (...times: (string | undefined)[]): string => times.filter((t): t is string => !!t).sort().at(-1) ?? '';
const plus = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

export function functionView(fn: FunctionObject) {
  return {
    id: fn.metadata.uid!,
    projectId: fn.metadata.namespace!,
    name: fn.spec.name,
    createdAt: created(fn),
    updatedAt: latest(created(fn), fn.spec.version?.createdAt),
    currentVersionId: fn.spec.version?.id ?? null,
  };
}

export function versionView(fn: { uid: string; namespace: string }, version: FunctionVersionSpec, buildUid?: string) {
  return {
    id: version.id,
    projectId: fn.namespace,
    functionId: fn.uid,
    functionBuildId: buildUid ?? version.buildName ?? null,
    version: version.number,
    sessionCreateParams: withoutProxyPasswords(version.sessionConfig ?? {}),
    userParamsSchema: version.parametersSchema ?? null,
    createdAt: version.createdAt,
    updatedAt: version.createdAt,
  };
}

export function buildView(build: BuildObject, functions: FunctionObject[] = []) {
  const createdAt = created(build);
  const status = build.status ?? {};
  return {
    id: build.metadata.name,
    projectId: build.metadata.namespace!,
    request: { entrypoint: build.spec.entrypoint, ...(build.spec.functionNames ? { functionNames: build.spec.functionNames } : {}) },
    status: status.phase ?? 'PENDING',
    createdAt,
    updatedAt: latest(createdAt, status.startedAt, status.endedAt),
    startedAt: status.startedAt ?? createdAt,
    expiresAt: plus(status.startedAt ?? createdAt, BUILD_TIMEOUT_MS),
    ...(status.endedAt ? { endedAt: status.endedAt } : {}),
    ...(status.builtFunctions
      ? {
          builtFunctions: status.builtFunctions.map((b) => {
            const fn = functions.find((f) => f.metadata.uid === b.id);
            return { ...(fn ? functionView(fn) : { id: b.id, projectId: build.metadata.namespace!, name: b.name }), createdVersion: b.createdVersion };
          }),
        }
      : {}),
    ...(status.cause ? { cause: status.cause } : {}),
  };
}

export function invocationView(inv: InvocationObject) {
  const createdAt = created(inv);
  const status = inv.status ?? {};
  const startedAt = status.startedAt ?? createdAt;
  return {
    id: inv.metadata.name,
    projectId: inv.metadata.namespace!,
    functionId: inv.spec.functionUid,
    versionId: inv.spec.versionId,
    sessionId: inv.spec.sessionId,
    status: status.phase ?? 'PENDING',
    region: REGION,
    params: inv.spec.params,
    ...(status.results !== undefined && status.results !== null ? { results: status.results } : {}),
    createdAt,
    updatedAt: latest(createdAt, status.startedAt, status.endedAt),
    startedAt,
    expiresAt: status.expiresAt ?? plus(startedAt, (inv.spec.timeoutSeconds + POD_GRACE_SECONDS) * 1000),
    ...(status.endedAt ? { endedAt: status.endedAt } : {}),
    ...(status.cause ? { cause: status.cause } : {}),
  };
}

/** The browser session of an invocation: its own lifecycle words (ERROR, TIMED_OUT). */
export function sessionView(inv: InvocationObject) {
  const view = invocationView(inv);
  const phase = inv.status?.phase ?? 'PENDING';
  const status =
    phase === 'COMPLETED' ? 'COMPLETED' : phase === 'FAILED' ? (inv.status?.cause?.code === 'TIMED_OUT' ? 'TIMED_OUT' : 'ERROR') : phase;
  const browserSettings = (inv.spec.sessionConfig.browserSettings ?? {}) as { context?: { id?: string } };
  return {
    id: inv.spec.sessionId,
    projectId: view.projectId,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    startedAt: view.startedAt,
    ...(view.endedAt ? { endedAt: view.endedAt } : {}),
    expiresAt: view.expiresAt,
    status,
    keepAlive: false,
    region: REGION,
    proxyBytes: 0,
    ...(browserSettings.context?.id ? { contextId: browserSettings.context.id } : {}),
    ...(inv.spec.sessionConfig.userMetadata ? { userMetadata: inv.spec.sessionConfig.userMetadata } : {}),
    invocationId: inv.metadata.name,
  };
}
