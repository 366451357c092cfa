// Entry of the browser pod agent process. The browser starts first, while the agent's own modules
// load (early-browser.ts); only then is the agent imported.
import { startBrowserEarly } from './early-browser.js';

const browserProvider = startBrowserEarly(process.env);
const { runPodAgent } = await import('./pod-agent.js');
process.exit(await runPodAgent(process.env, { browserProvider }));
