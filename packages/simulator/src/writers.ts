import { anthropicWriter } from './anthropic-writer.ts';
import { bedrockConverseWriter } from './bedrock-converse-writer.ts';
import { bedrockInvokeWriter } from './bedrock-invoke-writer.ts';
import { cohereV1Writer, cohereWriter } from './cohere-writer.ts';
import { geminiWriter } from './gemini-writer.ts';
import { ollamaWriter } from './ollama-writer.ts';
import { openaiChatWriter } from './openai-chat-writer.ts';
import { openaiResponsesWriter } from './openai-responses-writer.ts';
import type { WireFormat, WireWriter } from './wire-format.ts';

/** One writer per format, each with its provider's defaults. */
export function defaultWriters(): Record<WireFormat, WireWriter> {
  return {
    'openai-chat': openaiChatWriter(),
    'openai-responses': openaiResponsesWriter(),
    anthropic: anthropicWriter(),
    gemini: geminiWriter(),
    ollama: ollamaWriter(),
    cohere: cohereWriter(),
    'cohere-v1': cohereV1Writer(),
    'bedrock-invoke': bedrockInvokeWriter(),
    'bedrock-converse': bedrockConverseWriter(),
  };
}
