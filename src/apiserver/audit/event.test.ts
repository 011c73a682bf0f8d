import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { HttpRequest } from '../context.js';
import { sourceIPs, truncatedUserAgent } from './event.js';

function request(remoteAddress: string | undefined, headers: [string, string][]): HttpRequest {
  const joined: Record<string, string> = {};
  for (const [k, v] of headers) {
    const key = k.toLowerCase();
    joined[key] = joined[key] === undefined ? v : `${joined[key]}, ${v}`;
  }
  return { headers: joined, rawHeaders: headers.flat(), socket: { remoteAddress } } as unknown as HttpRequest;
}

describe('audit event: sourceIPs as upstream’s utilnet.SourceIPs', () => {
  it('keeps the X-Forwarded-For entries that parse as addresses, in order, repeats included', () => {
    const req = request('10.0.0.9', [['X-Forwarded-For', '1.2.3.4, not-an-ip, 1.2.3.4:80, 2001:DB8::1, 1.2.3.4']]);
    assert.deepEqual(sourceIPs(req), ['1.2.3.4', '2001:db8::1', '1.2.3.4', '10.0.0.9']);
  });

  it('reads the first X-Forwarded-For header only, as Go’s Header.Get', () => {
    const req = request('10.0.0.9', [
      ['X-Forwarded-For', '1.1.1.1'],
      ['X-Forwarded-For', '2.2.2.2'],
    ]);
    assert.deepEqual(sourceIPs(req), ['1.1.1.1', '10.0.0.9']);
  });

  it('adds X-Real-Ip unless the chain has it, and only when it parses', () => {
    assert.deepEqual(sourceIPs(request('10.0.0.9', [['X-Real-Ip', '3.3.3.3']])), ['3.3.3.3', '10.0.0.9']);
    assert.deepEqual(
      sourceIPs(
        request('10.0.0.9', [
          ['X-Forwarded-For', '3.3.3.3, 4.4.4.4'],
          ['X-Real-Ip', '3.3.3.3'],
        ]),
      ),
      ['3.3.3.3', '4.4.4.4', '10.0.0.9'],
    );
    assert.deepEqual(sourceIPs(request('10.0.0.9', [['X-Real-Ip', 'proxy']])), ['10.0.0.9']);
  });

  it('adds the peer unless it is the chain’s last address (an earlier one does not count), dotted when mapped', () => {
    assert.deepEqual(sourceIPs(request('::ffff:127.0.0.1', [['X-Forwarded-For', '127.0.0.1']])), ['127.0.0.1']);
    assert.deepEqual(sourceIPs(request('127.0.0.1', [['X-Forwarded-For', '127.0.0.1, 5.5.5.5']])), [
      '127.0.0.1',
      '5.5.5.5',
      '127.0.0.1',
    ]);
    assert.deepEqual(sourceIPs(request('010.000.000.001', [])), ['10.0.0.1']);
    assert.deepEqual(sourceIPs(request(undefined, [])), []);
  });
});

describe('audit event: userAgent', () => {
  it('is cut at 1024 bytes with ...TRUNCATED appended, and left alone up to that', () => {
    assert.equal(truncatedUserAgent('k'.repeat(1024)), 'k'.repeat(1024));
    assert.equal(truncatedUserAgent('k'.repeat(1025)), `${'k'.repeat(1024)}...TRUNCATED`);
  });
});
