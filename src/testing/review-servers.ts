/**
 * Servers that the apiserver calls out to, for authentication and authorization tests — each an HTTPS server on a
 * free loopback port with its own CA:
 * - an OpenID Connect issuer (discovery document, JWKS, keys from jose that can be rotated) that signs ID tokens;
 * - a review webhook that answers TokenReviews or SubjectAccessReviews with a handler, keeps every review it got, and
 *   writes the kubeconfig-format file kube-apiserver's --*-webhook-config-file flags take.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { loopbackServingTLS } from './loopback-tls.js';

interface Served {
  url: string;
  caPem: string;
  close(): Promise<void>;
}

type Reply = { status: number; body: unknown };

/** An HTTPS server for 127.0.0.1 and localhost, its CA made on the spot. */
async function startLoopbackHTTPS(
  handle: (method: string, path: string, body: string) => Promise<Reply>,
): Promise<Served> {
  const { ca, serving } = await loopbackServingTLS({ caName: 'test-server-ca', name: 'test-server' });
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      handle(req.method ?? 'GET', path, Buffer.concat(chunks).toString('utf8')).then(
        ({ status, body }) => {
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        },
        (err: Error) => res.writeHead(500).end(err.message),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: ca.certPem,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface TestOIDCIssuer {
  /** The issuer URL (https://127.0.0.1:<port>), as --oidc-issuer-url takes it. */
  url: string;
  /** A file holding the issuer's CA, for --oidc-ca-file. */
  caFile: string;
  /** Signs an ID token with the issuer's current key (iss defaults to the issuer, iat to now). */
  sign(claims: JWTPayload, opts?: { kid?: string }): Promise<string>;
  /** A new signing key replaces the current one in the JWKS (the old one is dropped). */
  rotate(): Promise<void>;
  /** How many times the JWKS was fetched. */
  jwksFetches(): number;
  close(): Promise<void>;
}

export async function startOIDCIssuer(opts: { alg?: string } = {}): Promise<TestOIDCIssuer> {
  const alg = opts.alg ?? 'RS256';
  let key = await newKey(alg, 'key-1');
  let generation = 1;
  let fetches = 0;
  let url = '';
  const served = await startLoopbackHTTPS(async (method, path) => {
    if (method !== 'GET') return { status: 405, body: {} };
    if (path === '/.well-known/openid-configuration') {
      return {
        status: 200,
        body: {
          issuer: url,
          jwks_uri: `${url}/keys`,
          response_types_supported: ['id_token'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: [alg],
        },
      };
    }
    if (path === '/keys') {
      fetches++;
      return { status: 200, body: { keys: [key.jwk] } };
    }
    return { status: 404, body: {} };
  });
  url = served.url;
  const dir = mkdtempSync(join(tmpdir(), 'oidc-issuer-'));
  const caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, served.caPem);
  return {
    url,
    caFile,
    sign: (claims, signOpts = {}) =>
      new SignJWT({ iss: url, iat: Math.floor(Date.now() / 1000), ...claims })
        .setProtectedHeader({ alg, kid: signOpts.kid ?? key.kid })
        .sign(key.privateKey),
    rotate: async () => {
      generation++;
      key = await newKey(alg, `key-${generation}`);
    },
    jwksFetches: () => fetches,
    close: async () => {
      await served.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function newKey(alg: string, kid: string) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, privateKey, jwk };
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary review JSON
export type ReviewObject = any;

/** Answers a review with its status, or a raw HTTP reply. */
export type ReviewAnswer = (review: ReviewObject) => Record<string, unknown> | { raw: Reply };

export interface TestReviewWebhook {
  url: string;
  /** A kubeconfig-format file naming this server (with its CA) for --*-webhook-config-file. */
  kubeconfigFile: string;
  /** Every review received. */
  received: ReviewObject[];
  /** Sets how reviews are answered. */
  answer(handler: ReviewAnswer): void;
  close(): Promise<void>;
}

/** A TokenReview or SubjectAccessReview webhook at https://127.0.0.1:<port>/review. */
export async function startReviewWebhook(initial: ReviewAnswer): Promise<TestReviewWebhook> {
  let handler = initial;
  const received: ReviewObject[] = [];
  const served = await startLoopbackHTTPS(async (method, path, body) => {
    if (method !== 'POST' || path !== '/review') return { status: 404, body: {} };
    const review = JSON.parse(body);
    received.push(review);
    const answer = handler(review);
    if ('raw' in answer) return answer.raw as Reply;
    return { status: 200, body: { apiVersion: review.apiVersion, kind: review.kind, status: answer } };
  });
  const dir = mkdtempSync(join(tmpdir(), 'review-webhook-'));
  const kubeconfigFile = join(dir, 'webhook.kubeconfig');
  writeFileSync(
    kubeconfigFile,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: remote',
      '  cluster:',
      `    server: ${served.url}/review`,
      `    certificate-authority-data: ${Buffer.from(served.caPem).toString('base64')}`,
      'users:',
      '- name: apiserver',
      '  user:',
      '    token: apiserver-secret',
      'contexts:',
      '- name: webhook',
      '  context:',
      '    cluster: remote',
      '    user: apiserver',
      'current-context: webhook',
      '',
    ].join('\n'),
  );
  return {
    url: served.url,
    kubeconfigFile,
    received,
    answer: (h) => {
      handler = h;
    },
    close: async () => {
      await served.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
