/**
 * PEM blocks as Go's encoding/pem reads them: text before a block is skipped, a block has a type, optional
 * `Key: value` headers and a base64 body. Used where upstream decodes PEM from an API field (a CSR's
 * spec.request and status.certificate).
 */

export interface PemBlock {
  type: string;
  /** Whether the block had headers (Proc-Type, DEK-Info, …), which API fields refuse. */
  hasHeaders: boolean;
  der: Buffer;
}

const BEGIN = /-----BEGIN ([^-\r\n]*)-----\r?\n/;

/** The first PEM block in text and the text after it, or undefined when there is none (as pem.Decode). */
export function decodePem(text: string): { block: PemBlock; rest: string } | undefined {
  let from = 0;
  for (;;) {
    const match = BEGIN.exec(text.slice(from));
    if (!match) return undefined;
    const start = from + match.index + match[0].length;
    const type = match[1] ?? '';
    const endMarker = `-----END ${type}-----`;
    const end = text.indexOf(endMarker, start);
    if (end < 0) {
      from = start;
      continue;
    }
    const lines = text.slice(start, end).split(/\r?\n/);
    let hasHeaders = false;
    let body = '';
    let inHeaders = true;
    for (const line of lines) {
      if (inHeaders && line.includes(':')) {
        hasHeaders = true;
        continue;
      }
      if (inHeaders && line.trim() === '' && hasHeaders) {
        inHeaders = false;
        continue;
      }
      inHeaders = false;
      body += line.trim();
    }
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) {
      from = start;
      continue;
    }
    return { block: { type, hasHeaders, der: Buffer.from(body, 'base64') }, rest: text.slice(end + endMarker.length) };
  }
}

/** Every PEM block of text, in order. */
export function decodeAllPem(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  let rest = text;
  for (;;) {
    const next = decodePem(rest);
    if (!next) return blocks;
    blocks.push(next.block);
    rest = next.rest;
  }
}

/** DER bytes as a PEM block of the given type, 64 characters a line. */
export function encodePem(type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join('\n')}\n-----END ${type}-----\n`;
}
