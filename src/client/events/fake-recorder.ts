/**
 * A recorder for unit tests of controllers (client-go's record.FakeRecorder): it keeps each event as the string
 * "<type> <reason> <message>" (then " involvedObject{kind=…,apiVersion=…}" when includeObject is set, then the
 * annotations as Go prints a map), and writes nothing.
 */
import { formatGoValue } from '../../api/patch/go-format.js';
import type { EventRecorder } from './broadcaster.js';
import type { EventSubject } from './event.js';
import { sprintf } from './sprintf.js';

export class FakeRecorder implements EventRecorder {
  readonly events: string[] = [];

  constructor(private readonly includeObject = false) {}

  event(subject: EventSubject, type: string, reason: string, message: string): void {
    this.write(subject, undefined, `${type} ${reason} ${message}`);
  }

  eventf(subject: EventSubject, type: string, reason: string, messageFmt: string, ...args: unknown[]): void {
    this.write(subject, undefined, sprintf(`${type} ${reason} ${messageFmt}`, ...args));
  }

  annotatedEventf(
    subject: EventSubject,
    annotations: Record<string, string>,
    type: string,
    reason: string,
    messageFmt: string,
    ...args: unknown[]
  ): void {
    this.write(subject, annotations, sprintf(`${type} ${reason} ${messageFmt}`, ...args));
  }

  private write(subject: EventSubject, annotations: Record<string, string> | undefined, text: string): void {
    let line = text;
    if (this.includeObject) {
      const s = subject as { kind?: string; apiVersion?: string };
      line += ` involvedObject{kind=${s.kind ?? ''},apiVersion=${s.apiVersion ?? ''}}`;
    }
    if (annotations && Object.keys(annotations).length > 0) line += ` ${formatGoValue(annotations)}`;
    this.events.push(line);
  }
}
