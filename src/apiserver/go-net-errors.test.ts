import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { clientGoHttpFailure, goMethod, goNetworkError } from './go-net-errors.js';

describe("outgoing calls' failures in Go's words", () => {
  it('describes a non-2xx answer as client-go does', () => {
    const status = JSON.stringify({ kind: 'Status', message: 'quota exceeded', code: 403 });
    assert.equal(clientGoHttpFailure(403, status), 'quota exceeded');
    assert.equal(
      clientGoHttpFailure(500, '{}'),
      'an error on the server ("{}") has prevented the request from succeeding',
    );
    assert.equal(
      clientGoHttpFailure(404, 'nope'),
      'the server responded with the status code 404 but did not return more information',
    );
    assert.equal(
      clientGoHttpFailure(502, ''),
      'the server responded with the status code 502 but did not return more information',
    );
  });

  it('words dial and TLS failures as Go does', () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    const target = { host: '::1', port: 8443, servername: 'hooks.default.svc' };
    assert.equal(goNetworkError(err('ECONNREFUSED'), target), 'dial tcp [::1]:8443: connect: connection refused');
    assert.equal(
      goNetworkError(err('ERR_TLS_CERT_ALTNAME_INVALID'), target),
      'tls: failed to verify certificate: x509: certificate is not valid for hooks.default.svc',
    );
    assert.equal(goMethod('POST'), 'Post');
  });
});
