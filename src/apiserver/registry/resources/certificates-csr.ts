/**
 * certificates.k8s.io/v1 CertificateSigningRequests (upstream's pkg/registry/certificates/certificates): the
 * requester's identity (spec.username, uid, groups, extra) is filled from the request's user and cannot be set or
 * changed; a new CSR has an empty status. The main resource changes metadata only; /status changes the status but
 * not the Approved/Denied conditions (a signer writes status.certificate or a Failed condition there); /approval
 * changes only status.conditions (what `kubectl certificate approve|deny` PUT). Condition timestamps are filled in
 * as upstream does. `kubectl get csr` prints NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION.
 */
import {
  CONDITION_APPROVED,
  CONDITION_DENIED,
  CONDITION_FAILED,
  type CsrCondition,
  type CsrObject,
  csrConditions,
  decodeBytesField,
  loadCsrParser,
} from '../../../api/certificates/csr.js';
import { statusErrors } from '../../../api/status-error.js';
import { validatePathSegmentName } from '../../../api/validation/name-validators.js';
import type { UserInfo } from '../../context.js';
import { age, humanDuration } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import { isObject, type KubeObject, nowTimestamp } from '../object.js';
import type { StatusStrategy } from '../resource.js';
import { validateCsr, validateCsrUpdate } from './certificates-csr-validation.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';

function specOf(obj: KubeObject): Record<string, unknown> {
  if (!isObject(obj.spec)) obj.spec = {};
  return obj.spec as Record<string, unknown>;
}

function statusOf(obj: KubeObject): Record<string, unknown> {
  if (!isObject(obj.status)) obj.status = {};
  return obj.status as Record<string, unknown>;
}

/** Upstream's PrepareForCreate: the requester is whoever creates the CSR; nothing in status may be preset. */
function prepareForCreate(obj: KubeObject, user: UserInfo | undefined): void {
  const spec = specOf(obj);
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  if (user) {
    if (user.name) spec.username = user.name;
    if (user.uid) spec.uid = user.uid;
    if (user.groups.length > 0) spec.groups = [...user.groups];
    if (user.extra && Object.keys(user.extra).length > 0) {
      spec.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
    }
  }
  obj.status = {};
}

/**
 * Upstream's populateConditionTimestamps: a condition without lastUpdateTime gets now; without lastTransitionTime,
 * the time of an old condition of the same type and status, else now.
 */
function populateConditionTimestamps(next: KubeObject, old: KubeObject): void {
  const now = nowTimestamp();
  const before = csrConditions(old as CsrObject);
  for (const c of csrConditions(next as CsrObject)) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const same = before.find((o) => o.type === c.type && o.status === c.status && o.lastTransitionTime);
      c.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
  }
}

/** Keeps old's instances of a condition type in next, when next has as many of them (upstream's preserveConditionInstances). */
function preserveConditionInstances(next: KubeObject, old: KubeObject, type: string): void {
  const oldList = csrConditions(old as CsrObject);
  const nextList = csrConditions(next as CsrObject);
  const oldIdx = oldList.flatMap((c, i) => (c.type === type ? [i] : []));
  const nextIdx = nextList.flatMap((c, i) => (c.type === type ? [i] : []));
  if (oldIdx.length !== nextIdx.length) return;
  const conditions = (next.status as { conditions: CsrCondition[] }).conditions;
  nextIdx.forEach((ni, k) => {
    conditions[ni] = structuredClone(oldList[oldIdx[k] as number] as CsrCondition);
  });
}

/** /status: the status may change but not the spec, and Approved/Denied stay as they were. */
const csrStatusStrategy: StatusStrategy = {
  prepareForUpdate(obj, old) {
    obj.spec = structuredClone(old.spec);
    if (Array.isArray(statusOf(obj).conditions)) {
      preserveConditionInstances(obj, old, CONDITION_APPROVED);
      preserveConditionInstances(obj, old, CONDITION_DENIED);
    }
    populateConditionTimestamps(obj, old);
  },
  validateUpdate: (obj, old) => validateCsrUpdate(obj, old, 'status'),
};

/** /approval: only status.conditions change. */
const csrApprovalStrategy: StatusStrategy = {
  prepareForUpdate(obj, old) {
    populateConditionTimestamps(obj, old);
    const conditions = isObject(obj.status) ? obj.status.conditions : undefined;
    obj.spec = structuredClone(old.spec);
    const status: Record<string, unknown> = isObject(old.status) ? structuredClone(old.status) : {};
    if (conditions === undefined) delete status.conditions;
    else status.conditions = conditions;
    obj.status = status;
  },
  validateUpdate: (obj, old) => validateCsrUpdate(obj, old, 'approval'),
};

/** Upstream's extractCSRStatus: Denied, Approved or Pending, then Failed and Issued. */
export function csrConditionText(csr: CsrObject): string {
  let approved = false;
  let denied = false;
  let failed = false;
  for (const c of csrConditions(csr)) {
    if (c.type === CONDITION_APPROVED) approved = true;
    else if (c.type === CONDITION_DENIED) denied = true;
    else if (c.type === CONDITION_FAILED) failed = true;
  }
  let text = denied ? 'Denied' : approved ? 'Approved' : 'Pending';
  if (failed) text += ',Failed';
  const cert = decodeBytesField(csr.status?.certificate);
  if ('bytes' in cert && cert.bytes.length > 0) text += ',Issued';
  return text;
}

/** Refuses a request whose spec.request is not base64, as decoding a []byte field does upstream. */
function checkRequestEncoding(obj: KubeObject): void {
  const spec = isObject(obj.spec) ? obj.spec : {};
  for (const value of [spec.request, isObject(obj.status) ? obj.status.certificate : undefined]) {
    const decoded = decodeBytesField(value);
    if ('error' in decoded) {
      throw statusErrors.badRequest(
        `CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: ${decoded.error}`,
      );
    }
  }
}

const parserReady = async () => {
  await loadCsrParser();
  return () => {};
};

export const certificatesigningrequests: Builtin = builtin({
  group: 'certificates.k8s.io',
  version: 'v1',
  resource: 'certificatesigningrequests',
  hasStatus: true,
  nameValidator: validatePathSegmentName,
  strategy: {
    tracksGeneration: false,
    default: checkRequestEncoding,
    prepareForCreate,
    prepareForUpdate(obj, old) {
      obj.spec = structuredClone(old.spec);
    },
    // The request is read with the X.509 reader, which loads on first use.
    beginCreate: parserReady,
    beginUpdate: parserReady,
    validate: (obj) => validateCsr(obj),
    validateUpdate: (obj, old) => validateCsrUpdate(obj, old, 'main'),
    selectableFields: {
      'spec.signerName': (obj) =>
        isObject(obj.spec) && typeof obj.spec.signerName === 'string' ? obj.spec.signerName : '',
    },
  },
  printer: {
    columns: [
      nameColumn,
      ageColumn,
      column('SignerName', 'The name of the signer the request is for.'),
      column('Requestor', 'The user who made the request.'),
      column('RequestedDuration', 'The validity the requester asked for.'),
      column('Condition', 'Whether the request was approved, denied, failed or issued.'),
    ],
    cells: (o, now) => {
      const spec = isObject(o.spec) ? o.spec : {};
      const signer = typeof spec.signerName === 'string' && spec.signerName !== '' ? spec.signerName : '<none>';
      const seconds = spec.expirationSeconds;
      return [
        o.metadata.name,
        age(o.metadata.creationTimestamp, now),
        signer,
        typeof spec.username === 'string' ? spec.username : '',
        typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>',
        csrConditionText(o as CsrObject),
      ];
    },
  },
});
certificatesigningrequests.def.status = csrStatusStrategy;
certificatesigningrequests.def.approval = csrApprovalStrategy;
