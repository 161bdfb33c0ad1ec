/**
 * What a reader can follow in the project's Markdown: the anchors GitHub gives a file's headings
 * and the relative links a file makes. No Markdown parser is a dependency of the project, so this
 * reads the two constructs it needs, ATX headings and inline links, outside fenced code.
 */

/** The text with every fenced code block blanked, line for line, so line numbers still hold. */
function withoutFencedCode(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker !== undefined) {
        fence = marker;
        return '';
      }
      if (fence !== undefined) {
        if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
          fence = undefined;
        }
        return '';
      }
      return line;
    })
    .join('\n');
}

/** A heading's text as GitHub renders it: code, links and emphasis reduced to their words. */
function renderedText(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '');
}

/** GitHub's anchor for a heading: lowercase, punctuation but `-` and `_` dropped, spaces to `-`. */
export function githubSlug(heading: string): string {
  return renderedText(heading)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a Markdown file's headings, a repeated one numbered `-1`, `-2`, … as GitHub does. */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of withoutFencedCode(markdown).split('\n')) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const times = seen.get(slug) ?? 0;
    seen.set(slug, times + 1);
    anchors.add(times === 0 ? slug : `${slug}-${String(times)}`);
  }
  return anchors;
}

export type MarkdownLink = { readonly line: number; readonly target: string };

/**
 * The targets of a file's inline links and images (`[text](target)`, `![alt](target)`) and of its
 * link definitions (`[label]: target`), outside fenced code and code spans.
 */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const text = withoutFencedCode(markdown).replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
  const links: MarkdownLink[] = [];
  const lineOf = (index: number): number => text.slice(0, index).split('\n').length;
  for (const match of text.matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ line: lineOf(match.index), target: match[1] ?? '' });
  }
  for (const match of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)) {
    links.push({ line: lineOf(match.index), target: match[1] ?? '' });
  }
  return links;
}

/** Whether a link leaves the repository (a URL with a scheme, or a protocol-relative one). */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}
