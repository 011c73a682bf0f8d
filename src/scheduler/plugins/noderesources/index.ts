/** The noderesources plugins: NodeResourcesFit and NodeResourcesBalancedAllocation. */

export {
  BalancedAllocation,
  factory as balancedAllocationFactory,
  type NodeResourcesBalancedAllocationArgs,
  name as balancedAllocationName,
} from './balanced-allocation.js';
export {
  Fit,
  factory as fitFactory,
  fits,
  fitsRequest,
  type InsufficientResource,
  type NodeResourcesFitArgs,
  name as fitName,
  type ScoringStrategyType,
} from './fit.js';
