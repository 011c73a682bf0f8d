import { describe, it } from 'node:test';
import { PlainTextStatusError, StatusError } from '../../api/status-error.js';
import assert from '../../testing/assert.js';
import type { RequestContext } from '../context.js';
import { parseRequestInfo } from '../request-info.js';
import type { Authorizer } from './authorization.js';
import { withImpersonation } from './impersonation.js';

/** A request with these header lines (an array is a header repeated), as Node shows them: joined, and raw. */
function ctxFor(lines: Record<string, string | string[]>): RequestContext {
  const url = new URL('https://apiserver/api/v1/namespaces/default/pods');
  const headers: Record<string, string> = {};
  const rawHeaders: string[] = [];
  for (const [name, value] of Object.entries(lines)) {
    const values = Array.isArray(value) ? value : [value];
    headers[name.toLowerCase()] = values.join(', ');
    for (const v of values) rawHeaders.push(name, v);
  }
  return {
    req: { headers, rawHeaders, url: `${url.pathname}?limit=500` } as unknown as RequestContext['req'],
    res: {} as RequestContext['res'],
    method: 'GET',
    url,
    info: parseRequestInfo('GET', url.pathname, url.searchParams),
    user: { name: 'bob', groups: ['dev', 'system:authenticated'] },
    auditId: 'a',
    startedAt: 0,
    longRunning: false,
    auditAnnotations: {},
  };
}

async function run(authorizer: Authorizer, headers: Record<string, string | string[]>) {
  const asked: string[] = [];
  const recording: Authorizer = (ctx) => {
    const i = ctx.info;
    asked.push(
      `${i.verb} ${i.apiGroup}/${i.resource}${i.subresource ? `/${i.subresource}` : ''} ${i.namespace}/${i.name}`,
    );
    return authorizer(ctx);
  };
  const ctx = ctxFor(headers);
  let seen: RequestContext['user'];
  await withImpersonation([recording])(async (c) => {
    seen = c.user;
  })(ctx);
  return { asked, user: seen };
}

const allowAll: Authorizer = () => 'allow';
const denyAll: Authorizer = () => 'deny';

describe('impersonation filter', () => {
  it('asks the impersonate verb for the user, each group, each extra value and the uid', async () => {
    const { asked, user } = await run(allowAll, {
      'Impersonate-User': 'jane',
      'Impersonate-Group': ['qa', 'ops'],
      'Impersonate-Extra-Scopes': 'view',
      'Impersonate-Uid': 'u-1',
    });
    assert.deepEqual(asked, [
      'impersonate /users /jane',
      'impersonate /groups /qa',
      'impersonate /groups /ops',
      'impersonate authentication.k8s.io/userextras/scopes /view',
      'impersonate authentication.k8s.io/uids /u-1',
    ]);
    assert.deepEqual(user, {
      name: 'jane',
      uid: 'u-1',
      groups: ['qa', 'ops', 'system:authenticated'],
      extra: { scopes: ['view'] },
    });
  });

  it('takes each header line as one value, commas and all, and asks about each', async () => {
    const { asked, user } = await run(allowAll, {
      'Impersonate-User': 'jane',
      'Impersonate-Group': ['a,b', 'c'],
      'Impersonate-Extra-Scopes': ['view,edit', 'admin'],
      'impersonate-extra-SCOPES': 'own',
    });
    assert.deepEqual(asked, [
      'impersonate /users /jane',
      'impersonate /groups /a,b',
      'impersonate /groups /c',
      'impersonate authentication.k8s.io/userextras/scopes /view,edit',
      'impersonate authentication.k8s.io/userextras/scopes /admin',
      'impersonate authentication.k8s.io/userextras/scopes /own',
    ]);
    assert.deepEqual(user, {
      name: 'jane',
      groups: ['a,b', 'c', 'system:authenticated'],
      extra: { scopes: ['view,edit', 'admin', 'own'] },
    });
  });

  it('takes the first line of a repeated Impersonate-User or Impersonate-Uid', async () => {
    const { user } = await run(allowAll, { 'Impersonate-User': ['jane', 'joe'], 'Impersonate-Uid': ['u-1', 'u-2'] });
    assert.deepEqual(user, { name: 'jane', uid: 'u-1', groups: ['system:authenticated'] });
  });

  it('unescapes an extra key after lower-casing it, as upstream: an escaped upper-case letter stays', async () => {
    const { asked, user } = await run(allowAll, {
      'impersonate-user': 'jane',
      'impersonate-extra-acme.com%2fteam%41': 'blue',
    });
    assert.deepEqual(asked, [
      'impersonate /users /jane',
      'impersonate authentication.k8s.io/userextras/acme.com/teamA /blue',
    ]);
    assert.deepEqual(user?.extra, { 'acme.com/teamA': ['blue'] });
  });

  it('asks about serviceaccounts in their namespace for a ServiceAccount user', async () => {
    const { asked } = await run(allowAll, { 'impersonate-user': 'system:serviceaccount:ci:builder' });
    assert.deepEqual(asked, ['impersonate /serviceaccounts ci/builder']);
  });

  it('adds system:unauthenticated to an impersonated system:anonymous', async () => {
    const { user } = await run(allowAll, { 'impersonate-user': 'system:anonymous' });
    assert.deepEqual(user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('passes requests without impersonation headers through as they are', async () => {
    const { asked, user } = await run(denyAll, {});
    assert.deepEqual(asked, []);
    assert.equal(user?.name, 'bob');
  });

  it('refuses with upstream Forbidden text when the authorizer denies', async () => {
    await assert.rejects(run(denyAll, { 'impersonate-user': 'jane' }), (err) => {
      assert.ok(err instanceof StatusError, 'a StatusError');
      assert.equal(err.code, 403);
      assert.equal(
        err.message,
        'users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
      );
      return true;
    });
    await assert.rejects(run(denyAll, { 'impersonate-user': 'system:serviceaccount:ci:builder' }), (err) => {
      assert.ok(err instanceof StatusError, 'a StatusError');
      assert.equal(
        err.message,
        'serviceaccounts "builder" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ci"',
      );
      return true;
    });
  });

  it('answers groups, extras or a uid without a user with upstream plain-text 500 naming the request', async () => {
    await assert.rejects(
      run(allowAll, { 'Impersonate-Group': 'g1', 'Impersonate-Extra-Scopes': 'a&b', 'Impersonate-Uid': 'u-1' }),
      (err) => {
        assert.ok(err instanceof PlainTextStatusError, 'plain text, not a Status');
        assert.equal(err.code, 500);
        assert.equal(
          err.message,
          'Internal Server Error: "/api/v1/namespaces/default/pods?limit=500": requested [{Group  g1    } ' +
            '{UserExtra  a&amp;b  authentication.k8s.io/v1  scopes} {UID  u-1  authentication.k8s.io/v1  }] ' +
            'without impersonating a user',
        );
        return true;
      },
    );
  });
});
