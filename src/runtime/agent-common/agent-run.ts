// What the pod and build agents share: run once, stop early on SIGTERM, deliver the report (then
// a browser pod closes its session). Exit code 0 when the report was delivered (whatever the
// outcome), 1 when it could not be or there was none.
import type { Logger } from '../../config/logger.js';
import type { PodReport } from '../../schemas/reports.js';

export interface AgentRun<R extends PodReport> {
  /** The report; undefined when SIGTERM ended a run that leaves its pod unreported (the control plane then counts the pod as lost). */
  execute(): Promise<R | undefined>;
  /** SIGTERM: end now (and report what is known, or nothing). */
  terminate(): void;
  /** Once the report is delivered: what the run still has to do and report (a browser pod closes its session). Never fails. */
  closeSession?(): Promise<void>;
  /** After the report: ends what the run left stopped, and resolves once every process it started is gone; the agent exits only then. */
  tearDown?(): Promise<void>;
}

export async function runAndReport<R extends PodReport>(run: AgentRun<R>, deliver: (report: R) => Promise<void>, log: Logger, summary: (report: R) => object): Promise<number> {
  const onSigterm = () => run.terminate();
  process.on('SIGTERM', onSigterm);
  try {
    const report = await run.execute();
    if (!report) {
      log.warn('stopped by SIGTERM before an outcome: nothing is reported, so the control plane counts the pod as lost');
      return 1;
    }
    try {
      await deliver(report);
      log.info(summary(report), 'report delivered');
    } catch (error) {
      log.error({ err: error }, 'could not deliver the report');
      return 1;
    }
    await run.closeSession?.();
    return 0;
  } finally {
    process.off('SIGTERM', onSigterm);
    await run.tearDown?.();
  }
}
