import type { EncryptionRule } from '../apiserver/encryption/config.js';
import { loadEncryptionConfiguration } from '../apiserver/encryption/config.js';

/** kube-apiserver's encryption-at-rest flag. */
export const encryptionFlagSpec = {
  'encryption-provider-config': { type: 'string' },
} as const;

export const encryptionFlagsHelp = `  --encryption-provider-config FILE  an EncryptionConfiguration: which resources are encrypted at rest, and how`;

/**
 * startControlPlane's `encryptionProviderConfig` as the flag asks for it: the file read, checked and turned into
 * rules before anything starts, so a bad file stops the command with kube-apiserver's message (`error while parsing
 * file: …`). An empty value means no encryption, as upstream.
 */
export function encryptionOptionsOf(values: Record<string, unknown>): { encryptionProviderConfig?: EncryptionRule[] } {
  const file = values['encryption-provider-config'];
  if (typeof file !== 'string' || file === '') return {};
  return { encryptionProviderConfig: loadEncryptionConfiguration(file) };
}
