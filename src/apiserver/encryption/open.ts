import type { Store } from '../../storage/types.js';
import { type EncryptionRule, loadEncryptionConfiguration } from './config.js';
import { EncryptingStore } from './store.js';

/** The store with encryption at rest when a configuration is given; the store itself otherwise. */
export function encryptedStore(store: Store, config: string | EncryptionRule[] | undefined): Store {
  if (config === undefined) return store;
  const rules = typeof config === 'string' ? loadEncryptionConfiguration(config) : config;
  return new EncryptingStore(store, rules);
}
