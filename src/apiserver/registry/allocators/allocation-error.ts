/** Why an IP or port could not be allocated; the messages are upstream's allocator errors. */
export type AllocationFailure = 'Allocated' | 'NotInRange' | 'MismatchedNetwork' | 'Full';

export class AllocationError extends Error {
  override name = 'AllocationError';
  constructor(
    readonly failure: AllocationFailure,
    message: string,
  ) {
    super(message);
  }
}
