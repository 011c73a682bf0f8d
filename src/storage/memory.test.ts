import { runStorageConformance } from '../testing/storage-conformance.js';
import { MemoryStore } from './memory.js';

runStorageConformance({ name: 'memory', newStore: async () => ({ store: new MemoryStore() }) });
