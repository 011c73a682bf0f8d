import { after, before, describe, it } from 'node:test';
import { SharedInformerFactory } from '../../client/cache/factory.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { isNotFound } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { realClock } from '../../util/clock.js';
import { silentLogger } from '../../util/logger.js';
import type { ControllerContext } from '../context.js';
import type { ControllerManager } from '../manager.js';
import { DEFAULT_CONTROLLER_MANAGER_OPTIONS } from '../options.js';
import { RootCaCertPublisher, rootCaCertPublisherController } from './index.js';

const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the ' +
  'internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes ' +
  'clusters.';

let cp: ControlPlane;
let manager: ControllerManager;
let caPem: string;

const noEvents: EventRecorder = { event() {}, eventf() {}, annotatedEventf() {} };

function contextFor(stop: AbortController, options: Partial<typeof DEFAULT_CONTROLLER_MANAGER_OPTIONS> = {}) {
  const informers = new SharedInformerFactory({ client: cp.client });
  const ctx: ControllerContext = {
    client: cp.client,
    informers,
    clock: realClock,
    logger: silentLogger,
    recorder: () => noEvents,
    options: { ...DEFAULT_CONTROLLER_MANAGER_OPTIONS, ...options },
    signal: stop.signal,
  };
  return { ctx, informers };
}

async function createNamespace(name: string): Promise<void> {
  await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

async function published(ns: string) {
  const cm = await cp.client.configMaps(ns).get('kube-root-ca.crt');
  assert.deepEqual(cm.data, { 'ca.crt': caPem });
  assert.equal(cm.metadata.annotations?.['kubernetes.io/description'], DESCRIPTION);
  return cm;
}

describe('root-ca-certificate-publisher controller', () => {
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    const data = cp.kubeconfig.config.clusters[0]?.cluster['certificate-authority-data'] ?? '';
    caPem = Buffer.from(data, 'base64').toString('utf8');
    assert.match(caPem, /BEGIN CERTIFICATE/);
    manager = await runControllers(cp, [rootCaCertPublisherController], { options: { rootCaPem: caPem } });
  });

  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('publishes kube-root-ca.crt in every namespace, old and new', async () => {
    await createNamespace('team-a');
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'team-a']) {
      await eventually(() => published(ns));
    }
  });

  it('publishes it again after it was deleted', async () => {
    await createNamespace('team-b');
    const first = await eventually(() => published('team-b'));
    await cp.client.configMaps('team-b').delete('kube-root-ca.crt');
    await eventually(async () => {
      const cm = await published('team-b');
      assert.notEqual(cm.metadata.uid, first.metadata.uid);
    });
  });

  it('puts back data and the description when they are edited', async () => {
    await createNamespace('team-c');
    const cm = await eventually(() => published('team-c'));
    cm.data = { 'ca.crt': 'not a certificate', extra: 'x' };
    cm.metadata.annotations = { 'kubernetes.io/description': '', mine: 'kept' };
    await cp.client.configMaps('team-c').update(cm);
    const restored = await eventually(() => published('team-c'));
    // Other annotations are the user's and stay.
    assert.equal(restored.metadata.annotations?.mine, 'kept');
  });

  it('creates nothing in a namespace being deleted', async () => {
    await createNamespace('leaving');
    await eventually(() => published('leaving'));
    // No namespace controller runs here: the deleted namespace stays Terminating.
    await cp.client.namespaces().delete('leaving');
    await cp.client.configMaps('leaving').delete('kube-root-ca.crt');

    const stop = new AbortController();
    const { ctx, informers } = contextFor(stop);
    const publisher = new RootCaCertPublisher(ctx, caPem);
    informers.start();
    try {
      await informers.waitForCacheSync(stop.signal);
      await eventually(() => {
        assert.equal(informers.get('namespaces.v1')?.getIndexer().getByKey('leaving')?.status?.phase, 'Terminating');
        assert.equal(informers.get('configmaps.v1')?.getIndexer().getByKey('leaving/kube-root-ca.crt'), undefined);
      });
      // The apiserver refuses the create; that is not an error to retry.
      await publisher.sync('leaving');
      await assert.rejects(cp.client.configMaps('leaving').get('kube-root-ca.crt'), isNotFound);
    } finally {
      stop.abort();
      publisher.queue.shutDown();
      await informers.shutdown();
    }
  });

  it('does nothing without a root CA', async () => {
    const stop = new AbortController();
    const { ctx, informers } = contextFor(stop, { rootCaPem: undefined });
    const controller = await rootCaCertPublisherController.create(ctx);
    await controller.run();
    assert.equal(informers.get('configmaps.v1'), undefined);
    stop.abort();
  });
});
