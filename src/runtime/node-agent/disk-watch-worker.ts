// The disk watch's worker thread: measures the folders it is sent and answers with their usage,
// so that walking pods' files never holds the server's event loop.
import { parentPort } from 'node:worker_threads';
import { folderBytes } from './folder-usage.js';

export interface UsageRequest {
  folders: { folder: string; limitBytes: number }[];
}

parentPort?.on('message', ({ folders }: UsageRequest) => {
  parentPort!.postMessage(folders.map(({ folder, limitBytes }) => folderBytes(folder, limitBytes)));
});
