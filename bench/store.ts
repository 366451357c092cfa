// The embedded store's label-selector lists, which the sessions API makes for every request
// (an invocation found by its session's label): through the label index, against reading and
// matching every invocation (what a selector with no `=` or `in` still does), in one run.
import { randomBytes, randomUUID } from 'node:crypto';
import { openEmbeddedCluster } from '../src/cluster/embedded/index.js';
import { Kinds, newObject } from '../src/cluster/objects.js';
import { Labels, type InvocationObject } from '../src/schemas/resources.js';
import { percentile } from './invocations.js';

const SIZES = [1000, 7200];
const LOOKUPS = 50;

/** One hour of finished invocations at 2 per second is 7,200 in the store (BROWSERFN_FINISHED_TTL_SECONDS). */
export async function runStoreBench(): Promise<void> {
  console.log('\n== Embedded store: one invocation by its session label (ms per list, p50 / p95) ==');
  console.log(`${'invocations in the store'.padEnd(28)}${'label index'.padStart(18)}${'+ a label all have'.padStart(22)}${'every row read'.padStart(18)}`);
  for (const size of SIZES) {
    const cluster = await openEmbeddedCluster({ file: ':memory:', encryptionKey: randomBytes(32) });
    try {
      const invocations = cluster.resource<InvocationObject>(Kinds.Invocation);
      const sessions: string[] = [];
      for (let i = 0; i < size; i++) {
        const sessionId = randomUUID();
        sessions.push(sessionId);
        await invocations.create(invocationLike(`inv-${i}`, sessionId));
      }
      // Each lookup lists with the selector, then keeps the session's invocation: the one listed, unless `listsAll`.
      const timed = async (selector: (sessionId: string) => string, listsAll = false): Promise<number[]> => {
        const times: number[] = [];
        for (let i = 0; i < LOOKUPS; i++) {
          const sessionId = sessions[Math.floor((i * size) / LOOKUPS)];
          const started = performance.now();
          const { items } = await invocations.list('default', { labelSelector: selector(sessionId) });
          const found = items.filter((item) => item.metadata.labels?.[Labels.sessionId] === sessionId);
          times.push(performance.now() - started);
          if (found.length !== 1 || (!listsAll && items.length !== 1)) throw new Error(`expected one invocation for session ${sessionId}, found ${found.length} of ${items.length} listed`);
        }
        return times;
      };
      const indexed = await timed((sessionId) => `${Labels.sessionId}=${sessionId}`);
      // The label every invocation has named first: the index starts from the rarer one all the same.
      const broadFirst = await timed((sessionId) => `${Labels.functionName}=bench,${Labels.sessionId}=${sessionId}`);
      // As every label list was made before the index: an existence selector cannot use it, so each
      // invocation is read and decoded, and the session's is picked out after.
      const scanned = await timed(() => Labels.sessionId, true);
      const cell = (times: number[]) => `${percentile(times, 50).toFixed(2)} / ${percentile(times, 95).toFixed(2)}`;
      console.log(`${String(size).padEnd(28)}${cell(indexed).padStart(18)}${cell(broadFirst).padStart(22)}${cell(scanned).padStart(18)}`);
    } finally {
      await cluster.close();
    }
  }
}

function invocationLike(name: string, sessionId: string): InvocationObject {
  const labels = { [Labels.sessionId]: sessionId, [Labels.functionName]: 'bench' };
  const spec = {
    functionName: 'bench',
    functionUid: randomUUID(),
    versionId: randomUUID(),
    bundleConfigMap: 'bundle-bench',
    params: { url: `https://example.com/${'x'.repeat(200)}` },
    sessionConfig: { browserSettings: { viewport: { width: 1024, height: 768 } } },
    timeoutSeconds: 60,
    sessionId,
  };
  return newObject<InvocationObject>(Kinds.Invocation, { name, namespace: 'default', labels }, { spec });
}
