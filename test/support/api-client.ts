// A plain client of a façade (JSON in and out, the project's key), for tests whose façade is not
// a TestService of their own: one on a kube project, an installed API pod.
import type { TestService } from './service.js';

export const apiClient = (url: () => string, apiKey: () => string): TestService =>
  ({
    get url() {
      return url();
    },
    async request(method: string, path: string, body?: unknown) {
      const init: RequestInit = { method, headers: { 'x-svc-api-key': apiKey() } };
      if (body instanceof FormData) init.body = body;
      else if (body !== undefined) {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] = 'application/json';
      }
      const response = await fetch(url() + path, init);
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
  }) as unknown as TestService;
