// Times the steps of a build and logs each one as `Step <name>: <seconds> s`, a line the CLI reads
// back from the build log to show where the time went (the Build object keeps its wire shape).
import type { LogCollector } from '../runtime/sandbox/log-collector.js';

export type BuildStepName = 'extract' | 'install' | 'bundle' | 'introspect' | 'upload';

export const STEP_LOG_LINE = /^Step (\w+): (\d+\.\d+) s( \(failed\))?$/;

export class BuildSteps {
  constructor(private readonly logs: LogCollector) {}

  async run<T>(name: BuildStepName, step: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let failed = true;
    try {
      const value = await step();
      failed = false;
      return value;
    } finally {
      const seconds = ((performance.now() - started) / 1000).toFixed(2);
      this.logs.add('info', `Step ${name}: ${seconds} s${failed ? ' (failed)' : ''}`);
    }
  }
}
