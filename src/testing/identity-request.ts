import { createHash, X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { join } from 'node:path';
import { ensurePki, issueClientCertificate } from '../apiserver/bootstrap/pki.js';
import { buildKubeconfig, writeKubeconfig } from '../client/kubeconfig.js';
import type { ControlPlane } from '../index.js';
import { type ApiResponse, apiRequest } from './api-client.js';
import assert from './assert.js';

/** A client certificate and its key (PEM): who a request is made as. */
export interface Identity {
  cert: string;
  key: string;
}

/**
 * The user extra a client certificate gives its holder, as upstream's x509 authenticator sets it: the certificate's
 * SHA-256 fingerprint as its credential ID.
 */
export function certificateExtra(certPem: string): Record<string, string[]> {
  const der = new X509Certificate(certPem).raw;
  return {
    'authentication.kubernetes.io/credential-id': [`X509SHA256=${createHash('sha256').update(der).digest('hex')}`],
  };
}

/** A client certificate for commonName (the user) in organizations (its groups), signed by the control plane's CA. */
export async function mintIdentity(
  cp: ControlPlane,
  commonName: string,
  organizations: string[] = [],
): Promise<Identity> {
  const pki = await ensurePki(join(cp.dataDir, 'pki'));
  const pair = await issueClientCertificate(pki.ca, { commonName, organizations });
  return { cert: pair.certPem, key: pair.keyPem };
}

/** The cluster CA a control plane's admin kubeconfig trusts (PEM bytes). */
function clusterCa(cp: ControlPlane): Buffer {
  return Buffer.from(cp.kubeconfig.config.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64');
}

/**
 * One HTTPS request as the given identity, with a JSON body when one is given and any extra headers (e.g.
 * Impersonate-User); the answer's body is parsed as JSON when it is JSON.
 */
export function requestAs(
  cp: ControlPlane,
  id: Identity,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string | string[]> = {},
): Promise<ApiResponse> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, cp.url),
      {
        method,
        ca: clusterCa(cp),
        cert: id.cert,
        key: id.key,
        headers: {
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
            : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Writes a kubeconfig for the identity (named userName) against the control plane, for the real kubectl. */
export async function writeIdentityKubeconfig(
  cp: ControlPlane,
  id: Identity,
  path: string,
  userName: string,
): Promise<string> {
  await writeKubeconfig(
    path,
    buildKubeconfig({
      server: cp.url,
      caPem: clusterCa(cp).toString('utf8'),
      certPem: id.cert,
      keyPem: id.key,
      userName,
    }),
  );
  return path;
}

/** One request as the control plane's admin that must succeed (status below 300); answers the response. */
export async function adminOk(cp: ControlPlane, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  const res = await apiRequest(cp, method, path, body === undefined ? {} : { body });
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
  return res;
}
