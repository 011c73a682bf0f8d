import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { imageReferenceError } from './image-reference.js';

const hex = (n: number, digit = 'a') => digit.repeat(n);

describe('image references as the kubelet parses them', () => {
  it('accepts short names, registries with ports, tags and digests', () => {
    for (const image of [
      'nginx',
      'nginx:1.27',
      'nginx:Latest',
      'bitnami/redis',
      'registry.k8s.io/pause:3.10',
      'localhost:5000/app:v1',
      'Registry.Example.com/team/app',
      'my_app__x-y.z',
      `nginx@sha256:${hex(64)}`,
      `nginx:1.27@sha512:${hex(128, '0')}`,
      'index.docker.io/library/busybox',
      '[::1]:5000/app',
    ]) {
      assert.equal(imageReferenceError(image), undefined, image);
    }
  });

  it('refuses what the reference parser refuses, in its words', () => {
    const cases: Array<[string, string]> = [
      ['NGINX', 'invalid reference format: repository name (library/NGINX) must be lowercase'],
      ['index.docker.io/NGINX', 'invalid reference format: repository name (library/NGINX) must be lowercase'],
      ['team/App:v1', 'invalid reference format: repository name (team/App) must be lowercase'],
      ['nginx::1', 'invalid reference format'],
      ['nginx:', 'invalid reference format'],
      ['-nginx', 'invalid reference format'],
      ['nginx@sha256:abc', 'invalid reference format'],
      [`nginx@sha256:${hex(40)}`, 'invalid checksum digest length'],
      [`nginx@sha256:${hex(64, 'A')}`, 'invalid checksum digest format'],
      [`nginx@md5:${hex(32)}`, 'unsupported digest algorithm'],
      [hex(64), `invalid repository name (${hex(64)}), cannot specify 64-byte hexadecimal strings`],
      [hex(256), 'repository name must not be more than 255 characters'],
    ];
    for (const [image, error] of cases) assert.equal(imageReferenceError(image), error, image);
  });
});
