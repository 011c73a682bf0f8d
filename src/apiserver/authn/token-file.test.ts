import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { APIRegistry } from '../api-registry.js';
import { buildAuthentication } from './options.js';
import { loadTokenFile, parseCsv, staticTokenAuthenticator, staticTokens } from './token-file.js';

describe('static token file (--token-auth-file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tokens-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('reads CSV as Go does: quoted fields with commas and doubled quotes, blank lines skipped', () => {
    assert.deepEqual(parseCsv('a,b,"c,d"\n\n"x""y",z\r\n'), [
      ['a', 'b', 'c,d'],
      ['x"y', 'z'],
    ]);
  });

  it('maps tokens to users with uid and groups', async () => {
    const tokens = loadTokenFile(
      file('ok.csv', 'secret-1,jane,uid-1,"dev,ops"\nsecret-2,bob,uid-2\n,nobody,uid-3\nsecret-1,jane2,uid-4\n'),
    );
    const authn = staticTokenAuthenticator(tokens);
    assert.deepEqual(await authn('secret-2'), { name: 'bob', uid: 'uid-2', groups: [] });
    assert.deepEqual(await authn('secret-1'), { name: 'jane2', uid: 'uid-4', groups: [] }, 'the later duplicate wins');
    assert.equal(await authn('unknown'), undefined);
    assert.equal(await authn(''), undefined, 'empty tokens are skipped');
    const groups = staticTokenAuthenticator(loadTokenFile(file('g.csv', 'tok,jane,u1,"dev,ops"\n')));
    assert.deepEqual(await groups('tok'), { name: 'jane', uid: 'u1', groups: ['dev', 'ops'] });
  });

  it('refuses records with fewer than three columns with upstream text', () => {
    const p = file('short.csv', 'tok,jane\n');
    assert.throws(
      () => loadTokenFile(p),
      new Error(`token file '${p}' must have at least 3 columns (token, user name, user uid), found 2`),
    );
  });

  it('merges in-memory static tokens after the file: a token in both keeps the in-memory user', async () => {
    const p = file('merge.csv', 'shared,from-file,u1\nfile-only,jane,u2,"dev"\n');
    const tokens = staticTokens(p, [
      { token: 'shared', user: 'system:node:node-1', groups: ['system:nodes'] },
      { token: 'mem-only', user: 'bot', uid: 'u9' },
      { token: '', user: 'nobody' },
    ]);
    const authn = staticTokenAuthenticator(tokens);
    assert.deepEqual(await authn('shared'), { name: 'system:node:node-1', groups: ['system:nodes'] });
    assert.deepEqual(await authn('file-only'), { name: 'jane', uid: 'u2', groups: ['dev'] });
    assert.deepEqual(await authn('mem-only'), { name: 'bot', uid: 'u9', groups: [] });
    assert.equal(await authn(''), undefined);
    assert.deepEqual([...staticTokens(undefined, [{ token: 't', user: 'u' }]).keys()], ['t']);
  });

  it('AuthenticationOptions.staticTokens alone turns the static-token authenticator on', async () => {
    const registry = {} as APIRegistry;
    const none = buildAuthentication({}, registry);
    assert.equal(none.tokenAuthenticators.length, 0);
    const authn = buildAuthentication(
      { staticTokens: [{ token: 'node-1-token', user: 'system:node:node-1', groups: ['system:nodes'] }] },
      registry,
    );
    assert.equal(authn.tokenAuthenticators.length, 1);
    const [tokens] = authn.tokenAuthenticators;
    assert.deepEqual(await tokens?.('node-1-token'), { name: 'system:node:node-1', groups: ['system:nodes'] });
    assert.equal(await tokens?.('other'), undefined);
    assert.equal(authn.authenticators.length, 2, 'client certificates, then bearer tokens');
    authn.stop();
  });
});
