import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { AuthorizationAttributes } from './attributes.js';
import { AuthorizerChain, parseAuthorizationModes } from './modes.js';
import type { RBACIndex } from './rbac-index.js';

const attrs = (groups: string[]): AuthorizationAttributes => ({
  user: { name: 'jane', groups },
  verb: 'list',
  isResourceRequest: true,
  path: '/api/v1/pods',
  apiGroup: '',
  apiVersion: 'v1',
  namespace: '',
  resource: 'pods',
  subresource: '',
  name: '',
});

describe('authorization modes', () => {
  it("reads --authorization-mode with upstream's messages for unknown and repeated modes", () => {
    assert.deepEqual(parseAuthorizationModes('Node, RBAC'), ['Node', 'RBAC']);
    assert.throws(() => parseAuthorizationModes('RBAC,Magic'), {
      message: 'authorization-mode "Magic" is not a valid mode',
    });
    assert.throws(() => parseAuthorizationModes('RBAC,RBAC'), {
      message: 'authorization-mode "RBAC" has mode specified more than once',
    });
    assert.throws(() => parseAuthorizationModes(''), { message: 'at least one authorization-mode must be passed' });
    assert.throws(() => parseAuthorizationModes('ABAC'), /"ABAC" is not implemented by wheelhouse yet/);
  });

  it('AlwaysDeny denies everyone but system:masters, whose group is allowed ahead of the modes', () => {
    const chain = new AuthorizerChain(['AlwaysDeny'], undefined as unknown as RBACIndex);
    assert.deepEqual(chain.authorize(attrs(['system:authenticated'])), {
      decision: 'deny',
      reason: 'Everything is forbidden.',
    });
    assert.equal((chain.authorize(attrs(['system:masters'])) as { decision: string }).decision, 'allow');
    // The first mode with an opinion wins: AlwaysAllow before AlwaysDeny allows.
    const open = new AuthorizerChain(['AlwaysAllow', 'AlwaysDeny'], undefined as unknown as RBACIndex);
    assert.equal((open.authorize(attrs([])) as { decision: string }).decision, 'allow');
  });
});
