/**
 * apiregistration.k8s.io/v1 APIServices: which server answers one group version — Local (this apiserver: no
 * `service`) or a Service in the cluster, with the group's and version's priority in discovery. Validated as
 * kube-aggregator validates them (the name is `<version>.<group>`, priorities in range, a local one has no CA bundle
 * and does not skip TLS checks); `status.conditions` (Available) is written through /status. Printed as NAME
 * SERVICE AVAILABLE AGE. This server registers the group versions it serves itself (apiserver/apiservices.ts).
 */
import { type FieldError, invalid, notSupported, path, required } from '../../../api/field-errors.js';
import { validatePathSegmentName } from '../../../api/validation/name-validators.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../../api/validation/names.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';
import { list, num, rec, str, unset } from './groups-fields.js';
import { withStatusValidation } from './groups-status.js';

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

function validateAPIService(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(obj.spec);
  const group = str(spec.group);
  const version = str(spec.version);
  const requiredName = `${version}.${group}`;
  const name = obj.metadata.name ?? '';
  if (name !== '' && name !== requiredName) {
    errs.push(
      invalid(
        path('metadata', 'name'),
        name,
        `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`,
      ),
    );
  }
  if (group === '' && version !== 'v1') {
    errs.push(required(path('spec', 'group'), 'only v1 may have an empty group and it better be legacy kube'));
  }
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) errs.push(invalid(path('spec', 'group'), group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(invalid(path('spec', 'version'), version, msg));
  const groupPriority = num(spec.groupPriorityMinimum);
  if (groupPriority <= 0 || groupPriority > 20000) {
    errs.push(invalid(path('spec', 'groupPriorityMinimum'), groupPriority, 'must be positive and less than 20000'));
  }
  const versionPriority = num(spec.versionPriority);
  if (versionPriority <= 0 || versionPriority > 1000) {
    errs.push(invalid(path('spec', 'versionPriority'), versionPriority, 'must be positive and less than 1000'));
  }
  const caBundle = str(spec.caBundle);
  const skipTLS = spec.insecureSkipTLSVerify === true;
  if (unset(spec.service)) {
    if (caBundle !== '') {
      const bytes = Buffer.from(caBundle, 'base64').length;
      errs.push(invalid(path('spec', 'caBundle'), `${bytes} bytes`, 'local APIServices may not have a caBundle'));
    }
    if (skipTLS) {
      errs.push(
        invalid(path('spec', 'insecureSkipTLSVerify'), true, 'local APIServices may not have insecureSkipTLSVerify'),
      );
    }
    return errs;
  }
  const service = rec(spec.service);
  if (str(service.namespace) === '') errs.push(required(path('spec', 'service', 'namespace')));
  if (str(service.name) === '') errs.push(required(path('spec', 'service', 'name')));
  const port = num(service.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    errs.push(
      invalid(path('spec', 'service', 'port'), port, 'port is not valid: must be between 1 and 65535, inclusive'),
    );
  }
  if (skipTLS && caBundle !== '') {
    errs.push(invalid(path('spec', 'insecureSkipTLSVerify'), true, 'may not be true if caBundle is present'));
  }
  return errs;
}

function validateStatus(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  list(rec(obj.status).conditions).forEach((c, i) => {
    const status = str(rec(c).status);
    if (!CONDITION_STATUSES.includes(status)) {
      errs.push(notSupported(path('status', 'conditions').index(i).child('status'), status, CONDITION_STATUSES));
    }
  });
  return errs;
}

/** The Available column: True, or the condition's status with its reason; Unknown without one. */
function availability(obj: KubeObject): string {
  const condition = list(rec(obj.status).conditions)
    .map(rec)
    .find((c) => c.type === 'Available');
  if (!condition) return 'Unknown';
  const status = str(condition.status);
  const reason = str(condition.reason);
  return status === 'True' || reason === '' ? status : `${status} (${reason})`;
}

export const apiservices: Builtin = withStatusValidation(
  builtin({
    group: 'apiregistration.k8s.io',
    version: 'v1',
    resource: 'apiservices',
    hasStatus: true,
    nameValidator: validatePathSegmentName,
    strategy: {
      default(obj) {
        const service = rec(obj.spec).service;
        if (service && typeof service === 'object' && unset(rec(service).port)) rec(service).port = 443;
      },
      validate: validateAPIService,
    },
    printer: {
      columns: [
        nameColumn,
        column('Service', 'The reference to the service that hosts this API endpoint.'),
        column('Available', 'Whether this service is available.'),
        ageColumn,
      ],
      cells: (o, now) => {
        const service = rec(o.spec).service;
        const where = unset(service) ? 'Local' : `${str(rec(service).namespace)}/${str(rec(service).name)}`;
        return [o.metadata.name, where, availability(o), age(o.metadata.creationTimestamp, now)];
      },
    },
  }),
  validateStatus,
);
