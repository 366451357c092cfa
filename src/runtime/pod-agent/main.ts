// Entry of the browser pod agent process.
import { runPodAgent } from './pod-agent.js';

process.exit(await runPodAgent(process.env));
