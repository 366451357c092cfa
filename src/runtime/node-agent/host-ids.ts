// The host-wide identities a node agent hands its pods: uids (as root) and loopback addresses (pods
// on the host's network). Two `serve` instances on one machine must not hand out the same ones: a
// pod's process limit counts every process of its uid, and two pods on one loopback address clash
// on their ports. Each node agent therefore holds a block of its own while it runs, locked by an
// abstract Unix socket named after the block: the kernel frees the name when the process ends, even
// by SIGKILL, so a crashed instance never strands its block.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createServer, type Server } from 'node:net';

export interface UidRange {
  first: number;
  count: number;
}

export interface HostIds {
  /** The block's number, 0 for the first instance on a machine. */
  block: number;
  /** Per-pod uids. */
  podUids: UidRange;
  /** Build uids, one per project (its npm cache belongs to it). */
  projectUids: UidRange;
  /** Second octet of the pods' loopback addresses (127.<octet>.x.y). */
  loopbackOctet: number;
  /** Gives the block back (the process's end does too). */
  release(): Promise<void>;
}

/** Blocks a machine offers, one per running node agent. */
export const HOST_ID_BLOCKS = 64;
const FIRST_UID = 1_000_000;
const UIDS_PER_RANGE = 100_000;

/** The uid ranges and loopback octet of block `block` (block 0: the ranges of every earlier version). */
export function hostIdBlock(block: number): Omit<HostIds, 'release'> {
  const podFirst = FIRST_UID + block * 2 * UIDS_PER_RANGE;
  return {
    block,
    podUids: { first: podFirst, count: UIDS_PER_RANGE },
    projectUids: { first: podFirst + UIDS_PER_RANGE, count: UIDS_PER_RANGE },
    loopbackOctet: block,
  };
}

/**
 * Claims the first free block, trying first the one recorded in `memoFile` (the block this data dir
 * had last time, so its npm caches keep their owners), and records the one it got there.
 */
export async function claimHostIds(memoFile?: string): Promise<HostIds> {
  const remembered = memoFile ? readMemo(memoFile) : undefined;
  const order = [...(remembered === undefined ? [] : [remembered]), ...Array.from({ length: HOST_ID_BLOCKS }, (_, i) => i).filter((i) => i !== remembered)];
  for (const block of order) {
    const lock = await lockBlock(block);
    if (!lock) continue;
    if (memoFile && block !== remembered) {
      mkdirSync(dirname(memoFile), { recursive: true, mode: 0o711 });
      writeFileSync(memoFile, `${block}\n`);
    }
    return { ...hostIdBlock(block), release: () => new Promise<void>((resolve) => lock.close(() => resolve())) };
  }
  throw new Error(`all ${HOST_ID_BLOCKS} blocks of pod uids and loopback addresses are held by browserfn node agents running on this machine; stop one of them`);
}

/** The lock of `block`, or undefined when another process holds it. */
function lockBlock(block: number): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(undefined) : reject(err)));
    // Abstract names (a leading NUL) live in the kernel only: no file to clean up after a crash.
    server.listen(`\0browserfn-host-ids-${block}`, () => {
      server.unref();
      resolve(server);
    });
  });
}

function readMemo(file: string): number | undefined {
  try {
    const block = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(block) && block >= 0 && block < HOST_ID_BLOCKS ? block : undefined;
  } catch {
    return undefined;
  }
}
