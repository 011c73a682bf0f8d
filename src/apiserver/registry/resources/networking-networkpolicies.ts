/**
 * networking.k8s.io/v1 NetworkPolicies: policyTypes default to Ingress (plus Egress when egress rules exist) and
 * port protocols to TCP; selectors, ports, peers and IP blocks validated with upstream's messages; printed as
 * NAME POD-SELECTOR AGE.
 */
import { BlockList, isIP } from 'node:net';
import {
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  notSupported,
  path,
  required,
} from '../../../api/field-errors.js';
import { GoValue, goQuote } from '../../../api/validation/go-format.js';
import { isValidCIDRForLegacyField } from '../../../api/validation/ip.js';
import { validateLabelSelector } from '../../../api/validation/labels.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { isValidPortName, isValidPortNum } from './core-port-validation.js';
import { column, formatLabelSelector } from './groups-columns.js';
import { child, defaultString, list, type Rec, rec, records, str, unset } from './groups-fields.js';

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

export function defaultNetworkPolicy(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  if (list(spec.policyTypes).length === 0) {
    spec.policyTypes = list(spec.egress).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
  for (const key of ['ingress', 'egress']) {
    for (const rule of records(spec[key]))
      for (const port of records(rule.ports)) defaultString(port, 'protocol', 'TCP');
  }
}

function validatePort(port: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!unset(port.protocol) && !PROTOCOLS.includes(str(port.protocol))) {
    errs.push(notSupported(at.child('protocol'), str(port.protocol), PROTOCOLS));
  }
  const endPort = port.endPort;
  if (unset(port.port)) {
    if (!unset(endPort))
      errs.push(invalid(at.child('endPort'), endPort, 'may not be specified when `port` is not specified'));
    return errs;
  }
  if (typeof port.port === 'number') {
    const value = port.port;
    for (const msg of isValidPortNum(value)) errs.push(invalid(at.child('port'), value, msg));
    if (typeof endPort === 'number') {
      if (endPort < value) errs.push(invalid(at.child('endPort'), value, 'must be greater than or equal to `port`'));
      for (const msg of isValidPortNum(endPort)) errs.push(invalid(at.child('endPort'), endPort, msg));
    }
    return errs;
  }
  if (!unset(endPort))
    errs.push(invalid(at.child('endPort'), endPort, 'may not be specified when `port` is non-numeric'));
  for (const msg of isValidPortName(str(port.port))) errs.push(invalid(at.child('port'), str(port.port), msg));
  return errs;
}

/** Whether `inner` lies strictly inside `outer` (a longer prefix within it). */
function strictSubset(outer: string, inner: string): boolean {
  const [outerIP = '', outerBits = ''] = outer.split('/');
  const [innerIP = '', innerBits = ''] = inner.split('/');
  const family = isIP(outerIP);
  if (family === 0 || isIP(innerIP) !== family) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  try {
    const block = new BlockList();
    block.addSubnet(outerIP, Number(outerBits), type);
    return block.check(innerIP, type) && Number(outerBits) < Number(innerBits);
  } catch {
    return false;
  }
}

function validateIPBlock(block: Rec, at: FieldPath): FieldError[] {
  const cidr = str(block.cidr);
  if (cidr === '') return [required(at.child('cidr'))];
  const errs = isValidCIDRForLegacyField(at.child('cidr'), cidr, false);
  if (errs.length > 0) return errs;
  list(block.except).forEach((e, i) => {
    const except = str(e);
    const exceptPath = at.child('except').index(i);
    const exceptErrs = isValidCIDRForLegacyField(exceptPath, except, false);
    errs.push(...exceptErrs);
    if (exceptErrs.length === 0 && !strictSubset(cidr, except)) {
      errs.push(invalid(exceptPath, except, 'must be a strict subset of `cidr`'));
    }
  });
  return errs;
}

function validatePeer(peer: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let peers = 0;
  for (const key of ['podSelector', 'namespaceSelector']) {
    if (unset(peer[key])) continue;
    peers++;
    errs.push(...validateLabelSelector(rec(peer[key]), {}, at.child(key)));
  }
  if (!unset(peer.ipBlock)) {
    peers++;
    errs.push(...validateIPBlock(rec(peer.ipBlock), at.child('ipBlock')));
  }
  if (peers === 0) errs.push(required(at, 'must specify a peer'));
  else if (peers > 1 && !unset(peer.ipBlock)) errs.push(forbidden(at, 'may not specify both ipBlock and another peer'));
  return errs;
}

export function validateNetworkPolicySpec(spec: Rec, at: FieldPath): FieldError[] {
  const errs = validateLabelSelector(rec(spec.podSelector), {}, at.child('podSelector'));
  for (const [key, peersKey] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    records(spec[key]).forEach((rule, i) => {
      const rulePath = at.child(key).index(i);
      records(rule.ports).forEach((port, j) => {
        errs.push(...validatePort(port, rulePath.child('ports').index(j)));
      });
      records(rule[peersKey]).forEach((peer, j) => {
        errs.push(...validatePeer(peer, rulePath.child(peersKey).index(j)));
      });
    });
  }
  const types = list(spec.policyTypes).map(str);
  if (types.length > POLICY_TYPES.length) {
    const shown = new GoValue(`[]networking.PolicyType{${types.map(goQuote).join(', ')}}`);
    return [...errs, invalid(at.child('policyTypes'), shown, 'may not specify more than two policyTypes')];
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(notSupported(at.child('policyTypes').index(i), t, POLICY_TYPES));
  });
  return errs;
}

export const networkpolicies: Builtin = builtin({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'networkpolicies',
  strategy: {
    default: defaultNetworkPolicy,
    validate: (obj) => validateNetworkPolicySpec(rec(obj.spec), path('spec')),
  },
  printer: {
    columns: [nameColumn, column('Pod-Selector', 'The pods the policy applies to.'), ageColumn],
    cells: (o, now) => [
      o.metadata.name,
      formatLabelSelector(rec(rec(o.spec).podSelector)),
      age(o.metadata.creationTimestamp, now),
    ],
  },
});
