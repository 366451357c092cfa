// The public REST client, unmodified, given a fetch of the npm `undici` with a dispatcher of its
// own. Node's built-in fetch cannot be used here in every run: once the npm `undici` (7.x, which
// the fetch feature and webhook deliveries import) is loaded before anything touched the built-in
// fetch, it installs its Agent as the process-wide dispatcher, and the built-in fetch (undici 6)
// then fails on the content-length header the SDK sets ("invalid content-length header").
import Browserbase from '@browserbasehq/sdk';
import { Agent, fetch as undiciFetch } from 'undici';

export interface SdkClient {
  client: Browserbase;
  close(): Promise<void>;
}

export function sdkClient(apiKey: string, baseURL: string): SdkClient {
  const dispatcher = new Agent();
  const fetch = ((url: string, init: Record<string, unknown>) => undiciFetch(url, { ...init, dispatcher })) as unknown as typeof globalThis.fetch;
  return { client: new Browserbase({ apiKey, baseURL, maxRetries: 0, fetch: fetch as never }), close: () => dispatcher.close() };
}
