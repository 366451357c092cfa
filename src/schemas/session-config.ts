// The create-session fields a Function may set: deploy-time `sessionConfig` (defineFn options)
// and per-invocation `sessionCreateParams`. Unknown top-level fields are refused so typos surface;
// inside browserSettings unknown keys pass (the upstream API keeps adding settings), known ones are
// type-checked, and a key that is a known one but for its case or separators (`viewPort`) is refused
// as the typo it is.
import { Ajv, type ErrorObject } from 'ajv';
import { proxyProblems } from './session-proxies.js';

export interface SessionBrowserSettings {
  context?: { id: string; persist?: boolean };
  verified?: boolean;
  solveCaptchas?: boolean;
  blockAds?: boolean;
  /** Record the session as video and rrweb events (docs/recording.md); on unless false. */
  recordSession?: boolean;
  viewport?: { width?: number; height?: number };
  fingerprint?: Record<string, unknown>;
  extensionId?: string;
  [setting: string]: unknown;
}

/** One entry of `proxies` (session-proxies.ts says how they route). */
export interface SessionProxy {
  type: 'browserbase' | 'external' | 'none';
  [field: string]: unknown;
}

export interface SessionConfig {
  browserSettings?: SessionBrowserSettings;
  proxies?: boolean | SessionProxy[];
  extensionId?: string;
  userMetadata?: Record<string, unknown>;
  /** Session timeout in seconds, 60..900. */
  timeout?: number;
  /** Functions run only in us-west-2. */
  region?: 'us-west-2';
  keepAlive?: boolean;
}

export const SESSION_TIMEOUT_MIN_SECONDS = 60;
export const SESSION_TIMEOUT_MAX_SECONDS = 900;

export const sessionConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    browserSettings: {
      type: 'object',
      additionalProperties: true,
      properties: {
        context: {
          type: 'object',
          additionalProperties: false,
          required: ['id'],
          properties: { id: { type: 'string', minLength: 1 }, persist: { type: 'boolean' } },
        },
        verified: { type: 'boolean' },
        solveCaptchas: { type: 'boolean' },
        blockAds: { type: 'boolean' },
        recordSession: { type: 'boolean' },
        logSession: { type: 'boolean' },
        advancedStealth: { type: 'boolean' },
        captchaImageSelector: { type: 'string' },
        captchaInputSelector: { type: 'string' },
        os: { type: 'string' },
        viewport: {
          type: 'object',
          additionalProperties: false,
          properties: {
            width: { type: 'integer', minimum: 1, maximum: 10000 },
            height: { type: 'integer', minimum: 1, maximum: 10000 },
          },
        },
        fingerprint: { type: 'object' },
        extensionId: { type: 'string', minLength: 1 },
      },
    },
    proxies: {
      oneOf: [
        { type: 'boolean' },
        {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['type'],
            properties: {
              type: { enum: ['browserbase', 'external', 'none'] },
              server: { type: 'string' },
              username: { type: 'string' },
              password: { type: 'string' },
              domainPattern: { type: 'string' },
              geolocation: { type: 'object' },
            },
          },
        },
      ],
    },
    extensionId: { type: 'string', minLength: 1 },
    userMetadata: { type: 'object' },
    timeout: { type: 'integer', minimum: SESSION_TIMEOUT_MIN_SECONDS, maximum: SESSION_TIMEOUT_MAX_SECONDS },
    region: { enum: ['us-west-2'] },
    keepAlive: { type: 'boolean' },
  },
} as const;

const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(sessionConfigSchema);

/** Readable problems with a session config (`browserSettings.verified must be boolean`); empty when valid. */
export function validateSessionConfig(value: unknown): string[] {
  if (validate(value)) return [...misspeltBrowserSettings(value as SessionConfig), ...proxyProblems(value as Record<string, unknown>)];
  return dedupe((validate.errors ?? []).filter((e) => e.keyword !== 'oneOf').map(describeError));
}

const KNOWN_BROWSER_SETTINGS = Object.keys(sessionConfigSchema.properties.browserSettings.properties);
const spelling = (key: string) => key.toLowerCase().replace(/[-_]/g, '');

/** Keys of browserSettings that are known settings spelt otherwise: left alone, they would be ignored. */
function misspeltBrowserSettings(config: SessionConfig): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(config.browserSettings ?? {})) {
    if (KNOWN_BROWSER_SETTINGS.includes(key)) continue;
    const meant = KNOWN_BROWSER_SETTINGS.find((known) => spelling(known) === spelling(key));
    if (meant) problems.push(`browserSettings has unknown field "${key}"; did you mean "${meant}"?`);
  }
  return problems;
}

function describeError(error: ErrorObject): string {
  const path = error.instancePath.slice(1).replace(/\//g, '.');
  const subject = path || 'sessionConfig';
  switch (error.keyword) {
    case 'additionalProperties':
      return `${subject} has unknown field "${(error.params as { additionalProperty: string }).additionalProperty}"`;
    case 'required':
      return `${path ? path + '.' : ''}${(error.params as { missingProperty: string }).missingProperty} is required`;
    case 'enum':
      return `${subject} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${subject} ${error.message ?? 'is invalid'}`;
  }
}

function dedupe(messages: string[]): string[] {
  return [...new Set(messages)];
}

/**
 * Deep-merges an override over a base config: plain objects merge key by key, arrays and scalars
 * from the override replace the base, `undefined` in the override keeps the base value.
 * Neither input is modified.
 */
export function deepMergeSessionConfig<T extends object>(base: T | undefined, override: object | undefined): T {
  return mergeValues(base ?? {}, override ?? {}) as T;
}

function mergeValues(base: unknown, override: unknown): unknown {
  if (override === undefined) return cloneValue(base);
  if (!isPlainObject(base) || !isPlainObject(override)) return cloneValue(override);
  const merged: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(base), ...Object.keys(override)])) {
    const value = mergeValues(base[key], override[key]);
    // defineProperty: a JSON "__proto__" key stays a plain field instead of changing the prototype.
    if (value !== undefined) Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return merged;
}

function cloneValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneValue);
  if (isPlainObject(value)) return mergeValues({}, value);
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
