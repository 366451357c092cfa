// Pod networks made ahead. Making a pod's network (pasta: its namespaces, netlink, its socket and
// pipe pools) took 30-60 ms of a sandboxed pod's start, before anything of the pod could run, and
// its CPU beside the pod's own. The node agent keeps one ready, made as a host user and with a
// control-plane entrance of its own; the next sandboxed pod takes all three, and its bubblewrap
// joins the namespaces (pod-sandbox.ts). The next one is made once that pod has ended, or
// REFILL_DELAY_MS after it was taken, so that making it does not take CPU from the pod starting.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Logger } from '../../config/logger.js';
import { joinNetworkCommand, networkHolderCommand, type PodNetworkSpec } from '../sandbox/pod-sandbox.js';
import { signalProcessGroup } from '../sandbox/process-group.js';
import { trial } from '../sandbox/sandbox-support.js';
import type { PodEntrance, PodEntrances } from './pod-entrance.js';
import type { PodUids } from './pod-users.js';

/** A pod network made ahead, with the host user and entrance it was made for. */
export interface SpareNetwork extends NetworkMadeAhead {
  /** The host user it was made as, which the pod then runs as (root agents only). */
  readonly uid?: number;
  /** The pod's way to the control plane, which the network forwards the control plane's port to. */
  readonly entrance?: PodEntrance;
}

export interface NetworkMadeAhead {
  /** The host pid of the process holding the namespaces (PodSandboxSpec.joinNetworkOf). */
  readonly holderPid: number;
  /** Its processes on the host (pasta, the holder), which join the pod's cgroups. */
  readonly pids: number[];
  /** Settles once pasta has exited. */
  readonly ended: Promise<void>;
  /** Ends it: the holder exits, and pasta with it; settles once pasta is gone. */
  end(): Promise<void>;
  /** SIGKILL to pasta and the holder. */
  kill(): void;
}

export interface SpareNetworksOptions {
  /** Host loopback ports each network forwards (the control plane's). */
  forwardPorts: number[];
  /** Set: the control plane's port leads to an entrance of the network's own. */
  entrances?: PodEntrances;
  /** Set (the agent is root): each network is made as a host user of its own. */
  uids?: PodUids;
  log: Logger;
}

/** Keeps the namespaces until its stdin closes; its line says pasta has configured the network. */
const HOLDER = ['sh', '-c', 'echo ready && exec cat > /dev/null'];
const REFILL_DELAY_MS = 1000;
const READY_TIMEOUT_MS = 10_000;
const END_TIMEOUT_MS = 2000;
/** Failures in a row after which this node makes no more (logged once). */
const MAX_FAILURES = 3;

export class SpareNetworks {
  #ready: SpareNetwork | undefined;
  #making: Promise<void> | undefined;
  #failures = 0;
  #closed = false;
  #joinChecked = false;

  constructor(private readonly options: SpareNetworksOptions) {}

  start(): void {
    this.#refill();
  }

  /** The network made ahead, if one is ready: its user, entrance and processes are the caller's from now on. */
  take(): SpareNetwork | undefined {
    const spare = this.#ready;
    if (!spare) return undefined;
    this.#ready = undefined;
    const timer = setTimeout(() => this.#refill(), REFILL_DELAY_MS);
    timer.unref();
    void spare.ended.then(() => {
      clearTimeout(timer);
      this.#refill();
    });
    return spare;
  }

  /** Ends the network waiting here and any being made, giving back their users and entrances. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#making;
    const spare = this.#ready;
    this.#ready = undefined;
    if (spare) await this.#discard(spare);
  }

  #refill(): void {
    if (this.#closed || this.#ready || this.#making || this.#failures >= MAX_FAILURES) return;
    this.#making = this.#make().then(
      async (spare) => {
        this.#making = undefined;
        if (this.#closed) return this.#discard(spare);
        this.#failures = 0;
        this.#ready = spare;
        // One that ends while waiting (killed from outside) is given back, and another made.
        void spare.ended.then(() => {
          if (this.#ready !== spare) return;
          this.#ready = undefined;
          void this.#discard(spare);
          this.#failed(new Error('its pasta exited while it waited'));
        });
      },
      (err: unknown) => {
        this.#making = undefined;
        this.#failed(err as Error);
      },
    );
  }

  #failed(err: Error): void {
    this.#failures++;
    if (this.#failures >= MAX_FAILURES) {
      this.options.log.warn({ err: err.message }, 'pod networks cannot be made ahead on this node; each sandboxed pod starts its own pasta');
      return;
    }
    this.options.log.debug({ err: err.message }, 'could not make a pod network ahead; trying again');
    setTimeout(() => this.#refill(), REFILL_DELAY_MS).unref();
  }

  async #discard(spare: SpareNetwork): Promise<void> {
    await spare.end();
    spare.entrance?.close();
    if (spare.uid !== undefined) this.options.uids?.release(spare.uid);
  }

  async #make(): Promise<SpareNetwork> {
    const { entrances, uids, forwardPorts } = this.options;
    const uid = uids?.acquire();
    let entrance: PodEntrance | undefined;
    let network: NetworkMadeAhead | undefined;
    try {
      entrance = entrances ? await entrances.openFor() : undefined;
      const hostPorts = entrances && entrance ? { [entrances.port]: entrance.port } : undefined;
      network = await makeNetwork({ forwardPorts, hostPorts }, uid);
      if (!this.#joinChecked) {
        await joinTrial(network.holderPid, uid);
        this.#joinChecked = true;
      }
      return { uid, entrance, ...network };
    } catch (err) {
      await network?.end();
      entrance?.close();
      if (uid !== undefined) uids?.release(uid);
      throw err;
    }
  }
}

/** Starts pasta (as `uid`) around the holder; resolves once the network is configured and its holder known. */
export function makeNetwork(spec: PodNetworkSpec, uid: number | undefined): Promise<NetworkMadeAhead> {
  const [file, args] = networkHolderCommand(spec, HOLDER);
  const child = spawn(file, args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'], uid, gid: uid, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  child.stdin?.on('error', () => undefined);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-1000)));
  let exited = false;
  const ended = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => resolve());
  }).then(() => {
    exited = true;
  });
  // Not once it has exited: its process group's id may be another's by then.
  const kill = () => {
    if (!exited && child.pid !== undefined) signalProcessGroup(child.pid, 'SIGKILL');
  };
  return new Promise<NetworkMadeAhead>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: NetworkMadeAhead | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (outcome instanceof Error) {
        kill();
        reject(outcome);
        return;
      }
      resolve(outcome);
    };
    const timer = setTimeout(() => settle(new Error(`pasta did not configure a network within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    child.once('error', (err) => settle(err));
    void ended.then(() => settle(new Error(`pasta exited before its network was ready: ${stderr.trim() || '(no output)'}`)));
    createInterface({ input: child.stdout! }).once('line', () => {
      const holderPid = onlyChildOf(child.pid!);
      if (holderPid === undefined) {
        settle(new Error('the process holding the network could not be found'));
        return;
      }
      let ending: Promise<void> | undefined;
      const end = () => (ending ??= endHolder(child, ended, kill));
      settle({ holderPid, pids: [child.pid!, holderPid], ended, end, kill });
    });
  });
}

/** The one child process of `pid` (the holder pasta started), from /proc. */
function onlyChildOf(pid: number): number | undefined {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return children.length === 1 ? Number(children[0]) : undefined;
  } catch {
    return undefined;
  }
}

/** Closing the holder's stdin ends it, and pasta after it; killed when that takes too long. */
async function endHolder(child: ChildProcess, ended: Promise<void>, kill: () => void): Promise<void> {
  child.stdin?.end();
  const timer = setTimeout(kill, END_TIMEOUT_MS);
  await ended;
  clearTimeout(timer);
}

/** Whether a process of `uid` can join the network as pods will (nsenter present, the user namespace its own). */
async function joinTrial(holderPid: number, uid: number | undefined): Promise<void> {
  const [file, ...args] = joinNetworkCommand(holderPid, ['true']);
  const joined = await trial([file, args], uid);
  if (!joined.ok) throw new Error(`a process could not join a network made ahead: ${joined.detail}`);
}
