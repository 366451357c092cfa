// Entry of the browser pod agent process. A pool member's agent compiles all of its code as it
// loads it (V8's --no-lazy, set before the import below, which the bundle keeps as a chunk of its
// own): an agent serves one invocation, so every function a claimed member runs would otherwise be
// compiled inside that invocation, 3-4 ms of a warm one. The cost, about 60 ms of CPU and 14 MB,
// falls before the member is ready. A cold pod's agent compiles as it goes: its start is on its
// invocation's path, and it starts the processes its run waits on longest (head-start.ts) before it
// imports the agent's code.
import { setFlagsFromString } from 'node:v8';
import { PodEnv } from '../../schemas/pod-env.js';
import { ignoreInspectorSignal } from '../agent-common/inspector-signal.js';

ignoreInspectorSignal();
const poolMember = process.env[PodEnv.poolMember] === '1';
if (poolMember) setFlagsFromString('--no-lazy');
const headStart = poolMember ? undefined : (await import('./head-start.js')).startColdPodAhead(process.env);
const { runPodAgent } = await import('./pod-agent.js');
process.exit(await runPodAgent(process.env, { headStart }));
