import type { IntelligenceDraft, StoryMoment } from '@agent-warden/contracts';
import { clip } from './facts';
import type { NarrativeReply } from './reply';

/** Longest summary text kept from the model, characters. */
export const MAX_SUMMARY_CHARS = 2000;
/** Longest moment text kept from the model, characters. */
export const MAX_MOMENT_TEXT_CHARS = 600;

/** UUID-shaped tokens (event ids are UUIDv7) the model might have written inside a text. */
const UUID_RE = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** What {@link applyNarrative} kept and dropped, for the log line. */
export interface NarrativeStats {
  momentsNarrated: number;
  /** Moment entries dropped: unknown or repeated index, blank text, or no cited id of the session. */
  momentsDropped: number;
  /** Cited event ids that are not events of the session. */
  citationsDropped: number;
  /** UUID-shaped tokens inside texts that are not events of the session (replaced). */
  idsInTextRemoved: number;
}

/**
 * Writes the model's texts into a copy of the deterministic draft. The model may change only
 * `summary.text` and each story moment's `text`, and may add event ids of the session to a moment's
 * `eventIds` (after the deterministic ones, which stay). Everything else — figures, input, outcome,
 * moment kinds/times/titles, action items, recommendations and their evidence — is copied unchanged.
 *
 * Citation rule: a cited id that is not in `sessionEventIds` is dropped; a moment entry left with no
 * valid id is dropped (that moment keeps its deterministic text). Only moments whose index was in the
 * facts (`narratable`) are accepted. `generator` becomes `llm:<model>`.
 */
export function applyNarrative(
  draft: IntelligenceDraft,
  reply: NarrativeReply,
  sessionEventIds: ReadonlySet<string>,
  narratable: ReadonlySet<number>,
  model: string,
): { draft: IntelligenceDraft; stats: NarrativeStats } {
  const stats: NarrativeStats = {
    momentsNarrated: 0,
    momentsDropped: 0,
    citationsDropped: 0,
    idsInTextRemoved: 0,
  };
  const scrub = (text: string, max: number): string =>
    clip(
      text.trim().replace(UUID_RE, (id) => {
        if (sessionEventIds.has(id)) return id;
        stats.idsInTextRemoved += 1;
        return '[unknown event]';
      }),
      max,
    );

  const story: StoryMoment[] = draft.story.map((m) => ({ ...m, eventIds: [...m.eventIds] }));
  const seen = new Set<number>();
  for (const entry of reply.moments) {
    const target = story[entry.index];
    if (!target || !narratable.has(entry.index) || seen.has(entry.index) || entry.text.trim() === '') {
      stats.momentsDropped += 1;
      continue;
    }
    const valid: string[] = [];
    for (const id of entry.eventIds) {
      if (sessionEventIds.has(id)) {
        if (!valid.includes(id)) valid.push(id);
      } else stats.citationsDropped += 1;
    }
    if (valid.length === 0) {
      stats.momentsDropped += 1;
      continue;
    }
    seen.add(entry.index);
    target.text = scrub(entry.text, MAX_MOMENT_TEXT_CHARS);
    for (const id of valid) if (!target.eventIds.includes(id)) target.eventIds.push(id);
    stats.momentsNarrated += 1;
  }

  return {
    draft: {
      summary: { ...draft.summary, text: scrub(reply.summary, MAX_SUMMARY_CHARS) },
      story,
      actionItems: draft.actionItems,
      recommendations: draft.recommendations,
      generator: `llm:${model}`,
    },
    stats,
  };
}
