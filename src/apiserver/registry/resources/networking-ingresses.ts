/**
 * networking.k8s.io/v1 Ingresses: rules, paths, backends and TLS validated with upstream's messages, the legacy
 * ingress-class annotation checked against ingressClassName, the status subresource with load-balancer checks,
 * and the NAME CLASS HOSTS ADDRESS PORTS AGE printer.
 */
import { type FieldError, type FieldPath, invalid, notSupported, path, required } from '../../../api/field-errors.js';
import { GoValue } from '../../../api/validation/go-format.js';
import { isValidIPForLegacyField } from '../../../api/validation/ip.js';
import { nameIsDNS1035Label, nameIsDNSSubdomain } from '../../../api/validation/name-validators.js';
import { isDNS1123Subdomain, isWildcardDNS1123Subdomain } from '../../../api/validation/names.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { isValidPortName, isValidPortNum } from './core-port-validation.js';
import { column } from './groups-columns.js';
import { list, type Rec, rec, records, str, unset } from './groups-fields.js';
import { withStatusValidation } from './groups-status.js';
import { validateTypedReference } from './networking-references.js';

const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_SUFFIXES = ['/..', '/.'];

const isIPAddress = (host: string) => isValidIPForLegacyField(path('x'), host, false).length === 0;

function validateBackend(backend: Rec, at: FieldPath): FieldError[] {
  const hasResource = !unset(backend.resource);
  const hasService = !unset(backend.service);
  if (hasResource && hasService) return [invalid(at, '', 'cannot set both resource and service backends')];
  if (hasResource) return validateTypedReference(rec(backend.resource), at.child('resource'));
  if (!hasService) return [invalid(at, '', 'resource or service backend is required')];
  const service = rec(backend.service);
  const errs: FieldError[] = [];
  const name = str(service.name);
  if (name === '') errs.push(required(at.child('service', 'name')));
  else for (const msg of nameIsDNS1035Label(name, false)) errs.push(invalid(at.child('service', 'name'), name, msg));
  const port = rec(service.port);
  const portName = str(port.name);
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName && portNumber !== 0) errs.push(invalid(at, '', 'cannot set both port name & port number'));
  else if (portName)
    for (const msg of isValidPortName(portName)) errs.push(invalid(at.child('service', 'port', 'name'), portName, msg));
  else if (portNumber !== 0) {
    for (const msg of isValidPortNum(portNumber))
      errs.push(invalid(at.child('service', 'port', 'number'), portNumber, msg));
  } else errs.push(required(at, 'port name or number is required'));
  return errs;
}

function validateHTTPPath(p: Rec, at: FieldPath): FieldError[] {
  if (unset(p.pathType)) return [required(at.child('pathType'), 'pathType must be specified')];
  const errs: FieldError[] = [];
  const pathType = str(p.pathType);
  const value = str(p.path);
  if (pathType === 'Exact' || pathType === 'Prefix') {
    if (!value.startsWith('/')) errs.push(invalid(at.child('path'), value, 'must be an absolute path'));
    for (const seq of INVALID_SEQUENCES)
      if (value.includes(seq)) errs.push(invalid(at.child('path'), value, `must not contain '${seq}'`));
    for (const suffix of INVALID_SUFFIXES)
      if (value.endsWith(suffix)) errs.push(invalid(at.child('path'), value, `cannot end with '${suffix}'`));
  } else if (pathType === 'ImplementationSpecific') {
    if (value.length > 0 && !value.startsWith('/'))
      errs.push(invalid(at.child('path'), value, 'must be an absolute path'));
  } else {
    errs.push(notSupported(at.child('pathType'), pathType, PATH_TYPES));
  }
  return [...errs, ...validateBackend(rec(p.backend), at.child('backend'))];
}

function validateRules(rules: Rec[], at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const host = str(rule.host);
    const hostPath = at.index(i).child('host');
    if (host) {
      if (isIPAddress(host)) errs.push(invalid(hostPath, host, 'must be a DNS name, not an IP address'));
      const msgs = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
      for (const msg of msgs) errs.push(invalid(hostPath, host, msg));
    }
    if (!unset(rule.http)) {
      const paths = records(rec(rule.http).paths);
      const httpPath = at.index(i).child('http');
      if (paths.length === 0) errs.push(required(httpPath.child('paths')));
      paths.forEach((p, j) => {
        errs.push(...validateHTTPPath(p, httpPath.child('paths').index(j)));
      });
    }
  });
  return errs;
}

function validateTLS(tls: Rec[], at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  tls.forEach((entry, i) => {
    list(entry.hosts).forEach((h, j) => {
      const host = str(h);
      const msgs = host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host);
      for (const msg of msgs) errs.push(invalid(at.index(i).child('hosts').index(j), host, msg));
    });
    const secret = str(entry.secretName);
    if (secret)
      for (const msg of nameIsDNSSubdomain(secret, false))
        errs.push(invalid(at.index(i).child('secretName'), secret, msg));
  });
  return errs;
}

export function validateIngressSpec(spec: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const rules = records(spec.rules);
  if (rules.length === 0 && unset(spec.defaultBackend)) {
    const shown = new GoValue(
      Array.isArray(spec.rules) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)',
    );
    errs.push(invalid(at, shown, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (!unset(spec.defaultBackend)) errs.push(...validateBackend(rec(spec.defaultBackend), at.child('defaultBackend')));
  if (rules.length > 0) errs.push(...validateRules(rules, at.child('rules')));
  const tls = records(spec.tls);
  if (tls.length > 0) errs.push(...validateTLS(tls, at.child('tls')));
  if (!unset(spec.ingressClassName)) {
    const name = str(spec.ingressClassName);
    for (const msg of nameIsDNSSubdomain(name, false)) errs.push(invalid(at.child('ingressClassName'), name, msg));
  }
  return errs;
}

function validateLoadBalancerStatus(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  records(rec(rec(obj.status).loadBalancer).ingress).forEach((entry, i) => {
    const at = path('status', 'loadBalancer', 'ingress').index(i);
    const ip = str(entry.ip);
    if (ip) errs.push(...isValidIPForLegacyField(at.child('ip'), ip, false));
    const hostname = str(entry.hostname);
    if (hostname) {
      for (const msg of isDNS1123Subdomain(hostname)) errs.push(invalid(at.child('hostname'), hostname, msg));
      if (isIPAddress(hostname))
        errs.push(invalid(at.child('hostname'), hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/** Up to three hosts, `*` when none is named (upstream's formatHosts). */
function formatHosts(rules: Rec[]): string {
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === 3) more = true;
    if (!more && str(rule.host)) hosts.push(str(rule.host));
  }
  if (hosts.length === 0) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

function addresses(obj: KubeObject): string {
  const set = new Set<string>();
  for (const entry of records(rec(rec(obj.status).loadBalancer).ingress)) {
    const value = str(entry.ip) || str(entry.hostname);
    if (value) set.add(value);
  }
  return [...set].sort().join(',');
}

export const ingresses: Builtin = withStatusValidation(
  builtin({
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'ingresses',
    hasStatus: true,
    strategy: {
      prepareForCreate(obj) {
        obj.status = { loadBalancer: {} };
      },
      validate(obj) {
        const spec = rec(obj.spec);
        const errs = validateIngressSpec(spec, path('spec'));
        const annotation = obj.metadata.annotations?.[INGRESS_CLASS_ANNOTATION];
        if (annotation !== undefined && !unset(spec.ingressClassName) && annotation !== spec.ingressClassName) {
          errs.push(
            invalid(
              path('annotations', INGRESS_CLASS_ANNOTATION),
              annotation,
              'must match `ingressClassName` when both are specified',
            ),
          );
        }
        return errs;
      },
      validateUpdate: (obj) => validateIngressSpec(rec(obj.spec), path('spec')),
    },
    printer: {
      columns: [
        nameColumn,
        column('Class', 'The IngressClass that handles the ingress.'),
        column('Hosts', 'The hosts the rules match.'),
        column('Address', 'Where the load balancer receives traffic.'),
        column('Ports', 'The ports the ingress serves.'),
        ageColumn,
      ],
      cells(o, now) {
        const spec = rec(o.spec);
        return [
          o.metadata.name,
          unset(spec.ingressClassName) ? '<none>' : str(spec.ingressClassName),
          formatHosts(records(spec.rules)),
          addresses(o),
          list(spec.tls).length > 0 ? '80, 443' : '80',
          age(o.metadata.creationTimestamp, now),
        ];
      },
    },
  }),
  validateLoadBalancerStatus,
  // Upstream's status strategy resets only spec.
  [],
);
