// Run by bench/apiserver.ts as `node --expose-gc --import tsx bench/heap-per-pod.ts SIZE`: an in-process control
// plane on sqlite, COUNT pods created through HTTPS, then a full GC; prints {"heapBytesPerPod":…,"externalBytesPerPod":…,"rssBytesPerPod":…}.
// RSS alone overstates what is kept: V8 does not give back the pages a burst of requests made it grow by.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane } from '../src/index.js';
import { apiRequest } from '../src/testing/api-client.js';
import { benchPod } from './pod.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const pad = Number(process.argv[2] ?? '0');
const count = 10_000;
const dir = mkdtempSync(join(tmpdir(), 'wheelhouse-heap-'));
const cp = await startControlPlane({ storage: 'sqlite', dataDir: dir });
try {
  await apiRequest(cp, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'bench' } } });
  gc();
  gc();
  const before = process.memoryUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        const n = next++;
        const res = await apiRequest(cp, 'POST', '/api/v1/namespaces/bench/pods', { body: benchPod(`p-${n}`, pad) });
        if (res.status !== 201) throw new Error(res.text);
      }
    }),
  );
  await new Promise((r) => setTimeout(r, 200));
  gc();
  gc();
  const after = process.memoryUsage();
  const podBytes = (await apiRequest(cp, 'GET', '/api/v1/namespaces/bench/pods/p-0')).text.length;
  console.log(
    JSON.stringify({
      podJsonBytes: podBytes,
      heapBytesPerPod: Math.round((after.heapUsed - before.heapUsed) / count),
      // The watch cache keeps stored bytes in Buffers, outside V8's heap.
      externalBytesPerPod: Math.round((after.external - before.external) / count),
      rssBytesPerPod: Math.round((after.rss - before.rss) / count),
    }),
  );
} finally {
  await cp.stop();
  rmSync(dir, { recursive: true, force: true });
}
