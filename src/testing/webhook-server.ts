/**
 * An admission webhook for tests: an HTTPS server on a free loopback port, with its own CA and a serving
 * certificate for 127.0.0.1, localhost and any extra DNS names (e.g. `<service>.<namespace>.svc`). Each path can
 * answer AdmissionReviews its own way; every review received is kept, so tests can look at what the apiserver sent.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { loopbackServingTLS } from './loopback-tls.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read and write arbitrary AdmissionReview JSON
export type Review = any;

/** Answers a review's request: the response fields besides uid (allowed, status, patch…), or a raw HTTP reply. */
export type ReviewHandler = (
  review: Review,
) =>
  | Record<string, unknown>
  | { raw: { status: number; body: string } }
  | 'hang'
  | Promise<Record<string, unknown> | { raw: { status: number; body: string } } | 'hang'>;

export interface WebhookServer {
  /** https://127.0.0.1:<port> */
  url: string;
  port: number;
  /** The CA's certificate, base64 PEM, as a webhook's clientConfig.caBundle takes it. */
  caBundle: string;
  /** Every review received, with the path it came to. */
  received: { path: string; review: Review }[];
  /** Sets how a path answers (default: allowed). */
  on(path: string, handler: ReviewHandler): void;
  close(): Promise<void>;
}

/** A JSONPatch for a response: the base64 form AdmissionResponse.patch carries. */
export function jsonPatch(ops: unknown[]): { patchType: 'JSONPatch'; patch: string } {
  return { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}

export async function startWebhookServer(opts: { dnsNames?: string[] } = {}): Promise<WebhookServer> {
  const { ca, serving } = await loopbackServingTLS({
    caName: 'webhook-test-ca',
    name: 'webhook',
    ...(opts.dnsNames ? { dnsNames: opts.dnsNames } : {}),
  });
  const handlers = new Map<string, ReviewHandler>();
  const received: WebhookServer['received'] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      let review: Review;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end('not JSON');
        return;
      }
      received.push({ path, review });
      const handler = handlers.get(path) ?? (() => ({ allowed: true }));
      const answer = await handler(review);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      if ('raw' in answer) {
        const raw = answer.raw as { status: number; body: string };
        res.writeHead(raw.status, { 'content-type': 'application/json' }).end(raw.body);
        return;
      }
      const body = JSON.stringify({
        apiVersion: review.apiVersion,
        kind: 'AdmissionReview',
        response: { uid: review.request?.uid, ...answer },
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    received,
    on: (path, handler) => handlers.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
