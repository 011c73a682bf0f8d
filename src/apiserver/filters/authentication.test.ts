import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { RequestContext } from '../context.js';
import { ANONYMOUS, withAuthenticatedGroup, withAuthentication } from './authentication.js';

describe('authentication filter', () => {
  it('adds system:authenticated last, as upstream AuthenticatedGroupAdder', () => {
    assert.deepEqual(withAuthenticatedGroup({ name: 'jane', groups: ['dev'] }).groups, ['dev', 'system:authenticated']);
    const already = { name: 'jane', groups: ['system:authenticated', 'dev'] };
    assert.equal(withAuthenticatedGroup(already), already);
  });

  it('leaves system:anonymous and members of system:unauthenticated as they are', () => {
    assert.deepEqual(withAuthenticatedGroup({ name: 'system:anonymous', groups: ['qa'] }).groups, ['qa']);
    assert.deepEqual(withAuthenticatedGroup({ name: 'guest', groups: ['system:unauthenticated'] }).groups, [
      'system:unauthenticated',
    ]);
  });

  it('gives the request the user of the first authenticator that knows it, or the anonymous user', async () => {
    const seen: RequestContext['user'][] = [];
    const run = async (name?: string) => {
      const ctx = {} as RequestContext;
      await withAuthentication([() => undefined, () => (name ? { name, groups: [] } : undefined)])(async (c) => {
        seen.push(c.user);
      })(ctx);
    };
    await run('jane');
    await run('system:anonymous');
    await run();
    assert.deepEqual(seen, [
      { name: 'jane', groups: ['system:authenticated'] },
      { name: 'system:anonymous', groups: [] },
      ANONYMOUS,
    ]);
  });
});
