// Node opens its inspector (127.0.0.1:9229, full control of the process) when it gets SIGUSR1. User
// code runs in its pod as the same user as the pod's launcher and agents, so it could send that
// signal to them and take one over, pod token and all. A listener of the process's own replaces
// Node's handler for the signal (Node >= 22.14 also has --disable-sigusr1; 20 does not).
export function ignoreInspectorSignal(): void {
  process.on('SIGUSR1', () => undefined);
}
