/**
 * The parts of Pods, Services, Nodes, Endpoints and EndpointSlices that the endpointslice, endpoints and
 * endpointslice-mirroring controllers read and write, as they are on the wire (core/v1 and discovery.k8s.io/v1).
 */
import type { GroupVersionResource, KubeObject } from '../../client/types.js';

export const SERVICES: GroupVersionResource = { group: '', version: 'v1', resource: 'services' };
export const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };
export const NODES: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };
export const ENDPOINTS: GroupVersionResource = { group: '', version: 'v1', resource: 'endpoints' };
export const ENDPOINT_SLICES: GroupVersionResource = {
  group: 'discovery.k8s.io',
  version: 'v1',
  resource: 'endpointslices',
};

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port: number;
  /** IntOrString: a number is a port, a string the name of a container port. */
  targetPort?: number | string;
}

export interface Service extends KubeObject {
  spec?: {
    selector?: Record<string, string> | null;
    ports?: ServicePort[];
    clusterIP?: string;
    ipFamilies?: string[];
    type?: string;
    publishNotReadyAddresses?: boolean;
  };
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface Container {
  name?: string;
  ports?: ContainerPort[];
  restartPolicy?: string;
}

export interface PodCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}

export interface Pod extends KubeObject {
  spec?: {
    nodeName?: string;
    hostname?: string;
    subdomain?: string;
    containers?: Container[];
    initContainers?: Container[];
  };
  status?: {
    phase?: string;
    podIP?: string;
    podIPs?: { ip: string }[];
    conditions?: PodCondition[];
  };
}

export type AddressType = 'IPv4' | 'IPv6' | 'FQDN';

export interface EndpointConditions {
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

/** discovery/v1 Endpoint. */
export interface Endpoint {
  addresses: string[];
  conditions?: EndpointConditions;
  hostname?: string;
  targetRef?: ObjectReference;
  nodeName?: string;
  zone?: string;
  hints?: unknown;
}

/** discovery/v1 EndpointPort (every field optional on the wire). */
export interface SlicePort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSlice extends KubeObject {
  addressType: AddressType;
  endpoints?: Endpoint[] | null;
  ports?: SlicePort[] | null;
}

/** core/v1 EndpointAddress. */
export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

/** core/v1 EndpointPort. */
export interface EndpointsPort {
  name?: string;
  port: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointsPort[];
}

export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}
