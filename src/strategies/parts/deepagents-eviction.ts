/**
 * deepagents' large-result eviction (langchain-ai/deepagents, `FilesystemMiddleware`,
 * libs/deepagents/deepagents/middleware/filesystem.py and _message_eviction.py), the tier-1 form of
 * `offloadStyle=deepagents`: a tool result over `tool_token_limit_before_evict` tokens, estimated at
 * 4 characters a token, is written to /large_tool_results/<tool call id> and replaced by a message
 * saying where, with a numbered head and tail of the result. The results of the tools that truncate
 * their own output or never grow large are never evicted.
 *
 * The replacement's wording is ours (the same facts: the call, the path, how to read it back in
 * parts, the preview and what its marker means); the preview's format is deepagents'.
 */

/** deepagents `TOOLS_EXCLUDED_FROM_EVICTION`. */
export const EVICTION_EXCLUDED_TOOLS: ReadonlySet<string> = new Set(['ls', 'glob', 'grep', 'read_file', 'edit_file', 'write_file']);

/** deepagents `NUM_CHARS_PER_TOKEN`: how it estimates a result's tokens. */
const CHARS_PER_TOKEN = 4;
/** deepagents `LINE_NUMBER_WIDTH` (cat -n). */
const LINE_NUMBER_WIDTH = 6;
/** deepagents `PREVIEW_LINE_CHAR_LIMIT`: a preview line is clipped here. */
const PREVIEW_LINE_CHARS = 1000;

/** Whether deepagents evicts a result of `tool` with this content, at a limit of `limitTokens`. */
export function evicts(tool: string, content: string, limitTokens: number): boolean {
  return !EVICTION_EXCLUDED_TOOLS.has(tool) && content.length > CHARS_PER_TOKEN * limitTokens;
}

const numbered = (lines: readonly string[], first: number): string =>
  lines.map((line, i) => `${String(first + i).padStart(LINE_NUMBER_WIDTH)}\t${line.slice(0, PREVIEW_LINE_CHARS)}`).join('\n');

/** deepagents `_create_content_preview`: `lines` from the head and as many from the tail, or all when that is no more. */
export function headTailPreview(content: string, lines: number): { text: string; omitted: number } {
  // Python's splitlines(): a final line break ends the last line, it does not start another.
  const all = content.replace(/\r?\n$/, '').split(/\r?\n/);
  if (all.length <= 2 * lines) return { text: numbered(all, 1), omitted: 0 };
  const omitted = all.length - 2 * lines;
  return { text: `${numbered(all.slice(0, lines), 1)}\n... [${omitted} lines truncated] ...\n${numbered(all.slice(-lines), all.length - lines + 1)}`, omitted };
}

/** The message that replaces an evicted result (deepagents `TOO_LARGE_TOOL_MSG`, in our words). */
export function evictionMessage(callId: string, path: string, content: string, previewLines: number): string {
  const preview = headTailPreview(content, previewLines);
  const intro = preview.omitted > 0 ? 'Its first and last lines (a "... [N lines truncated] ..." line stands for the lines between them):' : 'Its lines:';
  return (
    `Tool result too large: the result of tool call ${callId} was saved at ${path}.\n` +
    'Read it back with read_file, a part at a time: give an offset and a limit (offset=0, limit=100 reads its first 100 lines).\n' +
    `${intro}\n\n${preview.text}`
  );
}
