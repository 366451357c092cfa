// Calls to the browserfn API with the project's key. The key lives in sessionStorage only: it
// survives reloads and navigation in this tab and is gone with the browser session.
const KEY_ITEM = 'browserfn.apiKey';

export const storedKey = (): string | null => sessionStorage.getItem(KEY_ITEM);
export const storeKey = (key: string): void => sessionStorage.setItem(KEY_ITEM, key);
export const forgetKey = (): void => sessionStorage.removeItem(KEY_ITEM);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function request(path: string, init: RequestInit = {}, key = storedKey()): Promise<Response> {
  const headers = new Headers(init.headers);
  if (key) headers.set('x-svc-api-key', key);
  const response = await fetch(path, { ...init, headers, cache: 'no-store', credentials: 'omit' });
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as { message?: string } | undefined;
    throw new ApiError(response.status, body?.message ?? `${response.status} ${response.statusText}`);
  }
  return response;
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  return (await request(path, { signal })).json() as Promise<T>;
}

export async function postJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  return (await request(path, { method: 'POST', signal })).json() as Promise<T>;
}

export async function getBlob(path: string, signal?: AbortSignal): Promise<Blob> {
  return (await request(path, { signal })).blob();
}

/** Checks a key against the API before keeping it. */
export async function checkKey(key: string): Promise<void> {
  await request('/v1/functions?limit=1', {}, key);
}

export const isMissing = (err: unknown): boolean => err instanceof ApiError && err.status === 404;

export const q = encodeURIComponent;
