// Entry of the build pod agent process.
import { runBuildAgent } from './build-agent.js';

process.exit(await runBuildAgent(process.env));
