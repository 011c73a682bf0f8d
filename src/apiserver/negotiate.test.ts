import { describe, it } from 'node:test';
import { StatusError } from '../api/status-error.js';
import assert from '../testing/assert.js';
import { negotiateOutput } from './negotiate.js';

describe('negotiateOutput', () => {
  it("honours kubectl get's Accept header", () => {
    assert.deepEqual(
      negotiateOutput(
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      ),
      { as: 'Table', version: 'v1' },
    );
    assert.deepEqual(
      negotiateOutput('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json'),
      {
        as: 'PartialObjectMetadata',
        version: 'v1',
      },
    );
  });
  it('falls back to plain JSON, skipping protobuf and unknown forms', () => {
    assert.deepEqual(negotiateOutput('application/vnd.kubernetes.protobuf, application/json'), {
      as: 'object',
      yaml: false,
    });
    assert.deepEqual(negotiateOutput('application/json;as=Table;v=v2;g=meta.k8s.io, */*'), {
      as: 'object',
      yaml: false,
    });
    assert.deepEqual(negotiateOutput(undefined), { as: 'object', yaml: false });
    assert.deepEqual(negotiateOutput('application/yaml'), { as: 'object', yaml: true });
  });
  it('answers 406 when nothing acceptable is offered, every time', () => {
    for (let i = 0; i < 2; i++) {
      assert.throws(
        () => negotiateOutput('application/vnd.kubernetes.protobuf'),
        (e: unknown) => e instanceof StatusError && e.code === 406 && e.reason === 'NotAcceptable',
      );
    }
  });
  it('gives the same (frozen) form again for an Accept header seen before', () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json';
    const first = negotiateOutput(accept);
    assert.deepEqual(first, { as: 'Table', version: 'v1' });
    assert.equal(negotiateOutput(accept), first);
    assert.ok(Object.isFrozen(first));
  });
});
