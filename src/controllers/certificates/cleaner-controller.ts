/**
 * kube-controller-manager's certificatesigningrequest-cleaner-controller (upstream's cleaner): every hour, and once
 * at start, it deletes the CSRs that are done with: issued and approved more than an hour ago, denied or failed
 * more than an hour ago, pending for more than a day, or holding a certificate that has expired.
 */
import { X509Certificate } from 'node:crypto';
import {
  CONDITION_APPROVED,
  CONDITION_DENIED,
  CONDITION_FAILED,
  type CsrObject,
  csrConditions,
  decodeBytesField,
} from '../../api/certificates/csr.js';
import { decodePem } from '../../api/certificates/pem.js';
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { isNotFound, type KubeObject } from '../../client/types.js';
import type { Controller, ControllerContext, ControllerDescriptor } from '../context.js';
import { CSR_RESOURCE } from './certificate-controller.js';

const HOUR = 3600_000;
export const POLLING_INTERVAL_MS = HOUR;
const APPROVED_EXPIRATION_MS = HOUR;
const DENIED_EXPIRATION_MS = HOUR;
const PENDING_EXPIRATION_MS = 24 * HOUR;

function olderThan(timestamp: string | undefined, ms: number, now: number): boolean {
  if (!timestamp) return false;
  const t = Date.parse(timestamp);
  return Number.isFinite(t) && now - t > ms;
}

function certificateOf(csr: CsrObject): Buffer {
  const decoded = decodeBytesField(csr.status?.certificate);
  return 'bytes' in decoded ? decoded.bytes : Buffer.alloc(0);
}

/** The NotAfter of the first certificate in status.certificate, or undefined when there is none that parses. */
function certificateNotAfter(csr: CsrObject): number | undefined {
  const pem = certificateOf(csr);
  if (pem.length === 0) return undefined;
  const block = decodePem(pem.toString('latin1'))?.block;
  if (!block) return undefined;
  try {
    return Date.parse(new X509Certificate(block.der).validTo);
  } catch {
    return undefined;
  }
}

/** Why the cleaner deletes the CSR now, or undefined to keep it (upstream's is*PastDeadline and isIssuedExpired). */
export function cleanupReason(csr: CsrObject, now: number): string | undefined {
  const conditions = csrConditions(csr);
  const issued = certificateOf(csr).length > 0;
  for (const c of conditions) {
    if (c.type === CONDITION_APPROVED && issued && olderThan(c.lastUpdateTime, APPROVED_EXPIRATION_MS, now)) {
      return 'issued and approved more than an hour ago';
    }
    if (c.type === CONDITION_DENIED && olderThan(c.lastUpdateTime, DENIED_EXPIRATION_MS, now)) {
      return 'denied more than an hour ago';
    }
    if (c.type === CONDITION_FAILED && olderThan(c.lastUpdateTime, DENIED_EXPIRATION_MS, now)) {
      return 'failed more than an hour ago';
    }
  }
  if (conditions.length === 0 && olderThan(csr.metadata.creationTimestamp, PENDING_EXPIRATION_MS, now)) {
    return 'pending for more than a day';
  }
  if (conditions.some((c) => c.type === CONDITION_APPROVED) && issued) {
    const notAfter = certificateNotAfter(csr);
    if (notAfter !== undefined && now > notAfter) return 'its certificate has expired';
  }
  return undefined;
}

export class CsrCleaner implements Controller {
  private readonly informer: SharedIndexInformer;
  private readonly lister: Lister;

  constructor(private readonly ctx: ControllerContext) {
    this.informer = ctx.informers.forGroupVersionResource(CSR_RESOURCE);
    this.lister = new Lister(this.informer.getIndexer());
  }

  async run(): Promise<void> {
    const { signal, logger, clock } = this.ctx;
    logger.info('Starting CSR cleaner controller');
    try {
      if (!(await waitForCacheSync(signal, this.informer))) return;
      while (!signal.aborted) {
        await this.sweep();
        await new Promise<void>((resolve) => {
          const timer = clock.after(POLLING_INTERVAL_MS, () => resolve());
          signal.addEventListener(
            'abort',
            () => {
              timer.cancel();
              resolve();
            },
            { once: true },
          );
        });
      }
    } finally {
      logger.info('Shutting down CSR cleaner controller');
    }
  }

  /** One pass over every CSR. */
  async sweep(): Promise<void> {
    const now = this.ctx.clock.now();
    const client = this.ctx.client.resource(CSR_RESOURCE);
    for (const csr of this.lister.list() as KubeObject[]) {
      const reason = cleanupReason(csr as KubeObject & CsrObject, now);
      if (!reason) continue;
      const name = csr.metadata.name ?? '';
      this.ctx.logger.info('Cleaning CSR', { csr: name, reason });
      try {
        await client.delete(name);
      } catch (err) {
        if (!isNotFound(err)) this.ctx.logger.error(`unable to delete CSR "${name}": ${String(err)}`);
      }
    }
  }
}

export const csrCleanerController: ControllerDescriptor = {
  name: 'certificatesigningrequest-cleaner-controller',
  serviceAccount: 'certificate-controller',
  create: (ctx) => new CsrCleaner(ctx),
};
