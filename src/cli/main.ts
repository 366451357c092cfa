#!/usr/bin/env node
// The browserfn command line. `browserfn pod-agent` and `browserfn build-agent`, how a kubelet
// starts a pod's agent, run the agent's script at once: loading the command-line program first
// (commander and every command) cost each pod about 100 ms of CPU before its agent began.
import { pathToFileURL } from 'node:url';
import { agentMains, isAgentCommand } from '../runtime/node-agent/agent-mains.js';

const [command] = process.argv.slice(2);
// Each agent's script reads its settings from the environment and exits by itself.
await import(isAgentCommand(command) ? pathToFileURL(agentMains()[command]).href : './program.js');
