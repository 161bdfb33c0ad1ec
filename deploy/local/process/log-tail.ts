import { readFileSync } from 'node:fs';

export function lastLines(file: string, count: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
  } catch {
    return '(nothing logged)';
  }
}
