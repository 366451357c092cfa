// API server answers → the cluster port's error classes. The API server explains every refusal in
// a Status object (code, reason, message naming the field); the message is kept as it is.
import { STATUS_CODES } from 'node:http';
import { AlreadyExistsError, ClusterError, ConflictError, GoneError, InvalidError, NotFoundError } from '../port.js';

/** metav1.Status, as the API server sends it in error bodies and watch ERROR events. */
export interface ApiStatus {
  kind: 'Status';
  status?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { name?: string; group?: string; kind?: string; causes?: { field?: string; message?: string }[] };
}

export const isApiStatus = (value: unknown): value is ApiStatus =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';

/** A 404 that keeps the Status details: they tell a missing object (details.name) from a path the server does not serve. */
export class KubeNotFoundError extends NotFoundError {
  constructor(
    message: string,
    readonly details: ApiStatus['details'],
  ) {
    super(message);
  }
}

export function errorFromStatus(httpStatus: number, body: unknown, request: string): ClusterError {
  const status = isApiStatus(body) ? body : undefined;
  const code = status?.code || httpStatus;
  const text = typeof body === 'string' && body.trim() ? body.trim().slice(0, 500) : undefined;
  const message = status?.message || `${request}: HTTP ${code} ${STATUS_CODES[code] ?? ''}${text ? `: ${text}` : ''}`.trim();
  switch (code) {
    case 404:
      return new KubeNotFoundError(message, status?.details);
    case 409:
      return status?.reason === 'AlreadyExists' ? new AlreadyExistsError(message) : new ConflictError(message);
    case 410:
      return new GoneError(message);
    case 422:
      return new InvalidError(message);
    default:
      return new ClusterError(code, status?.reason || (STATUS_CODES[code] ?? 'Unknown').replace(/\s+/g, ''), message);
  }
}
