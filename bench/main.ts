// `make bench`: every benchmark of the project, each printing its figures next to a baseline
// measured in the same run on the same machine.
import { runInvocationBench } from './invocations.js';
import { runFetchBench } from './fetch.js';
import { runSandboxBench } from './sandbox.js';
import { runArtifactFormatsBench } from './artifact-formats.js';
import { runArtifactStartBench } from './artifact-start.js';
import { runLoadBench } from './load.js';
import { runRecordingBench } from './recording.js';
import { runStoreBench } from './store.js';

const only = process.argv[2];
if (!only || only === 'invocations') await runInvocationBench();
if (!only || only === 'sandbox') await runSandboxBench();
if (!only || only === 'fetch') await runFetchBench();
if (!only || only === 'artifacts') await runArtifactFormatsBench();
if (!only || only === 'artifact-start') await runArtifactStartBench();
if (!only || only === 'recording') await runRecordingBench();
if (!only || only === 'store') await runStoreBench();
// Not in the default run: it takes the machine for about half an hour at its default size.
if (only === 'load') await runLoadBench();
