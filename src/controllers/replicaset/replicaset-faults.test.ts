/**
 * The replicaset controller against an apiserver whose answers the test bends: pod creates that fail (quota-like
 * refusals) and a pod watch that delivers late (a slow informer).
 */
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '../../client/rest.js';
import {
  ApiError,
  type GroupVersionResource,
  type KubeObject,
  type ResourceClient,
  type WatchStream,
} from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually } from '../../testing/controllers.js';
import { ControllerManager } from '../manager.js';
import { replicaSetController } from './index.js';

let cp: ControlPlane;
let manager: ControllerManager;
let failCreates = false;
let creates = 0;
const WATCH_DELAY_MS = 150;

const podSpec = { containers: [{ name: 'web', image: 'nginx:1.27' }] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A pods client whose creates fail while failCreates is set. */
function faultyPods(inner: ResourceClient): ResourceClient {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'namespace') return (ns: string) => faultyPods(target.namespace(ns));
      if (prop === 'create') {
        return async (obj: KubeObject) => {
          creates++;
          if (failCreates) {
            throw new ApiError({
              kind: 'Status',
              apiVersion: 'v1',
              status: 'Failure',
              code: 403,
              reason: 'Forbidden',
              message:
                'pods "web-x" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=0, limited: pods=0',
            });
          }
          return target.create(obj);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A pods client whose watch delivers every event late: the informer lags behind the apiserver. */
function slowWatch(inner: ResourceClient): ResourceClient {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'watch') {
        return async (opts: unknown) => {
          const stream = await target.watch(opts as never);
          const delayed: WatchStream = {
            close: () => stream.close(),
            async *[Symbol.asyncIterator]() {
              for await (const event of stream) {
                await sleep(WATCH_DELAY_MS);
                yield event;
              }
            },
          };
          return delayed;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function bentClient(client: KubeClient): KubeClient {
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'pods') return (ns?: string) => faultyPods(target.pods(ns));
      if (prop === 'resource') {
        return (gvr: GroupVersionResource, opts?: object) => {
          const rc = target.resource(gvr, opts);
          return gvr.group === '' && gvr.resource === 'pods' ? slowWatch(rc) : rc;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function activePods(ns: string): Promise<KubeObject[]> {
  return (await cp.client.pods(ns).list()).items.filter((p) => !p.metadata.deletionTimestamp);
}

describe('replicaset controller with faults', () => {
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = new ControllerManager({
      client: bentClient(cp.client),
      descriptors: [replicaSetController],
      options: { leaderElect: false },
    });
    manager.start();
  });

  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('never creates twice while its informer lags (expectations)', async () => {
    const ns = 'slow';
    await cp.client.namespaces().create({ metadata: { name: ns } });
    const rsClient = cp.client.replicaSets(ns);
    await rsClient.create({
      metadata: { name: 'web' },
      spec: {
        replicas: 4,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: podSpec },
      },
    });
    await eventually(async () => assert.equal((await activePods(ns)).length, 4));
    await eventually(async () => assert.equal((await rsClient.get('web')).status?.replicas, 4));
    // Status writes and late pod events keep waking it up; none of those syncs creates more.
    await sleep(4 * WATCH_DELAY_MS);
    assert.equal((await activePods(ns)).length, 4);
    assert.equal(creates, 4);
  });

  it('reports failed creates with a FailedCreate event and the ReplicaFailure condition, then recovers', async () => {
    const ns = 'quota';
    await cp.client.namespaces().create({ metadata: { name: ns } });
    failCreates = true;
    const before = creates;
    const rsClient = cp.client.replicaSets(ns);
    await rsClient.create({
      metadata: { name: 'web' },
      spec: {
        replicas: 8,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: podSpec },
      },
    });
    const message = 'pods "web-x" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=0, limited: pods=0';
    await eventually(async () => {
      const rs = await rsClient.get('web');
      const cond = (rs.status?.conditions ?? []).find((c: { type: string }) => c.type === 'ReplicaFailure');
      assert.equal(cond?.status, 'True');
      assert.equal(cond?.reason, 'FailedCreate');
      assert.equal(cond?.message, message);
      assert.equal(rs.status?.replicas, 0);
    });
    await eventually(async () => {
      const failed = (await cp.client.events(ns).list()).items.filter((e) => e.reason === 'FailedCreate');
      assert.ok(failed.length >= 1);
      assert.equal(failed[0]?.type, 'Warning');
      assert.equal(failed[0]?.message, `Error creating: ${message}`);
    });
    // Slow start: each failing sync tries one create, not eight.
    const syncsTried = creates - before;
    assert.ok(syncsTried < 8, `tried ${syncsTried} creates`);

    failCreates = false;
    await eventually(async () => assert.equal((await activePods(ns)).length, 8), { timeoutMs: 10_000 });
    await eventually(async () => {
      const rs = await rsClient.get('web');
      assert.equal(rs.status?.replicas, 8);
      assert.equal(rs.status?.conditions, undefined);
    });
  });
});
