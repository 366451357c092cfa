// Pod networks made ahead. Making a pod's network (pasta: its namespaces, netlink, its socket and
// pipe pools) took 30-60 ms of a sandboxed pod's start, before anything of the pod could run, and
// its CPU beside the pod's own. The node agent keeps one ready, made as a host user and with a
// control-plane entrance of its own; the next sandboxed pod takes all three, and its bubblewrap
// joins the namespaces (pod-sandbox.ts). It is kept as spare-keeper.ts keeps what is made ahead.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from '../../config/logger.js';
import { joinNetworkCommand, networkHolderCommand, type PodNetworkSpec } from '../sandbox/pod-sandbox.js';
import { endByClosingStdin, signalProcessGroup } from '../sandbox/process-group.js';
import { trial } from '../sandbox/sandbox-support.js';
import type { PodEntrance, PodEntrances } from './pod-entrance.js';
import type { PodUids } from './pod-users.js';
import { childrenOf } from './process-tree.js';
import type { SpareMaker } from './spare-keeper.js';

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
const READY_TIMEOUT_MS = 10_000;
const END_TIMEOUT_MS = 2000;

/** Makes pod networks ahead, each as a host user and with an entrance of its own. */
export class NetworkMaker implements SpareMaker<SpareNetwork> {
  readonly what = 'pod networks';
  readonly otherwise = 'each sandboxed pod starts its own pasta';
  readonly log: Logger;
  #joinChecked = false;

  constructor(private readonly options: SpareNetworksOptions) {
    this.log = options.log;
  }

  async make(): Promise<SpareNetwork> {
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

  describe(spare: SpareNetwork): Record<string, unknown> {
    return { pids: spare.pids };
  }

  /** Ends it and gives back its user and entrance. */
  async discard(spare: SpareNetwork): Promise<void> {
    await spare.end();
    spare.entrance?.close();
    if (spare.uid !== undefined) this.options.uids?.release(spare.uid);
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
      const children = childrenOf(child.pid!);
      const holderPid = children.length === 1 ? children[0] : undefined;
      if (holderPid === undefined) {
        settle(new Error('the process holding the network could not be found'));
        return;
      }
      let ending: Promise<void> | undefined;
      // Closing the holder's stdin ends it, and pasta after it.
      const end = () => (ending ??= endByClosingStdin(child, ended, kill, END_TIMEOUT_MS));
      settle({ holderPid, pids: [child.pid!, holderPid], ended, end, kill });
    });
  });
}

/** Whether a process of `uid` can join the network as pods will (nsenter present, the user namespace its own). */
async function joinTrial(holderPid: number, uid: number | undefined): Promise<void> {
  const [file, ...args] = joinNetworkCommand(holderPid, ['true']);
  const joined = await trial([file, args], uid);
  if (!joined.ok) throw new Error(`a process could not join a network made ahead: ${joined.detail}`);
}
