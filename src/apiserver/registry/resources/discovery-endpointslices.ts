/**
 * discovery.k8s.io/v1 EndpointSlices: port defaults (name "", protocol TCP), validation of the address type,
 * addresses and ports, an immutable addressType, and the NAME ADDRESSTYPE PORTS ENDPOINTS AGE printer.
 * Upstream also bumps generation on label changes, which the store cannot express yet.
 */
import {
  duplicate,
  type FieldError,
  type FieldPath,
  invalid,
  notSupported,
  path,
  required,
  tooMany,
} from '../../../api/field-errors.js';
import { isIPv4, parseIP } from '../../../api/validation/ip.js';
import { validateLabels } from '../../../api/validation/labels.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../../../api/validation/names.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';
import { defaultValue, list, records, str, stringMap, unset } from './groups-fields.js';
import { immutable } from './groups-validation.js';

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** IsFullyQualifiedDomainName. */
function fqdnErrors(address: string, at: FieldPath): FieldError[] {
  if (address === '') return [required(at)];
  const name = address.endsWith('.') ? address.slice(0, -1) : address;
  const subdomain = isDNS1123Subdomain(name);
  if (subdomain.length > 0) return [invalid(at, name, subdomain.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [invalid(at, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length > 0) return [invalid(at, label, msgs.join(','))];
  }
  return [];
}

function validateAddress(address: string, addressType: string, at: FieldPath): FieldError[] {
  if (addressType === 'IPv4' || addressType === 'IPv6') {
    // Parsed sloppily (as a legacy IP field); IPv4-mapped IPv6 counts as IPv4, as net.IP.To4() decides.
    const ip = parseIP(address);
    if (!ip || isIPv4(ip) !== (addressType === 'IPv4')) {
      return [invalid(at, address, `must be a valid ${addressType} address`)];
    }
    return [];
  }
  return addressType === 'FQDN' ? fqdnErrors(address, at) : [];
}

function validateEndpointSlice(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const addressType = str(obj.addressType);
  if (addressType === '') errs.push(required(path('addressType')));
  else if (!ADDRESS_TYPES.includes(addressType))
    errs.push(notSupported(path('addressType'), addressType, ADDRESS_TYPES));
  const endpoints = records(obj.endpoints);
  if (endpoints.length > 1000) errs.push(tooMany(path('endpoints'), endpoints.length, 1000));
  else {
    endpoints.forEach((endpoint, i) => {
      const at = path('endpoints').index(i);
      const addresses = list(endpoint.addresses).map(str);
      if (addresses.length === 0) errs.push(required(at.child('addresses'), 'must contain at least 1 address'));
      else if (addresses.length > 100) errs.push(tooMany(at.child('addresses'), addresses.length, 100));
      addresses.forEach((a, j) => {
        errs.push(...validateAddress(a, addressType, at.child('addresses').index(j)));
      });
      errs.push(...validateLabels(stringMap(endpoint.topology), at.child('topology')));
      if (!unset(endpoint.hostname)) {
        for (const msg of isDNS1123Label(str(endpoint.hostname)))
          errs.push(invalid(at.child('hostname'), str(endpoint.hostname), msg));
      }
    });
  }
  const ports = records(obj.ports);
  if (ports.length > 100) return [...errs, tooMany(path('ports'), ports.length, 100)];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = path('ports').index(i);
    const name = str(port.name);
    if (name) for (const msg of isDNS1123Label(name)) errs.push(invalid(at.child('name'), name, msg));
    if (names.has(name)) errs.push(duplicate(at.child('name'), name));
    names.add(name);
    if (unset(port.protocol)) errs.push(required(at.child('protocol')));
    else if (!PROTOCOLS.includes(str(port.protocol)))
      errs.push(notSupported(at.child('protocol'), str(port.protocol), PROTOCOLS));
    if (!unset(port.appProtocol)) {
      for (const msg of isQualifiedName(str(port.appProtocol)))
        errs.push(invalid(at.child('appProtocol'), str(port.appProtocol), msg));
    }
  });
  return errs;
}

/** Up to three items, then ` + N more...`; `<unset>` when there are none (upstream's listWithMoreString). */
function listWithMore(items: string[]): string {
  if (items.length === 0) return '<unset>';
  const shown = items.slice(0, 3).join(',');
  return items.length > 3 ? `${shown} + ${items.length - 3} more...` : shown;
}

export const endpointslices: Builtin = builtin({
  group: 'discovery.k8s.io',
  version: 'v1',
  resource: 'endpointslices',
  strategy: {
    default(obj) {
      for (const port of records(obj.ports)) {
        defaultValue(port, 'name', '');
        defaultValue(port, 'protocol', 'TCP');
      }
    },
    validate: validateEndpointSlice,
    validateUpdate: (obj, old) => [
      ...validateEndpointSlice(obj),
      ...immutable(path('addressType'), obj.addressType, old.addressType),
    ],
  },
  printer: {
    columns: [
      nameColumn,
      column('AddressType', 'The type of the addresses.'),
      column('Ports', 'The ports of the endpoints.'),
      column('Endpoints', 'The addresses of the endpoints.'),
      ageColumn,
    ],
    cells(o, now) {
      const ports = records(o.ports).map((p) => (typeof p.port === 'number' ? String(p.port) : str(p.name) || '*'));
      const addresses = records(o.endpoints).flatMap((e) => list(e.addresses).map(str));
      return [
        o.metadata.name,
        str(o.addressType),
        listWithMore(ports),
        listWithMore(addresses),
        age(o.metadata.creationTimestamp, now),
      ];
    },
  },
});
