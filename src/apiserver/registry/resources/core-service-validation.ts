/** Service validation with upstream's rules and messages (ValidateService, ValidateServiceUpdate). */
import {
  duplicate,
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  notSupported,
  path,
  required,
} from '../../../api/field-errors.js';
import { GoValue, goQuote, goStringSlice } from '../../../api/validation/go-format.js';
import { isValidCIDRForLegacyField, isValidIPForLegacyField } from '../../../api/validation/ip.js';
import { validateLabels } from '../../../api/validation/labels.js';
import { parseIP } from '../allocators/ip-range.js';
import type { KubeObject } from '../object.js';
import { dns1123Label, dns1123Subdomain, qualifiedName, validateNonSpecialIP } from './core-field-checks.js';
import { arr, type Rec, rec, str, stringMap } from './core-json.js';
import { isValidPortNum, validatePortNumOrName } from './core-port-validation.js';
import {
  CLUSTER_IP_NONE,
  clusterIPsOf,
  externallyAccessible,
  ipFamiliesOf,
  isHeadless,
  needsHealthCheck,
  nodePortOf,
  portsOf,
  specOf,
  typeOf,
} from './core-service-spec.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const MAX_CLIENT_IP_TIMEOUT = 86400;
const LB_ONLY = "may only be used when `type` is 'LoadBalancer'";

/** `core.ServicePort{…}` as Go's %#v prints the (protocol, port) key of a duplicate port. */
function servicePortKey(protocol: string, port: number): GoValue {
  return new GoValue(
    `core.ServicePort{Name:"", Protocol:${goQuote(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
  );
}

function servicePort(sp: Rec, requireName: boolean, names: Set<string>, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(sp.name);
  if (requireName && name === '') errs.push(required(at.child('name')));
  else if (name !== '') {
    errs.push(...dns1123Label(name, at.child('name')));
    if (names.has(name)) errs.push(duplicate(at.child('name'), name));
    else names.add(name);
  }
  const port = typeof sp.port === 'number' ? sp.port : 0;
  for (const msg of isValidPortNum(port)) errs.push(invalid(at.child('port'), port, msg));
  const protocol = str(sp.protocol);
  if (protocol === '') errs.push(required(at.child('protocol')));
  else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(at.child('protocol'), protocol, PROTOCOLS));
  errs.push(...validatePortNumOrName(sp.targetPort, at.child('targetPort')));
  if (typeof sp.appProtocol === 'string') errs.push(...qualifiedName(sp.appProtocol, at.child('appProtocol')));
  return errs;
}

/** clusterIP, clusterIPs, ipFamilies and ipFamilyPolicy on their own (upstream's ValidateServiceClusterIPsRelatedFields). */
export function validateClusterIPFields(svc: KubeObject): FieldError[] {
  if (typeOf(svc) === 'ExternalName') return [];
  const spec = specOf(svc);
  const errs: FieldError[] = [];
  const ipsPath = path('spec', 'clusterIPs');
  const clusterIP = str(spec.clusterIP);
  const ips = clusterIPsOf(svc);
  if (clusterIP !== '') {
    if (ips.length === 0) errs.push(required(ipsPath));
    else if (ips[0] !== clusterIP)
      errs.push(invalid(ipsPath, goStringSlice(ips), 'first value must match `clusterIP`'));
  } else if (ips.length > 0) {
    errs.push(invalid(ipsPath, goStringSlice(ips), 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  ipFamiliesOf(svc).forEach((family, i) => {
    const at = path('spec', 'ipFamilies').index(i);
    if (family !== 'IPv4' && family !== 'IPv6') errs.push(notSupported(at, family, ['IPv4', 'IPv6']));
    if (seen.has(family)) errs.push(duplicate(at, family));
    seen.add(family);
  });
  const policy = spec.ipFamilyPolicy;
  if (policy !== undefined && policy !== null) {
    if (!['PreferDualStack', 'RequireDualStack', 'SingleStack'].includes(str(policy))) {
      errs.push(
        notSupported(path('spec', 'ipFamilyPolicy'), policy, ['PreferDualStack', 'RequireDualStack', 'SingleStack']),
      );
    }
  }
  let badIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === CLUSTER_IP_NONE) {
      if (ips.length > 1) {
        badIPs = true;
        errs.push(invalid(ipsPath, goStringSlice(ips), "'None' must be the first and only value"));
      }
      return;
    }
    const ipErrs = isValidIPForLegacyField(ipsPath.index(i), ip, false);
    if (ipErrs.length > 0) badIPs = true;
    errs.push(...ipErrs);
  });
  if (ips.length > 2) errs.push(invalid(ipsPath, goStringSlice(ips), 'may only hold up to 2 values'));
  if (badIPs) return errs;
  if (ips.length > 1) {
    const families = ips.map((ip) => parseIP(ip)?.family);
    if (families[0] === families[1] || ips.length > 2) {
      errs.push(invalid(ipsPath, goStringSlice(ips), 'may specify no more than one IP for each IP family'));
    }
  }
  if (!isHeadless(svc)) {
    const families = ipFamiliesOf(svc);
    ips.forEach((ip, i) => {
      if (i >= families.length) return;
      const v6 = parseIP(ip)?.family === 'IPv6';
      if (families[i] === 'IPv4' && v6) {
        errs.push(invalid(ipsPath.index(i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      }
      if (families[i] === 'IPv6' && !v6) {
        errs.push(invalid(ipsPath.index(i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
      }
    });
  }
  return errs;
}

function clientIPAffinity(config: unknown, at: FieldPath): FieldError[] {
  const when = 'when session affinity type is ClientIP';
  if (config === undefined || config === null) return [required(at, when)];
  const clientIP = rec(config).clientIP;
  if (clientIP === undefined || clientIP === null) return [required(at.child('clientIP'), when)];
  const timeout = rec(clientIP).timeoutSeconds;
  const timeoutPath = at.child('clientIP').child('timeoutSeconds');
  if (timeout === undefined || timeout === null) return [required(timeoutPath, when)];
  const n = typeof timeout === 'number' ? timeout : 0;
  if (n <= 0 || n > MAX_CLIENT_IP_TIMEOUT) {
    return [invalid(timeoutPath, n, `must be greater than 0 and less than ${MAX_CLIENT_IP_TIMEOUT}`)];
  }
  return [];
}

function typeSpecific(svc: KubeObject, spec: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeOf(svc);
  if ((type === 'LoadBalancer' || type === 'NodePort') && isHeadless(svc)) {
    errs.push(
      invalid(path('spec', 'clusterIPs').index(0), CLUSTER_IP_NONE, `may not be set to 'None' for ${type} services`),
    );
  }
  if (type === 'ExternalName') {
    if (clusterIPsOf(svc).length > 0) {
      errs.push(forbidden(path('spec', 'clusterIPs'), 'may not be set for ExternalName services'));
    }
    if (ipFamiliesOf(svc).length > 0) {
      errs.push(forbidden(path('spec', 'ipFamilies'), 'may not be set for ExternalName services'));
    }
    if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) {
      errs.push(forbidden(path('spec', 'ipFamilyPolicy'), 'may not be set for ExternalName services'));
    }
    const cname = str(spec.externalName).replace(/\.$/, '');
    if (cname.length > 0) errs.push(...dns1123Subdomain(cname, path('spec', 'externalName')));
    else errs.push(required(path('spec', 'externalName')));
  }
  return errs;
}

function trafficPolicies(svc: KubeObject, spec: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const etp = str(spec.externalTrafficPolicy);
  if (!externallyAccessible(svc)) {
    if (etp !== '') {
      errs.push(
        invalid(path('spec', 'externalTrafficPolicy'), etp, 'may only be set for externally-accessible services'),
      );
    }
  } else if (etp === '') errs.push(required(path('spec', 'externalTrafficPolicy')));
  else if (etp !== 'Cluster' && etp !== 'Local') {
    errs.push(notSupported(path('spec', 'externalTrafficPolicy'), etp, ['Cluster', 'Local']));
  }
  const hc = typeof spec.healthCheckNodePort === 'number' ? spec.healthCheckNodePort : 0;
  if (!needsHealthCheck(svc)) {
    if (hc !== 0) {
      errs.push(
        invalid(
          path('spec', 'healthCheckNodePort'),
          hc,
          "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ),
      );
    }
  } else if (hc === 0) errs.push(required(path('spec', 'healthCheckNodePort')));
  else for (const msg of isValidPortNum(hc)) errs.push(invalid(path('spec', 'healthCheckNodePort'), hc, msg));
  const itp = spec.internalTrafficPolicy;
  if (itp === undefined || itp === null) {
    if (['NodePort', 'LoadBalancer', 'ClusterIP'].includes(typeOf(svc))) {
      errs.push(required(path('spec', 'internalTrafficPolicy')));
    }
  } else if (itp !== 'Cluster' && itp !== 'Local') {
    errs.push(notSupported(path('spec', 'internalTrafficPolicy'), itp, ['Cluster', 'Local']));
  }
  const td = spec.trafficDistribution;
  if (td !== undefined && td !== null && td !== 'PreferClose') {
    errs.push(notSupported(path('spec', 'trafficDistribution'), td, ['PreferClose']));
  }
  return errs;
}

function portUniqueness(svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const nodePorts = new Set<string>();
  const ports = new Set<string>();
  portsOf(svc).forEach((p, i) => {
    const at = path('spec', 'ports').index(i);
    if (typeOf(svc) === 'ClusterIP' && nodePortOf(p) !== 0) {
      errs.push(forbidden(at.child('nodePort'), "may not be used when `type` is 'ClusterIP'"));
    }
    const np = nodePortOf(p);
    if (np !== 0) {
      const key = `${str(p.protocol)}/${np}`;
      if (nodePorts.has(key)) errs.push(duplicate(at.child('nodePort'), np));
      nodePorts.add(key);
    }
  });
  portsOf(svc).forEach((p, i) => {
    const port = typeof p.port === 'number' ? p.port : 0;
    const key = `${str(p.protocol)}/${port}`;
    if (ports.has(key)) errs.push(duplicate(path('spec', 'ports').index(i), servicePortKey(str(p.protocol), port)));
    ports.add(key);
  });
  return errs;
}

function loadBalancerFields(svc: KubeObject, spec: Rec, old: KubeObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const isLB = typeOf(svc) === 'LoadBalancer';
  const ranges = arr(spec.loadBalancerSourceRanges).map(str);
  const annotation = svc.metadata.annotations?.['service.beta.kubernetes.io/load-balancer-source-ranges'];
  if (ranges.length > 0) {
    const at = path('spec', 'LoadBalancerSourceRanges');
    if (!isLB) errs.push(forbidden(at, LB_ONLY));
    ranges.forEach((r, i) => void errs.push(...isValidCIDRForLegacyField(at.index(i), r.trim(), false)));
  } else if (annotation !== undefined) {
    const at = path('metadata', 'annotations').key('service.beta.kubernetes.io/load-balancer-source-ranges');
    if (!isLB) errs.push(forbidden(at, LB_ONLY));
    const value = annotation.trim();
    if (value !== '') for (const r of value.split(',')) errs.push(...isValidCIDRForLegacyField(at, r.trim(), false));
  }
  if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts !== null && !isLB) {
    errs.push(forbidden(path('spec', 'allocateLoadBalancerNodePorts'), LB_ONLY));
  }
  if (isLB && (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null)) {
    errs.push(required(path('allocateLoadBalancerNodePorts')));
  }
  const lbClass = spec.loadBalancerClass;
  if (old && typeOf(old) === 'LoadBalancer' && isLB && (specOf(old).loadBalancerClass ?? null) !== (lbClass ?? null)) {
    errs.push(invalid(path('spec', 'loadBalancerClass'), lbClass ?? null, 'may not change once set'));
  }
  if (isLB) {
    if (typeof lbClass === 'string') errs.push(...qualifiedName(lbClass, path('spec', 'loadBalancerClass')));
  } else if (lbClass !== undefined && lbClass !== null) {
    errs.push(forbidden(path('spec', 'loadBalancerClass'), LB_ONLY));
  }
  return errs;
}

/** Everything ValidateService checks beyond object metadata, in its order. */
export function validateService(svc: KubeObject, old?: KubeObject): FieldError[] {
  const spec = specOf(svc);
  const errs: FieldError[] = [];
  const annotations = svc.metadata.annotations ?? {};
  const hints = annotations['service.kubernetes.io/topology-aware-hints'];
  const mode = annotations['service.kubernetes.io/topology-mode'];
  if (hints !== undefined && mode !== undefined && hints !== mode) {
    errs.push(
      invalid(
        path('metadata', 'annotations').key('service.kubernetes.io/topology-mode'),
        mode,
        'must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified',
      ),
    );
  }
  const ports = portsOf(svc);
  if (ports.length === 0 && !isHeadless(svc) && typeOf(svc) !== 'ExternalName')
    errs.push(required(path('spec', 'ports')));
  errs.push(...typeSpecific(svc, spec));
  const names = new Set<string>();
  ports.forEach((p, i) => void errs.push(...servicePort(p, ports.length > 1, names, path('spec', 'ports').index(i))));
  if (spec.selector !== undefined && spec.selector !== null) {
    errs.push(...validateLabels(stringMap(spec.selector), path('spec', 'selector')));
  }
  const affinity = str(spec.sessionAffinity);
  if (affinity === '') errs.push(required(path('spec', 'sessionAffinity')));
  else if (affinity !== 'ClientIP' && affinity !== 'None') {
    errs.push(notSupported(path('spec', 'sessionAffinity'), affinity, ['ClientIP', 'None']));
  }
  if (affinity === 'ClientIP')
    errs.push(...clientIPAffinity(spec.sessionAffinityConfig, path('spec', 'sessionAffinityConfig')));
  else if (affinity === 'None' && spec.sessionAffinityConfig !== undefined && spec.sessionAffinityConfig !== null) {
    errs.push(forbidden(path('spec', 'sessionAffinityConfig'), 'must not be set when session affinity is None'));
  }
  errs.push(...validateClusterIPFields(svc));
  arr(spec.externalIPs).forEach((ip, i) => {
    const at = path('spec', 'externalIPs').index(i);
    const ipErrs = isValidIPForLegacyField(at, str(ip), false);
    errs.push(...(ipErrs.length > 0 ? ipErrs : validateNonSpecialIP(str(ip), at)));
  });
  const type = typeOf(svc);
  if (type === '') errs.push(required(path('spec', 'type')));
  else if (!SERVICE_TYPES.includes(type)) errs.push(notSupported(path('spec', 'type'), type, SERVICE_TYPES));
  errs.push(...portUniqueness(svc));
  errs.push(...loadBalancerFields(svc, spec, old));
  errs.push(...trafficPolicies(svc, spec));
  return errs;
}

/** What may not change on update: cluster IPs and families once set, the health-check node port. */
export function validateServiceUpdate(svc: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const external = typeOf(svc) === 'ExternalName' || typeOf(old) === 'ExternalName';
  if (!external && !(isHeadless(svc) && isHeadless(old))) {
    const ips = clusterIPsOf(svc);
    const oldIPs = clusterIPsOf(old);
    const at0 = path('spec', 'clusterIPs').index(0);
    if (ips.length === oldIPs.length) {
      oldIPs.forEach((ip, i) => {
        if (ip !== ips[i])
          errs.push(invalid(path('spec', 'clusterIPs').index(i), goStringSlice(ips), 'may not change once set'));
      });
    } else if (ips.length < oldIPs.length) {
      if (ips.length === 0)
        errs.push(invalid(at0, goStringSlice(ips.length ? ips : null), 'primary clusterIP can not be unset'));
      else if (ips[0] !== oldIPs[0]) errs.push(invalid(at0, goStringSlice(ips), 'may not change once set'));
    } else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) {
      errs.push(invalid(at0, goStringSlice(ips), 'may not change once set'));
    }
  }
  if (!external && isHeadless(svc) === isHeadless(old) && !isHeadless(svc)) {
    const families = ipFamiliesOf(svc);
    const oldFamilies = ipFamiliesOf(old);
    if (families.length === oldFamilies.length && families.some((f, i) => f !== oldFamilies[i])) {
      errs.push(invalid(path('spec', 'ipFamilies').index(0), goStringSlice(families), 'may not change once set'));
    }
  }
  if (
    needsHealthCheck(old) &&
    needsHealthCheck(svc) &&
    specOf(svc).healthCheckNodePort !== specOf(old).healthCheckNodePort
  ) {
    errs.push(forbidden(path('spec', 'healthCheckNodePort'), 'field is immutable'));
  }
  return [...errs, ...validateService(svc, old)];
}
