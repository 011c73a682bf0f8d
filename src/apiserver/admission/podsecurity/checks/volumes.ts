/**
 * Restricted check on volume types (from v1.0, replacing the baseline hostPathVolumes check): only configMap, csi,
 * downwardAPI, emptyDir, ephemeral, image, persistentVolumeClaim, projected and secret volumes. Any other source —
 * hostPath, nfs, the in-tree cloud disks, a type this server does not know — is refused by name.
 */
import { minorVersion } from '../levels.js';
import {
  ALLOWED,
  type Check,
  type CheckResult,
  forbidden,
  joinQuote,
  nameOf,
  objList,
  type PodView,
  pluralize,
  sortedSet,
} from './check.js';
import { HOST_PATH_VOLUMES_ID } from './host.js';

const ALLOWED_SOURCES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'image',
  'persistentVolumeClaim',
  'projected',
  'secret',
];

/** The restricted sources, in the order upstream looks for them (the first one set names the volume's type). */
const RESTRICTED_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
];

const isSet = (v: unknown) => v !== undefined && v !== null;

function restrictedVolumes(pod: PodView): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const volume of objList(pod.spec, 'volumes')) {
    if (ALLOWED_SOURCES.some((s) => isSet(volume[s]))) continue;
    bad.push(nameOf(volume));
    types.push(RESTRICTED_SOURCES.find((s) => isSet(volume[s])) ?? 'unknown');
  }
  if (bad.length === 0) return ALLOWED;
  const distinct = sortedSet(types);
  return forbidden(
    'restricted volume types',
    `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', distinct.length)} ${joinQuote(distinct)}`,
  );
}

export const VOLUME_CHECKS: readonly Check[] = [
  {
    id: 'restrictedVolumes',
    level: 'restricted',
    versions: [{ minimumVersion: minorVersion(0), check: restrictedVolumes, overrides: [HOST_PATH_VOLUMES_ID] }],
  },
];
