/**
 * core/v1 Endpoints: port protocols default to TCP, subsets are validated as upstream does (addresses, ports), and
 * `kubectl get endpoints` shows NAME ENDPOINTS AGE with at most three addresses.
 */
import { type FieldError, type FieldPath, invalid, notSupported, path, required } from '../../../api/field-errors.js';
import { isValidIPForLegacyField } from '../../../api/validation/ip.js';
import { nameIsDNSSubdomain } from '../../../api/validation/name-validators.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn, type Printer } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { dns1123Label, qualifiedName, validateNonSpecialIP } from './core-field-checks.js';
import { type Rec, recs, str } from './core-json.js';
import { isValidPortNum } from './core-port-validation.js';
import { column } from './groups-columns.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

export function defaultEndpoints(ep: KubeObject): void {
  for (const subset of recs(ep.subsets))
    for (const port of recs(subset.ports)) if (!port.protocol) port.protocol = 'TCP';
}

function address(a: Rec, at: FieldPath): FieldError[] {
  const ip = str(a.ip);
  const errs = isValidIPForLegacyField(at.child('ip'), ip, false);
  if (str(a.hostname)) errs.push(...dns1123Label(str(a.hostname), at.child('hostname')));
  if (typeof a.nodeName === 'string') {
    for (const msg of nameIsDNSSubdomain(a.nodeName, false)) errs.push(invalid(at.child('nodeName'), a.nodeName, msg));
  }
  if (errs.length === 0) errs.push(...validateNonSpecialIP(ip, at.child('ip')));
  return errs;
}

function port(p: Rec, requireName: boolean, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(p.name);
  if (requireName && !name) errs.push(required(at.child('name')));
  else if (name) errs.push(...dns1123Label(name, at.child('name')));
  const n = typeof p.port === 'number' ? p.port : 0;
  for (const msg of isValidPortNum(n)) errs.push(invalid(at.child('port'), n, msg));
  const protocol = str(p.protocol);
  if (!protocol) errs.push(required(at.child('protocol')));
  else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(at.child('protocol'), protocol, PROTOCOLS));
  if (typeof p.appProtocol === 'string') errs.push(...qualifiedName(p.appProtocol, at.child('appProtocol')));
  return errs;
}

export function validateEndpoints(ep: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  recs(ep.subsets).forEach((subset, i) => {
    const at = path('subsets').index(i);
    const addresses = recs(subset.addresses);
    const notReady = recs(subset.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0) {
      errs.push(required(at, 'must specify `addresses` or `notReadyAddresses`'));
    }
    addresses.forEach((a, j) => void errs.push(...address(a, at.child('addresses').index(j))));
    notReady.forEach((a, j) => void errs.push(...address(a, at.child('notReadyAddresses').index(j))));
    const ports = recs(subset.ports);
    ports.forEach((p, j) => void errs.push(...port(p, ports.length > 1, at.child('ports').index(j))));
  });
  return errs;
}

/** `10.0.0.1:80,10.0.0.2:80 + 3 more...`, or `<none>`. */
export function formatEndpoints(ep: KubeObject): string {
  const subsets = recs(ep.subsets);
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let total = 0;
  let more = false;
  const add = (text: string) => {
    if (list.length === max) more = true;
    else list.push(text);
  };
  for (const subset of subsets) {
    const addresses = recs(subset.addresses);
    const ports = recs(subset.ports);
    if (ports.length === 0) {
      total += addresses.length;
      for (const a of addresses) add(str(a.ip));
      continue;
    }
    for (const p of ports) {
      total += addresses.length;
      for (const a of addresses) {
        const ip = str(a.ip);
        add(`${ip.includes(':') ? `[${ip}]` : ip}:${String(p.port ?? 0)}`);
      }
    }
  }
  const text = list.join(',');
  return more ? `${text} + ${total - max} more...` : text;
}

export const endpointsPrinter: Printer = {
  columns: [nameColumn, column('Endpoints', 'The addresses and ports of the endpoints.'), ageColumn],
  cells: (ep, now) => [ep.metadata.name ?? '', formatEndpoints(ep), age(ep.metadata.creationTimestamp, now)],
};

export function endpoints(): Builtin {
  const served = builtin({
    group: '',
    version: 'v1',
    resource: 'endpoints',
    printer: endpointsPrinter,
    strategy: {
      tracksGeneration: false,
      allowCreateOnUpdate: true,
      default: defaultEndpoints,
      validate: validateEndpoints,
      validateUpdate: validateEndpoints,
    },
  });
  // Deprecated in v1.33 (KEP-4974): every request is answered with upstream's deprecation warning.
  served.def.deprecationWarning = 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice';
  return served;
}
