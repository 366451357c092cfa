// Entry of the browser pod agent process. A pool member's agent compiles all of its code as it
// loads it (V8's --no-lazy, set before the import below, which the bundle keeps as a chunk of its
// own): an agent serves one invocation, so every function a claimed member runs would otherwise be
// compiled inside that invocation, 3-4 ms of a warm one. The cost, about 60 ms of CPU and 14 MB,
// falls before the member is ready. A cold pod's agent compiles as it goes: its start is on its
// invocation's path, and it starts the processes its run waits on longest (head-start.ts) before it
// imports the agent's code. In a sandbox made ahead (never a pool member's), this process started
// before its pod existed: it loads the agent's code and starts the code loader, then waits until
// the launcher hands it the pod's environment (pod-handover.ts).
import { setFlagsFromString } from 'node:v8';
import { PodEnv } from '../../schemas/pod-env.js';
import { ignoreInspectorSignal } from '../agent-common/inspector-signal.js';
import { podHandover } from '../agent-common/pod-handover.js';

ignoreInspectorSignal();
const handover = podHandover();
const prepared = handover && (await import('./head-start.js')).prepareAhead(process.env);
if (handover && prepared) {
  await import('./pod-agent.js');
  await prepared.user.then(() => handover.prepared(), () => undefined);
  await handover.handed;
}
const poolMember = process.env[PodEnv.poolMember] === '1';
if (poolMember) {
  prepared?.discard();
  setFlagsFromString('--no-lazy');
}
const headStart = poolMember ? undefined : (await import('./head-start.js')).startColdPodAhead(process.env, prepared);
const { runPodAgent } = await import('./pod-agent.js');
process.exit(await runPodAgent(process.env, { headStart }));
