import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { usernamePrefixOf } from './authenticator.js';

describe('OIDC username prefix', () => {
  const issuerURL = 'https://issuer.example';
  it("defaults to '<issuer>#' except for the email claim, takes an explicit prefix, and '-' means none", () => {
    assert.equal(usernamePrefixOf({ issuerURL }), 'https://issuer.example#');
    assert.equal(usernamePrefixOf({ issuerURL, usernameClaim: 'sub' }), 'https://issuer.example#');
    assert.equal(usernamePrefixOf({ issuerURL, usernameClaim: 'email' }), '');
    assert.equal(usernamePrefixOf({ issuerURL, usernamePrefix: 'oidc:' }), 'oidc:');
    assert.equal(usernamePrefixOf({ issuerURL, usernameClaim: 'email', usernamePrefix: 'corp:' }), 'corp:');
    assert.equal(usernamePrefixOf({ issuerURL, usernamePrefix: '-' }), '');
  });
});
