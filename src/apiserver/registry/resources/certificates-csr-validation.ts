/**
 * Upstream's validation of CertificateSigningRequests (pkg/apis/certificates/validation): the request must be a
 * PEM CSR whose signature verifies, usages known and not repeated, a well-formed signerName (legacy-unknown is
 * refused through v1), expirationSeconds of at least 600, condition rules (Approved and Denied exclusive, True-only
 * types, no duplicates), status.certificate PEM CERTIFICATE blocks only; on update, conditions are never removed,
 * Approved/Denied change only through /approval and the certificate only through /status, and once set it stays.
 * Bad data already stored is tolerated as upstream tolerates it (compatibility options from the old object).
 */
import { X509Certificate } from 'node:crypto';
import {
  ALL_KEY_USAGES,
  CONDITION_APPROVED,
  CONDITION_DENIED,
  CONDITION_FAILED,
  type CsrCondition,
  type CsrObject,
  csrConditions,
  csrUsages,
  decodeBytesField,
  LEGACY_UNKNOWN_SIGNER,
  parseCertificateRequest,
} from '../../../api/certificates/csr.js';
import { decodeAllPem } from '../../../api/certificates/pem.js';
import {
  duplicate,
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  notSupported,
  path,
  required,
  tooLong,
} from '../../../api/field-errors.js';
import { GoValue } from '../../../api/validation/go-format.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../api/validation/names.js';
import { jsonEqual, type KubeObject } from '../object.js';

/** Which changes an update path may make, and what bad stored data it tolerates (upstream's options). */
export interface CsrValidationOptions {
  allowSettingApprovalConditions?: boolean;
  allowSettingCertificate?: boolean;
  allowBothApprovedAndDenied?: boolean;
  allowLegacySignerName?: boolean;
  allowDuplicateConditionTypes?: boolean;
  allowEmptyConditionType?: boolean;
  allowArbitraryCertificate?: boolean;
  allowUnknownUsages?: boolean;
  allowDuplicateUsages?: boolean;
}

const TRUE_ONLY_TYPES = new Set([CONDITION_APPROVED, CONDITION_DENIED, CONDITION_FAILED]);
const ALL_STATUSES = ['False', 'True', 'Unknown'];
const SORTED_USAGES = [...ALL_KEY_USAGES].sort();

/** A []byte value as Go's %#v prints it in a field error. */
function goBytes(bytes: Buffer): GoValue {
  return new GoValue(`[]byte{${[...bytes].map((b) => `0x${b.toString(16)}`).join(', ')}}`);
}

function bytesOf(value: unknown): Buffer {
  const decoded = decodeBytesField(value);
  return 'bytes' in decoded ? decoded.bytes : Buffer.alloc(0);
}

/** Upstream's ValidateSignerName. */
export function validateSignerName(fieldPath: FieldPath, signerName: string): FieldError[] {
  if (signerName === '') return [required(fieldPath)];
  const segments = signerName.split('/');
  if (segments.length !== 2) {
    return [
      invalid(fieldPath, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'"),
    ];
  }
  const [domain = '', rest = ''] = segments;
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(tooLong(fieldPath, 253));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const problems = isDNS1123Label(label);
    if (problems.length > 0) {
      for (const p of problems) errs.push(invalid(fieldPath, domain, `validating label "${label}": ${p}`));
      break;
    }
  }
  if (domainLabels.length < 2) {
    errs.push(invalid(fieldPath, domain, 'should be a domain with at least two segments separated by dots'));
  }
  for (const label of rest.split('.')) {
    const problems = isDNS1123Subdomain(label);
    if (problems.length > 0) {
      for (const p of problems) errs.push(invalid(fieldPath, rest, `validating label "${label}": ${p}`));
      break;
    }
  }
  const max = 253 + (253 + 63 + 1) + 1;
  if (signerName.length > max) errs.push(tooLong(fieldPath, max));
  return errs;
}

/** Upstream's validateCertificate: status.certificate holds CERTIFICATE PEM blocks only (or nothing). */
export function certificateContentError(pemBytes: Buffer): string | undefined {
  if (pemBytes.length === 0) return undefined;
  const blocks = decodeAllPem(pemBytes.toString('latin1'));
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${block.type}"`;
    if (block.hasHeaders) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(block.der);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  return undefined;
}

function validateRequest(csr: CsrObject): FieldError[] {
  const p = path('spec', 'request');
  const decoded = decodeBytesField(csr.spec?.request);
  if ('error' in decoded) return [invalid(p, csr.spec?.request, decoded.error)];
  try {
    const req = parseCertificateRequest(decoded.bytes);
    if (!req.signatureValid) return [invalid(p, goBytes(decoded.bytes), req.signatureError)];
  } catch (err) {
    return [invalid(p, goBytes(decoded.bytes), (err as Error).message)];
  }
  return [];
}

function validateConditions(csr: CsrObject, opts: CsrValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const base = path('status', 'conditions');
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  csrConditions(csr).forEach((c, i) => {
    const type = c.type ?? '';
    if (!opts.allowEmptyConditionType && type === '') errs.push(required(base.index(i).child('type')));
    const allowed = TRUE_ONLY_TYPES.has(type) ? ['True'] : ALL_STATUSES;
    const status = c.status ?? '';
    if (status === '') errs.push(required(base.index(i).child('status')));
    else if (!allowed.includes(status)) errs.push(notSupported(base.index(i).child('status'), status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      const exclusive = 'Approved and Denied conditions are mutually exclusive';
      if (type === CONDITION_APPROVED) {
        approved = true;
        if (denied) errs.push(invalid(base.index(i).child('type'), type, exclusive));
      } else if (type === CONDITION_DENIED) {
        denied = true;
        if (approved) errs.push(invalid(base.index(i).child('type'), type, exclusive));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(duplicate(base.index(i).child('type'), type));
      seen.add(type);
    }
  });
  return errs;
}

/** Upstream's validateCertificateSigningRequest (metadata aside: the registry checks it). */
export function validateCsr(obj: KubeObject, opts: CsrValidationOptions = {}): FieldError[] {
  const csr = obj as CsrObject;
  const spec = path('spec');
  const errs = validateRequest(csr);
  const usages = csrUsages(csr);
  if (usages.length === 0) errs.push(required(spec.child('usages')));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!ALL_KEY_USAGES.includes(u)) errs.push(notSupported(spec.child('usages').index(i), u, SORTED_USAGES));
    });
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(duplicate(spec.child('usages').index(i), u));
      seen.add(u);
    });
  }
  const signerName = typeof csr.spec?.signerName === 'string' ? csr.spec.signerName : '';
  if (!opts.allowLegacySignerName && signerName === LEGACY_UNKNOWN_SIGNER) {
    errs.push(
      invalid(spec.child('signerName'), signerName, 'the legacy signerName is not allowed via this API version'),
    );
  } else {
    errs.push(...validateSignerName(spec.child('signerName'), signerName));
  }
  const expiration = csr.spec?.expirationSeconds;
  if (typeof expiration === 'number' && expiration < 600) {
    errs.push(
      invalid(
        spec.child('expirationSeconds'),
        expiration,
        'may not specify a duration less than 600 seconds (10 minutes)',
      ),
    );
  }
  errs.push(...validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const problem = certificateContentError(bytesOf(csr.status?.certificate));
    if (problem) errs.push(invalid(path('status', 'certificate'), '<certificate data>', problem));
  }
  return errs;
}

function conditionsOfType(csr: CsrObject, type: string): CsrCondition[] {
  return csrConditions(csr).filter((c) => (c.type ?? '') === type);
}

/** Upstream's getValidationOptions: what bad data of the stored object an update may keep. */
function compatibilityOptions(next: CsrObject, old: CsrObject): CsrValidationOptions {
  const oldConditions = csrConditions(old);
  const types = oldConditions.map((c) => c.type ?? '');
  const oldUsages = csrUsages(old);
  const oldCert = bytesOf(old.status?.certificate);
  return {
    allowBothApprovedAndDenied: types.includes(CONDITION_APPROVED) && types.includes(CONDITION_DENIED),
    allowLegacySignerName: old.spec?.signerName === LEGACY_UNKNOWN_SIGNER,
    allowDuplicateConditionTypes: new Set(types).size !== types.length,
    allowEmptyConditionType: types.includes(''),
    allowArbitraryCertificate:
      bytesOf(next.status?.certificate).equals(oldCert) || certificateContentError(oldCert) !== undefined,
    allowUnknownUsages: oldUsages.some((u) => !ALL_KEY_USAGES.includes(u)),
    allowDuplicateUsages: new Set(oldUsages).size !== oldUsages.length,
  };
}

/** Which update path is validated: the object itself, /status (the certificate) or /approval (the conditions). */
export type CsrUpdatePath = 'main' | 'status' | 'approval';

/** Upstream's ValidateCertificateSigningRequest{,Status,Approval}Update (metadata aside). */
export function validateCsrUpdate(obj: KubeObject, oldObj: KubeObject, via: CsrUpdatePath): FieldError[] {
  const next = obj as CsrObject;
  const old = oldObj as CsrObject;
  const opts: CsrValidationOptions = {
    ...compatibilityOptions(next, old),
    allowSettingCertificate: via === 'status',
    allowSettingApprovalConditions: via === 'approval',
  };
  const errs = validateCsr(obj, opts);
  const conditions = path('status', 'conditions');
  for (const type of [CONDITION_APPROVED, CONDITION_DENIED, CONDITION_FAILED]) {
    if (conditionsOfType(next, type).length < conditionsOfType(old, type).length) {
      errs.push(forbidden(conditions, `updates may not remove a condition of type "${type}"`));
    }
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const type of [CONDITION_APPROVED, CONDITION_DENIED]) {
      const before = conditionsOfType(old, type);
      const after = conditionsOfType(next, type);
      if (after.length > before.length) {
        errs.push(forbidden(conditions, `updates may not add a condition of type "${type}"`));
      } else if (after.length === before.length && !jsonEqual(before, after)) {
        errs.push(forbidden(conditions, `updates may not modify a condition of type "${type}"`));
      }
    }
  }
  const oldCert = bytesOf(old.status?.certificate);
  if (!bytesOf(next.status?.certificate).equals(oldCert)) {
    if (!opts.allowSettingCertificate) {
      errs.push(forbidden(path('status', 'certificate'), 'updates may not set certificate content'));
    } else if (oldCert.length > 0) {
      errs.push(forbidden(path('status', 'certificate'), 'updates may not modify existing certificate content'));
    }
  }
  return errs;
}
