// Entry of a conversion worker thread: converts one document per message, off the request thread.
import { parentPort } from 'node:worker_threads';
import { convertDocument, type ConversionRequest, type ConversionResult } from './convert/convert-document.js';

export interface ConversionJob {
  id: number;
  request: ConversionRequest;
}

export type ConversionReply =
  | { id: number; ok: true; result: ConversionResult }
  | { id: number; ok: false; message: string }
  | { ready: true };

parentPort?.on('message', (job: ConversionJob) => {
  let reply: ConversionReply;
  try {
    reply = { id: job.id, ok: true, result: convertDocument(job.request) };
  } catch (err) {
    reply = { id: job.id, ok: false, message: (err as Error).stack ?? String(err) };
  }
  parentPort!.postMessage(reply);
});

// Modules are loaded: conversions timed from now measure conversion, not start-up.
parentPort?.postMessage({ ready: true } satisfies ConversionReply);
