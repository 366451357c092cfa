// mocha root hook (registered in .mocharc.json): once every test has run, the process must end by
// itself. If something still holds the event loop — a timer, socket, server, worker thread, child
// process — the run would hang; instead it fails after a bounded wait, naming what is still open.
// To see where such a resource was created, print async_hooks init stacks (the why-is-node-running
// technique) from a root hook while debugging.
const GRACE_MS = 15_000;

export const mochaHooks = {
  afterAll(): void {
    // unref'd: this timer alone never keeps the process alive, so it fires only when something else does.
    setTimeout(() => {
      const open = process.getActiveResourcesInfo();
      console.error(`\nleak guard: the tests ended ${GRACE_MS / 1000} s ago but the process is still held open by: ${open.join(', ')} (stdio included); some stop() does not release what it holds`);
      // mocha sets the exit code from the failure count in its own 'exit' listener; this one runs after it.
      process.on('exit', () => {
        process.exitCode = 1;
      });
      process.exit(1);
    }, GRACE_MS).unref();
  },
};
