export { type AnthropicWriterOptions, anthropicErrorReply, anthropicWriter } from './anthropic-writer.ts';
export { eventStreamMessage } from './aws-event-stream.ts';
export { bedrockConverseWriter } from './bedrock-converse-writer.ts';
export {
  type BedrockException,
  bedrockErrorReply,
  bedrockExceptionMessage,
  bedrockExceptionOf,
  bedrockStreamExceptionOf,
} from './bedrock-errors.ts';
export { bedrockInvokeWriter } from './bedrock-invoke-writer.ts';
export { type CohereWriterOptions, cohereErrorReply, cohereV1Writer, cohereWriter } from './cohere-writer.ts';
export { type CodedPieces, type Coding, codePieces, negotiateCoding } from './content-coding.ts';
export { type DueTimer, runAt } from './due-timer.ts';
export { exampleScript } from './example-script.ts';
export { type GeminiWriterOptions, geminiErrorReply, geminiWriter } from './gemini-writer.ts';
export { DEFAULT_KNOBS, LaneKnobError, type LaneKnobs, laneKnobs, scaledKnobs } from './lane-knobs.ts';
export {
  isProfileName,
  type LaneProfile,
  laneProfile,
  PROFILE_NAMES,
  type ProfileName,
} from './lane-profiles.ts';
export { type LaneResponder, laneResponder } from './lane-responder.ts';
export { type LaneConditions, type LaneSample, type LaneTraits, sampleLane } from './lane-sampler.ts';
export { LOCALHOST_TLS } from './localhost-tls.ts';
export { type Milestone, type Milestones, scheduledMilestones, sentMilestones } from './milestones.ts';
export { ollamaErrorReply, ollamaWriter } from './ollama-writer.ts';
export {
  OPENROUTER_DIALECT,
  type OpenAIChatWriterOptions,
  openaiChatWriter,
  openaiErrorReply,
} from './openai-chat-writer.ts';
export { type OpenAIResponsesWriterOptions, openaiResponsesWriter } from './openai-responses-writer.ts';
export { ENDPOINT_PATHS, type ProviderRoute, routeOf } from './provider-route.ts';
export {
  type Ending,
  type ProviderRequest,
  type ProviderServer,
  type ProviderServerOptions,
  type RequestRecord,
  type Respond,
  type SentPiece,
  startProviderServer,
} from './provider-server.ts';
export {
  type ErrorScript,
  type FinishReason,
  type NoAnswerScript,
  OUTPUT_KINDS,
  type Piece,
  type PieceKind,
  type ProviderErrorType,
  type ResetScript,
  type Script,
  ScriptError,
  type StreamScript,
  scheduleOf,
  scriptUsage,
  type Usage,
  validateScript,
} from './script.ts';
export { type Random, seededRandom, seedOf } from './seeded-random.ts';
export type { LineEnding } from './sse.ts';
export { type LaneServer, type StartLaneOptions, startLane } from './start-lane.ts';
export {
  type HttpReply,
  WIRE_FORMATS,
  type WireFormat,
  WireFormatError,
  type WirePiece,
  type WireWriter,
  type WriteContext,
  wirePieceBytes,
} from './wire-format.ts';
export { defaultWriters } from './writers.ts';
