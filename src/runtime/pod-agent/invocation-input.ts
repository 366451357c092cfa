// What the control plane hands a browser pod (GET …/input, or …/assignment for a pool member).
import type { InvocationInput } from '../../schemas/reports.js';

export type { InvocationInput };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function parseInvocationInput(value: unknown): InvocationInput {
  if (!isRecord(value) || value.kind !== 'invocation') throw new Error('pod input is not an invocation ({kind: "invocation", …})');
  const problems: string[] = [];
  const text = (field: string): string => {
    const v = value[field];
    if (typeof v !== 'string' || !v) problems.push(`${field} must be a non-empty string`);
    return v as string;
  };
  const input: InvocationInput = {
    kind: 'invocation',
    invocationId: text('invocationId'),
    functionName: text('functionName'),
    sessionId: text('sessionId'),
    params: optionalRecord(value.params, 'params', problems) ?? {},
    sessionConfig: optionalRecord(value.sessionConfig, 'sessionConfig', problems) ?? {},
    timeoutSeconds: value.timeoutSeconds as number,
    region: typeof value.region === 'string' && value.region ? value.region : 'us-west-2',
    secrets: {},
  };
  if (value.artifactSha256 !== undefined) {
    if (typeof value.artifactSha256 === 'string' && /^[0-9a-f]{64}$/.test(value.artifactSha256)) input.artifactSha256 = value.artifactSha256;
    else problems.push('artifactSha256 must be a sha256 in hex');
  }
  if (value.artifactBase64 !== undefined) {
    if (typeof value.artifactBase64 !== 'string' || !BASE64.test(value.artifactBase64)) problems.push('artifactBase64 must be base64');
    else if (input.artifactSha256 === undefined) problems.push('artifactBase64 comes only with the artifactSha256 it must hash to');
    else input.artifactBase64 = value.artifactBase64;
  }
  if (value.recordingMaxBytes !== undefined) {
    if (Number.isInteger(value.recordingMaxBytes) && (value.recordingMaxBytes as number) > 0) input.recordingMaxBytes = value.recordingMaxBytes as number;
    else problems.push('recordingMaxBytes must be a positive integer');
  }
  if (value.browserProxy !== undefined) {
    if (typeof value.browserProxy === 'string' && value.browserProxy) input.browserProxy = value.browserProxy;
    else problems.push('browserProxy must be a non-empty string');
  }
  if (typeof input.timeoutSeconds !== 'number' || !(input.timeoutSeconds > 0)) problems.push('timeoutSeconds must be a positive number');
  const secrets = optionalRecord(value.secrets, 'secrets', problems) ?? {};
  for (const [key, secret] of Object.entries(secrets)) {
    if (typeof secret === 'string') input.secrets[key] = secret;
    else problems.push(`secrets.${key} must be a string`);
  }
  if (problems.length > 0) throw new Error(`invalid pod input: ${problems.join('; ')}`);
  return input;
}

function optionalRecord(value: unknown, field: string, problems: string[]): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) {
    problems.push(`${field} must be an object`);
    return undefined;
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
