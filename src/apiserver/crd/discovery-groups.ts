/**
 * The group/versions custom resources (and the apiserver's own resources outside the built-in catalog, the resource
 * metrics API) add to discovery: groups the built-in catalog does not have, in name order, each group's versions
 * most preferred first (Kubernetes' version ordering), resources by name.
 */
import type { ResourceInfo } from '../../api/catalog.js';
import type { APIRegistry } from '../api-registry.js';
import { sortByKubeAwareVersion } from './version-priority.js';

export interface CustomGroupVersion {
  group: string;
  version: string;
  resources: ResourceInfo[];
}

export function customGroupVersions(registry: APIRegistry, builtinGroups: ReadonlySet<string>): CustomGroupVersion[] {
  const byGroup = new Map<string, Map<string, ResourceInfo[]>>();
  for (const s of [...registry.all(), ...registry.allVirtual()]) {
    const info = s.discovery;
    if (!info || builtinGroups.has(info.group)) continue;
    const versions = byGroup.get(info.group) ?? new Map<string, ResourceInfo[]>();
    byGroup.set(info.group, versions);
    versions.set(info.version, [...(versions.get(info.version) ?? []), info]);
  }
  const out: CustomGroupVersion[] = [];
  for (const group of [...byGroup.keys()].sort()) {
    const versions = byGroup.get(group) as Map<string, ResourceInfo[]>;
    for (const version of sortByKubeAwareVersion([...versions.keys()])) {
      const resources = (versions.get(version) ?? []).sort((x, y) => x.resource.localeCompare(y.resource));
      out.push({ group, version, resources });
    }
  }
  return out;
}
