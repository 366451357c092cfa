// Runs the fetch benchmark on its own: node dist/bench/fetch-main.js
import { runFetchBench } from './fetch.js';

await runFetchBench();
