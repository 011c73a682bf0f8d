import type { HttpRequest } from './context.js';

/**
 * The values of a request header, one per header line, as Go's http.Header keeps them: a repeated header is several
 * values, and a comma inside a line is part of its value. Node joins some repeated headers with ", " in req.headers,
 * so the lines are read from req.rawHeaders (HTTP/1.1 and HTTP/2 alike). name is lower case.
 */
export function headerLines(req: HttpRequest, name: string): string[] {
  const raw = req.rawHeaders ?? [];
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if ((raw[i] as string).toLowerCase() === name) values.push(raw[i + 1] as string);
  }
  return values;
}
