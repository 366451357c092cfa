// Entry point of the in-sandbox pod launcher (see pod-launcher.ts); nothing else is loaded.
import { runPodLauncher } from './pod-launcher.js';

runPodLauncher();
