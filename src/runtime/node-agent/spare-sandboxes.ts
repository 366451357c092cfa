// Sandboxes made ahead. A cold browser pod's start had the sandbox's own start (bubblewrap, 6-9 ms)
// and two Node starts on its path before its browser and code could run: the launcher's (with the
// agent's code, about 40 ms of import) and the code loader's (about 50 ms idle, 125 ms beside a
// starting browser). The node agent keeps one sandbox ready in a network made ahead, for the shape
// its cold browser pods have (chooseShape): a folder of its own at each of that pod's mount paths, an
// /etc/hosts and an /artifact folder it fills once claimed, and a launcher that has loaded the
// agent, whose code loader waits for a bundle (pod-launcher.ts, pod-handover.ts). Nothing of a pod
// is in it before it is claimed: no token, no code, no browser. The next cold pod of that shape
// takes it: its folder becomes the pod's folder, its processes join the pod's cgroups, and its
// launcher becomes the pod's agent. It serves that pod alone and ends with it (spare-keeper.ts).
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from '../../config/logger.js';
import type { SandboxMount } from '../sandbox/pod-sandbox.js';
import { chownTree } from './pod-users.js';
import type { PodEntrance } from './pod-entrance.js';
import { AHEAD_OF_POD } from './pod-launcher.js';
import { spawnSandbox, type StartedSandbox } from './pod-processes.js';
import { processTree } from './process-tree.js';
import { SpareKeeper, type MadeAhead, type SpareMaker } from './spare-keeper.js';
import type { NetworkMaker, SpareNetwork } from './spare-networks.js';

/** Where a pod's artifact is inside its sandbox (read-only), and the folder a sandbox made ahead has there. */
export const SANDBOX_ARTIFACT_FOLDER = '/artifact';
export const SANDBOX_ARTIFACT_FILE = `${SANDBOX_ARTIFACT_FOLDER}/artifact.tar.gz`;

/** What a sandbox made ahead is made for; a pod takes one only when its own shape is the same. */
export interface SandboxShape {
  /** The pod's volumes (emptyDirs): a folder of the sandbox's own at each mount path. */
  volumes: { name: string; mountPath: string; readOnly: boolean }[];
  shmBytes?: number;
  /** The agent script its launcher loads (its path inside the sandbox). */
  agentScript: string;
  /** The environment the agent prepares with (PATH, the pod's folder, the runtime modules); the pod's must have the same. */
  env: Record<string, string>;
}

export interface SpareSandbox extends MadeAhead {
  /** Its folder on the host, which becomes the pod's (claim()). */
  readonly dir: string;
  /** The host user it runs as (root agents only), and the network's entrance to the control plane. */
  readonly uid?: number;
  readonly entrance?: PodEntrance;
  readonly sandbox: StartedSandbox;
  /** Its network's processes (pasta, the holder). */
  readonly networkPids: number[];
  /** Its processes on the host now (the network's, the sandbox's and all they started), which join the pod's cgroups. */
  processes(): number[];
  /** Ends it and its network (its user and entrance stay the taker's to give back). */
  end(): Promise<void>;
  /** Ends it and gives back everything it holds. */
  discard(): Promise<void>;
}

export interface SpareSandboxesOptions {
  /** Makes the network each sandbox joins (with its host user and entrance). */
  networks: NetworkMaker;
  /** Sandboxes' folders are made below it (the pods' folder). */
  workDir: string;
  /** What every pod's sandbox mounts (this package's code, read-only). */
  codeMounts: SandboxMount[];
  forwardPorts: number[];
  maxProcesses?: number;
  /** The launcher (node and its script, paths inside the sandbox). */
  launcher: string[];
  log: Logger;
}

/** How its folder's name in the pods' folder starts: no pod's does (theirs are `<namespace>_<name>_<uid>`). */
const FOLDER_PREFIX = '.ahead-';
/** After the pod that named a shape, before the first sandbox of that shape is made. */
const FIRST_DELAY_MS = 1000;
const PREPARED_TIMEOUT_MS = 20_000;
const DISCARD_GRACE_MS = 2000;

/** The shape sandboxes are made for, and another that the last cold pod had. */
export interface ShapeChoice {
  shape?: string;
  contender?: string;
}

/**
 * The shape to make sandboxes for after a cold pod of shape `seen`: the first one's, then another
 * once two cold pods in a row have had it. So pods that alternate between two shapes (two memory
 * limits) leave the sandboxes of the one first seen to its pods, rather than have each one made and
 * thrown away unused.
 */
export function chooseShape(choice: ShapeChoice, seen: string): ShapeChoice {
  if (choice.shape === undefined || seen === choice.shape || seen === choice.contender) return { shape: seen };
  return { shape: choice.shape, contender: seen };
}

/** Keeps one sandbox ready for the shape cold browser pods have (chooseShape). */
export class SpareSandboxes {
  #choice: ShapeChoice = {};
  #keeper: SpareKeeper<SpareSandbox> | undefined;
  #closed = false;

  constructor(private readonly options: SpareSandboxesOptions) {}

  /** The sandbox made ahead for `shape`, if one is ready; else none (and sandboxes may be made for `shape` from now on). */
  take(shape: SandboxShape): SpareSandbox | undefined {
    const key = JSON.stringify(shape);
    const before = this.#choice.shape;
    this.#choice = chooseShape(this.#choice, key);
    if (key === before) return this.#keeper?.take();
    if (this.#closed || this.#choice.shape === before) return undefined;
    void this.#keeper?.close();
    this.#keeper = new SpareKeeper(new SandboxMaker(shape, this.options));
    // Not beside the pod that named the shape, which is starting now.
    this.#keeper.start(FIRST_DELAY_MS);
    return undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#keeper?.close();
  }
}

/** Sandboxes this process has made ahead, which name their folders. */
let sandboxesMade = 0;

class SandboxMaker implements SpareMaker<SpareSandbox> {
  readonly what = 'pod sandboxes';
  readonly otherwise = 'each cold pod starts its own';
  readonly log: Logger;

  constructor(
    private readonly shape: SandboxShape,
    private readonly options: SpareSandboxesOptions,
  ) {
    this.log = options.log;
  }

  async make(): Promise<SpareSandbox> {
    const { networks, workDir, codeMounts, forwardPorts, maxProcesses, launcher } = this.options;
    const { shmBytes, agentScript, env } = this.shape;
    const network = await networks.make();
    // Never a prefix of another's name (killProcessesUnder looks for it in command lines): n is followed by a dash.
    const dir = join(workDir, `${FOLDER_PREFIX}${process.pid}-${++sandboxesMade}-${randomBytes(4).toString('hex')}`);
    let sandbox: StartedSandbox | undefined;
    try {
      const mounts = [...codeMounts, ...this.#folders(dir, network.uid)];
      sandbox = spawnSandbox(
        {
          sandbox: { network: 'pasta', forwardPorts, mounts, maxProcesses: network.uid !== undefined ? maxProcesses : undefined, shmBytes },
          launcher: [...launcher, AHEAD_OF_POD, agentScript, JSON.stringify(env)],
          uid: network.uid,
          gid: network.uid,
          network,
        },
        { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      );
      await untilPrepared(sandbox);
      const made = sandbox;
      return {
        dir,
        uid: network.uid,
        entrance: network.entrance,
        sandbox: made,
        networkPids: network.pids,
        ended: made.ended,
        processes: () => [...network.pids, ...processTree(made.pid)],
        end: () => made.discard(DISCARD_GRACE_MS),
        discard: () => this.#end(made, network, dir),
      };
    } catch (err) {
      if (sandbox) await sandbox.discard(DISCARD_GRACE_MS);
      await networks.discard(network);
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }

  describe(spare: SpareSandbox): Record<string, unknown> {
    return { pid: spare.sandbox.pid, networkPids: spare.networkPids, dir: spare.dir };
  }

  async discard(spare: SpareSandbox): Promise<void> {
    await spare.discard();
  }

  /** Its folder: one per volume at its mount path, the hosts file and the artifact's folder. */
  #folders(dir: string, uid: number | undefined): SandboxMount[] {
    mkdirSync(dir, { mode: 0o700 });
    const mounts: SandboxMount[] = this.shape.volumes.map(({ name, mountPath, readOnly }) => {
      mkdirSync(join(dir, name), { mode: 0o700 });
      return { source: join(dir, name), target: mountPath, writable: !readOnly };
    });
    // The host's until the pod names Services (pod-hosts-files.ts rewrites it in place).
    const hosts = join(dir, 'hosts');
    writeFileSync(hosts, existsSync('/etc/hosts') ? readFileSync('/etc/hosts') : '', { mode: 0o644 });
    mkdirSync(join(dir, 'artifact'), { mode: 0o755 });
    mounts.push({ source: hosts, target: '/etc/hosts' }, { source: join(dir, 'artifact'), target: SANDBOX_ARTIFACT_FOLDER });
    if (uid !== undefined) chownTree(dir, uid);
    return mounts;
  }

  async #end(sandbox: StartedSandbox, network: SpareNetwork, dir: string): Promise<void> {
    await sandbox.discard(DISCARD_GRACE_MS);
    await this.options.networks.discard(network);
    await rm(dir, { recursive: true, force: true });
  }
}

/** Settles once the sandbox's agent has prepared; fails when the sandbox ends first or takes too long. */
function untilPrepared(sandbox: StartedSandbox): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`its agent did not prepare within ${PREPARED_TIMEOUT_MS} ms`)), PREPARED_TIMEOUT_MS);
    void sandbox.prepared.then(() => {
      clearTimeout(timer);
      resolve();
    });
    void sandbox.ended.then(() => {
      clearTimeout(timer);
      reject(new Error(`it exited before its agent had prepared: ${sandbox.output().trim().slice(-500) || '(no output)'}`));
    });
  });
}

/** Removes the folders of sandboxes made ahead in `workDir` by a server that stopped without closing them (a crash). */
export async function removeSandboxesLeftAhead(workDir: string): Promise<void> {
  const names = existsSync(workDir) ? readdirSync(workDir).filter((name) => name.startsWith(FOLDER_PREFIX)) : [];
  await Promise.all(names.map((name) => rm(join(workDir, name), { recursive: true, force: true })));
}

/** The pod's artifact, put in the claimed sandbox's folder (a hard link to the node's cached copy, or a copy). */
export function placeArtifact(sandboxDir: string, cachedFile: string): void {
  const target = join(sandboxDir, 'artifact', 'artifact.tar.gz');
  try {
    linkSync(cachedFile, target);
  } catch {
    copyFileSync(cachedFile, target);
    chmodSync(target, 0o444);
  }
}
