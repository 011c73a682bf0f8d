/** The registry hooks the Service strategy uses, as Strategy declares them. */
import type { Strategy } from '../resource.js';

export type { FinishFunc, HookContext } from '../resource.js';

export type RegistryHooks = Pick<Strategy, 'beginCreate' | 'beginUpdate' | 'afterDelete'>;

export type StrategyWithHooks = Strategy;
