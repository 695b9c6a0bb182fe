// Local provider lanes for the end-to-end tests: simulator profiles at a faster time scale, each in
// its own wire format, every text and reasoning delta carrying the response canary. They run in the
// test process, so `server.sends` says exactly when each milestone was sent, on this process's clock.
import {
  type LaneKnobs,
  laneProfile,
  type Piece,
  type ProviderServer,
  type RequestRecord,
  type Script,
  scaledKnobs,
  startLane,
  startProviderServer,
} from '@lanewatch/simulator';
import type { Canaries } from './canaries.ts';

export type LaneFormat = 'openai-chat' | 'gemini' | 'anthropic';

export interface LaneSpec {
  readonly lane: string;
  readonly profile: string;
  readonly format: LaneFormat;
  readonly model: string;
  /** Knobs over the profile's, at the profile's own time scale. */
  readonly knobs?: Partial<LaneKnobs>;
  readonly seed?: string;
}

/** One call as the app sends it: everything a provider SDK would put on the wire. */
export interface ProviderCall {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface ProviderLane {
  readonly spec: LaneSpec;
  readonly server: ProviderServer;
  /** The lane map's prefix for this lane (origin + the format's API root). */
  readonly prefix: string;
  readonly call: ProviderCall;
}

function withResponseCanary(script: Script, canary: string): Script {
  if (script.kind !== 'stream') return script;
  const pieces = script.pieces.map((piece): Piece => {
    if (piece.kind === 'text') return { ...piece, text: `${canary} ` };
    if (piece.kind === 'reasoning') return { ...piece, text: `${canary} ` };
    return piece;
  });
  return { ...script, pieces };
}

function callOf(spec: LaneSpec, origin: string, canaries: Canaries): { prefix: string; call: ProviderCall } {
  const prompt = `Summarise this for me: ${canaries.prompt}`;
  switch (spec.format) {
    case 'openai-chat':
      // Azure-style: the API version (here the query canary) rides in the query string.
      return {
        prefix: `${origin}/v1`,
        call: {
          url: `${origin}/v1/chat/completions?api-version=${canaries.query}`,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${canaries.apiKey}` },
          body: JSON.stringify({
            model: spec.model,
            stream: true,
            stream_options: { include_usage: true },
            messages: [{ role: 'user', content: prompt }],
          }),
        },
      };
    case 'gemini':
      // Gemini takes its key in the query string as often as in a header.
      return {
        prefix: `${origin}/v1beta`,
        call: {
          url: `${origin}/v1beta/models/${spec.model}:streamGenerateContent?alt=sse&key=${canaries.query}`,
          headers: { 'content-type': 'application/json', 'x-goog-api-key': canaries.apiKey },
          body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: prompt }] }] }),
        },
      };
    case 'anthropic':
      return {
        prefix: `${origin}/v1`,
        call: {
          url: `${origin}/v1/messages`,
          headers: {
            'content-type': 'application/json',
            'x-api-key': canaries.apiKey,
            'anthropic-version': '2023-06-01',
          },
          body: JSON.stringify({
            model: spec.model,
            max_tokens: 256,
            stream: true,
            messages: [{ role: 'user', content: prompt }],
          }),
        },
      };
  }
}

export async function startProviderLanes(
  specs: readonly LaneSpec[],
  options: { canaries: Canaries; timeScale: number },
): Promise<ProviderLane[]> {
  const lanes: ProviderLane[] = [];
  try {
    for (const spec of specs) {
      const profile = laneProfile(spec.profile, spec.knobs);
      // startLane draws the lane's seeded scripts; the server that plays them wraps each one with the
      // response canary (startLane has no hook for that), so the lane's own server is closed at once.
      const drawn = await startLane(profile.name, {
        seed: spec.seed ?? spec.lane,
        knobs: { ...spec.knobs, ...scaledKnobs(profile.knobs, options.timeScale) },
      });
      await drawn.server.close();
      const server = await startProviderServer({
        respond: async (request) =>
          withResponseCanary(await drawn.responder.respond(request), options.canaries.response),
      });
      lanes.push({ spec, server, ...callOf(spec, server.url, options.canaries) });
    }
  } catch (error) {
    await closeProviderLanes(lanes);
    throw error;
  }
  return lanes;
}

export async function closeProviderLanes(lanes: readonly ProviderLane[]): Promise<void> {
  await Promise.all(lanes.map((lane) => lane.server.close().catch(() => undefined)));
}

/** `LANEWATCH_LANE_MAP` for the app: each lane by its server's prefix. */
export function laneMapOf(lanes: readonly ProviderLane[]): string {
  return lanes.map((lane) => `${lane.spec.lane}=${lane.prefix}`).join(',');
}

export type SentMilestone = 'headers' | 'first_chunk' | 'first_output' | 'first_text' | 'end';

/**
 * When the server sent each milestone of a call, in seconds from the request's arrival (the
 * simulator's `sentMilestones` rule: first bytes of the body, first output or text bytes, the end).
 */
export function sentSeconds(record: RequestRecord): Partial<Record<SentMilestone, number>> {
  const from = record.request.arrivedAt;
  const written = record.pieces.filter((piece) => piece.bytes > 0);
  const at = (time: number | undefined) => (time === undefined ? undefined : (time - from) / 1000);
  const result: Partial<Record<SentMilestone, number | undefined>> = {
    headers: at(record.headersSentAt),
    first_chunk: at(written[0]?.sentAt),
    first_output: at(written.find((p) => ['text', 'reasoning', 'tool-call'].includes(p.kind))?.sentAt),
    first_text: at(written.find((p) => p.kind === 'text')?.sentAt),
    end: record.ending === 'hang' || record.ending === 'no-answer' ? undefined : at(record.endedAt),
  };
  return Object.fromEntries(Object.entries(result).filter(([, v]) => v !== undefined)) as Partial<
    Record<SentMilestone, number>
  >;
}

/** Calls the server played to their end with a stream (what the instrumentation calls outcome ok). */
export function completeStreams(server: ProviderServer): RequestRecord[] {
  return server.sends.filter((record) => record.ending === 'complete' && record.script.kind === 'stream');
}
