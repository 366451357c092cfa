// Entry of the browser pod agent process. Chromium is launched first, from a few small modules,
// and the rest of the agent is loaded while it starts.
import { launchBrowserAhead } from './browser-ahead.js';

const browserProvider = launchBrowserAhead(process.env);
const { runPodAgent } = await import('./pod-agent.js');
process.exit(await runPodAgent(process.env, { browserProvider }));
