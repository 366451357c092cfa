// Entry point of the in-sandbox pod launcher (see pod-launcher.ts); nothing else is loaded.
import { ignoreInspectorSignal } from '../agent-common/inspector-signal.js';
import { runPodLauncher } from './pod-launcher.js';

ignoreInspectorSignal();
runPodLauncher();
