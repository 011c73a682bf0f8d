/**
 * networking.k8s.io/v1 ServiceCIDRs (with status) and IPAddresses: the ranges Service cluster IPs come from and
 * the addresses allocated out of them. kubernetesServiceCIDR() builds the default `kubernetes` ServiceCIDR from
 * --service-cluster-ip-range, as upstream's bootstrap controller creates it.
 */
import { type FieldError, invalid, path, required } from '../../../api/field-errors.js';
import { GoValue } from '../../../api/validation/go-format.js';
import { canonicalCIDR, isIPv4, isValidCIDR, isValidIP, parseIP } from '../../../api/validation/ip.js';
import { isValidPathSegmentName, type NameValidator } from '../../../api/validation/name-validators.js';
import { isDNS1123Subdomain } from '../../../api/validation/names.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';
import { list, rec, str, unset } from './groups-fields.js';
import { goStrings, goStruct } from './groups-go-format.js';
import { withStatusValidation } from './groups-status.js';
import { immutable } from './groups-validation.js';

export const DEFAULT_SERVICE_CIDR_NAME = 'kubernetes';

/**
 * The default ServiceCIDR for a --service-cluster-ip-range value (one range, or two of different families
 * separated by a comma), to be created through the normal create path at startup.
 */
export function kubernetesServiceCIDR(serviceClusterIPRange: string): KubeObject {
  const cidrs = serviceClusterIPRange
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '')
    .map((c) => {
      const canonical = canonicalCIDR(c);
      if (canonical === undefined) throw new Error(`invalid CIDR address: ${c}`);
      return canonical;
    });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: { name: DEFAULT_SERVICE_CIDR_NAME },
    spec: { cidrs },
  };
}

function validateServiceCIDR(obj: KubeObject): FieldError[] {
  const at = path('spec', 'cidrs');
  const cidrs = list(rec(obj.spec).cidrs).map(str);
  if (cidrs.length === 0) return [required(at, 'at least one CIDR required')];
  const shown = goStruct('networking.ServiceCIDRSpec', [['CIDRs', goStrings(rec(obj.spec).cidrs)]]);
  if (cidrs.length > 2) return [invalid(at, shown, 'may only hold up to 2 values')];
  if (cidrs.length === 2) {
    const families = cidrs.map((c) => {
      const ip = parseIP(c.split('/')[0] ?? '');
      return ip && (isIPv4(ip) ? 'IPv4' : 'IPv6');
    });
    if (families.includes(undefined) || families[0] === families[1]) {
      return [
        invalid(at, shown, 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'),
      ];
    }
  }
  return cidrs.flatMap((c, i) => isValidCIDR(at.index(i), c));
}

export const servicecidrs: Builtin = withStatusValidation(
  builtin({
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'servicecidrs',
    hasStatus: true,
    strategy: {
      tracksGeneration: false,
      prepareForCreate(obj) {
        obj.status = {};
      },
      validate: validateServiceCIDR,
      validateUpdate: (obj, old) => {
        const next = rec(obj.spec).cidrs;
        return immutable(path('spec', 'cidrs'), next, rec(old.spec).cidrs, new GoValue(goStrings(next)));
      },
    },
    printer: {
      columns: [nameColumn, column('CIDRs', 'The ranges Service IPs are allocated from.'), ageColumn],
      cells: (o, now) => [
        o.metadata.name,
        list(rec(o.spec).cidrs).map(str).join(','),
        age(o.metadata.creationTimestamp, now),
      ],
    },
  }),
  () => [],
);

/** IPAddress names are IP addresses in canonical form. */
export const nameIsIPAddress: NameValidator = (name) => isValidIP(path('metadata', 'name'), name).map((e) => e.detail);

function validateParentRef(obj: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  if (unset(spec.parentRef)) return [required(path('spec', 'parentRef'))];
  const ref = rec(spec.parentRef);
  const at = path('spec', 'parentRef');
  const errs: FieldError[] = [];
  const group = str(ref.group);
  if (group) for (const msg of isDNS1123Subdomain(group)) errs.push(invalid(at.child('group'), group, msg));
  for (const key of ['resource', 'name']) {
    const value = str(ref[key]);
    if (value === '') errs.push(required(at.child(key)));
    else for (const msg of isValidPathSegmentName(value)) errs.push(invalid(at.child(key), value, msg));
  }
  const namespace = str(ref.namespace);
  if (namespace)
    for (const msg of isValidPathSegmentName(namespace)) errs.push(invalid(at.child('namespace'), namespace, msg));
  return errs;
}

function parentRefShown(ref: unknown) {
  if (unset(ref)) return null;
  const r = rec(ref);
  return goStruct(
    'networking.ParentReference',
    ['Group', 'Resource', 'Namespace', 'Name'].map((k) => [k, JSON.stringify(str(r[k.toLowerCase()]))]),
  );
}

/** `group.resource/namespace/name` in lower case, `<none>` without a parent. */
function parentRefCell(o: KubeObject): string {
  const spec = rec(o.spec);
  if (unset(spec.parentRef)) return '<none>';
  const ref = rec(spec.parentRef);
  const group = str(ref.group);
  const resource = str(ref.resource);
  let text = (group ? `${resource}.${group}` : resource).toLowerCase();
  if (str(ref.namespace)) text += `/${str(ref.namespace)}`;
  return `${text}/${str(ref.name)}`;
}

export const ipaddresses: Builtin = builtin({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ipaddresses',
  nameValidator: nameIsIPAddress,
  strategy: {
    tracksGeneration: false,
    validate: validateParentRef,
    validateUpdate(obj, old) {
      const next = rec(obj.spec).parentRef;
      return immutable(path('spec', 'parentRef'), next, rec(old.spec).parentRef, parentRefShown(next));
    },
  },
  printer: {
    columns: [nameColumn, column('ParentRef', 'The object the address is allocated to.')],
    cells: (o) => [o.metadata.name, parentRefCell(o)],
  },
});
