// Entry of the build pod agent process.
import { ignoreInspectorSignal } from '../runtime/agent-common/inspector-signal.js';
import { runBuildAgent } from './build-agent.js';

ignoreInspectorSignal();
process.exit(await runBuildAgent(process.env));
