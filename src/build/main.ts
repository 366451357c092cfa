// Entry of the build pod agent process.
import { runBuildAgent } from './agent.js';

process.exit(await runBuildAgent(process.env));
