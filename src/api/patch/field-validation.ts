/**
 * The `fieldValidation` query parameter of a PATCH request. It matters to patch decoding because kube-apiserver
 * decodes JSON and merge patch bodies strictly (into typed Go values) unless it is `Ignore`, which changes which
 * bodies are refused and with what message. An absent parameter means `Warn` in kube-apiserver v1.33.
 */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export const DEFAULT_FIELD_VALIDATION: FieldValidation = 'Warn';

export interface PatchOptions {
  readonly fieldValidation?: FieldValidation;
  /**
   * The document is the caller's own copy, which the patch may change and answer instead of copying it first (a
   * failed patch may then leave it half changed).
   */
  readonly inPlace?: boolean;
}

/** Whether the apiserver runs its strict decode of the patch body first (Warn and Strict). */
export function decodesStrictly(options: PatchOptions | undefined): boolean {
  return (options?.fieldValidation ?? DEFAULT_FIELD_VALIDATION) !== 'Ignore';
}
