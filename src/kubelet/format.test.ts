import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { formatGoDuration, formatPod, imageIdOf, normalizeImage } from './format.js';

describe('kubelet formatting', () => {
  it("prints durations as Go's time.Duration does", () => {
    assert.equal(formatGoDuration(0), '0s');
    assert.equal(formatGoDuration(500), '500ms');
    assert.equal(formatGoDuration(1500), '1.5s');
    assert.equal(formatGoDuration(10_000), '10s');
    assert.equal(formatGoDuration(80_000), '1m20s');
    assert.equal(formatGoDuration(160_000), '2m40s');
    assert.equal(formatGoDuration(300_000), '5m0s');
    assert.equal(formatGoDuration(3_600_000), '1h0m0s');
  });

  it('names pods and images as upstream and containerd do', () => {
    assert.equal(formatPod({ metadata: { name: 'web', namespace: 'default', uid: 'u1' } }), 'web_default(u1)');
    assert.equal(normalizeImage('nginx'), 'docker.io/library/nginx:latest');
    assert.equal(normalizeImage('nginx:1.27'), 'docker.io/library/nginx:1.27');
    assert.equal(normalizeImage('bitnami/redis'), 'docker.io/bitnami/redis:latest');
    assert.equal(normalizeImage('registry.k8s.io/pause:3.10'), 'registry.k8s.io/pause:3.10');
    assert.equal(normalizeImage('localhost:5000/app'), 'localhost:5000/app:latest');
    assert.match(imageIdOf('nginx:1.27'), /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    assert.equal(imageIdOf('nginx:1.27'), imageIdOf('docker.io/library/nginx:1.27'));
  });
});
