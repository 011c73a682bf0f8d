import { arch, platform } from 'node:os';
import type { Handler } from '../context.js';
import { writeRawJson } from '../respond.js';

/** The Kubernetes release whose API wheelhouse serves. kubectl picks its matching minor version from /version. */
export const KUBERNETES_MAJOR = '1';
export const KUBERNETES_MINOR = '33';
export const WHEELHOUSE_VERSION = '0.1.0';

export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor: string;
  emulationMinor: string;
  minCompatibilityMajor: string;
  minCompatibilityMinor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

const goArch: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };

export function versionInfo(): VersionInfo {
  return {
    major: KUBERNETES_MAJOR,
    minor: KUBERNETES_MINOR,
    emulationMajor: KUBERNETES_MAJOR,
    emulationMinor: KUBERNETES_MINOR,
    minCompatibilityMajor: KUBERNETES_MAJOR,
    minCompatibilityMinor: String(Number(KUBERNETES_MINOR) - 1),
    gitVersion: `v${KUBERNETES_MAJOR}.${KUBERNETES_MINOR}.0-wheelhouse.${WHEELHOUSE_VERSION}`,
    gitCommit: '',
    gitTreeState: '',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'node',
    platform: `${platform()}/${goArch[arch()] ?? arch()}`,
  };
}

/** GET /version: written raw, as upstream's version handler does (no audit response object). */
export const versionHandler: Handler = async (ctx) => writeRawJson(ctx, 200, versionInfo());
