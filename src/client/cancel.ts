/**
 * What the client's request path needs of an AbortSignal, and a cheaper stand-in for the AbortController it made
 * for every request. Node's AbortSignal is an EventTarget: making one and adding and removing its listeners cost a
 * few microseconds and several objects per request, a noticeable share of a controller's or kubelet's CPU when it
 * sends thousands of requests a second.
 */

/** The part of AbortSignal the request path uses; an AbortSignal is one. */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** One request's cancellation: abort() once, with a reason; each listener is called once, as `{ once: true }`. */
export class RequestCancel implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | undefined;

  /** As AbortController.abort: without a reason, the reason is an AbortError. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) listener();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    if (this.listeners === undefined) this.listeners = [listener];
    else this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.listeners;
    const at = listeners?.indexOf(listener) ?? -1;
    if (at >= 0) listeners?.splice(at, 1);
  }
}
