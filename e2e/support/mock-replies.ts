/** The mock upstream's deterministic reply text (docs/mock-upstream.md). */
export function expectedReply(lastUserText: string, firstUserText?: string): string {
  const reply = `You said: "${lastUserText}".`;
  return firstUserText === undefined ? reply : `${reply} Earlier you said: "${firstUserText}".`;
}

/**
 * A message long enough that its echo streams for a couple of seconds: the mock sends one word
 * per delta, so `wordCount` words take about wordCount * chunk delay.
 */
export function longMessage(wordCount: number, tag: string): string {
  return Array.from({ length: wordCount }, (_, index) => `${tag}${index + 1}`).join(" ");
}
