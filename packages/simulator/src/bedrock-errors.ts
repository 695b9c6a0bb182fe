import { eventStreamMessage } from './aws-event-stream.ts';
import { bedrockRequestId } from './bedrock-frames.ts';
import type { ErrorScript } from './script.ts';
import type { HttpReply, WriteContext } from './wire-format.ts';

/**
 * Amazon Bedrock's errors (the restJson1 protocol). Before the stream: the HTTP status,
 * `x-amzn-errortype: <Exception>:<namespace>` and a JSON body `{"message": …}`. Inside a stream: an
 * event stream message of type `exception` whose `:exception-type` is the exception's member of the
 * response stream union (`throttlingException`), with the same body. Nothing follows it.
 */
export type BedrockException =
  | 'AccessDeniedException'
  | 'InternalServerException'
  | 'ModelErrorException'
  | 'ModelStreamErrorException'
  | 'ModelTimeoutException'
  | 'ResourceNotFoundException'
  | 'ServiceUnavailableException'
  | 'ThrottlingException'
  | 'UnrecognizedClientException'
  | 'ValidationException';

const MESSAGE: Readonly<Record<BedrockException, string>> = {
  AccessDeniedException: "You don't have access to the model with the specified model ID.",
  InternalServerException:
    'The system encountered an unexpected error during processing. Try your request again.',
  ModelErrorException: 'The model returned an error. Try your request again.',
  ModelStreamErrorException:
    'The system encountered an unexpected error during processing. Try your request again.',
  ModelTimeoutException: 'Model has timed out in processing the request. Try your request again.',
  ResourceNotFoundException: 'The provided model identifier is invalid.',
  ServiceUnavailableException: 'Bedrock is unable to process your request.',
  ThrottlingException: 'Too many requests, please wait before trying again.',
  UnrecognizedClientException: 'The security token included in the request is invalid.',
  ValidationException: 'Malformed input request, please reformat your input and try again.',
};

/** The namespace real Bedrock appends to `x-amzn-errortype` (SDKs keep what precedes the colon). */
const ERROR_TYPE_NAMESPACE = 'http://internal.amazon.com/coral/com.amazon.bedrock/';

/** The exception Bedrock answers a status with; a status it does not use gets the closest one. */
export function bedrockExceptionOf(status: number): BedrockException {
  switch (status) {
    case 400:
      return 'ValidationException';
    case 401:
      return 'UnrecognizedClientException';
    case 403:
      return 'AccessDeniedException';
    case 404:
      return 'ResourceNotFoundException';
    case 408:
    case 504:
      return 'ModelTimeoutException';
    case 424:
      return 'ModelErrorException';
    case 429:
      return 'ThrottlingException';
    case 503:
    case 529:
      return 'ServiceUnavailableException';
    default:
      return status >= 500 ? 'InternalServerException' : 'ValidationException';
  }
}

/**
 * The exception an in-stream error piece becomes, by what its error type says (rate limit,
 * overloaded, timeout, invalid request, server); anything else is a model stream error, Bedrock's
 * exception for a model that failed mid-stream.
 */
export function bedrockStreamExceptionOf(errorType: string): BedrockException {
  const type = errorType.toLowerCase();
  if (/rate|throttl/.test(type)) return 'ThrottlingException';
  if (/overload|unavailable/.test(type)) return 'ServiceUnavailableException';
  if (/time.?out/.test(type)) return 'ModelTimeoutException';
  if (/invalid|validation/.test(type)) return 'ValidationException';
  if (/internal|server/.test(type)) return 'InternalServerException';
  return 'ModelStreamErrorException';
}

/** A complete error response, as Bedrock sends one before any stream. */
export function bedrockErrorReply(script: ErrorScript, context: WriteContext): HttpReply {
  const exception = bedrockExceptionOf(script.status);
  return {
    status: script.status,
    headers: {
      'content-type': 'application/json',
      'x-amzn-requestid': bedrockRequestId(context),
      'x-amzn-errortype': `${exception}:${ERROR_TYPE_NAMESPACE}`,
    },
    body: JSON.stringify({ message: script.message ?? MESSAGE[exception] }),
  };
}

/** The `exception` message that ends a stream. */
export function bedrockExceptionMessage(errorType: string, message?: string): Uint8Array {
  const exception = bedrockStreamExceptionOf(errorType);
  return eventStreamMessage(
    {
      ':exception-type': exception.charAt(0).toLowerCase() + exception.slice(1),
      ':content-type': 'application/json',
      ':message-type': 'exception',
    },
    JSON.stringify({ message: message ?? MESSAGE[exception] }),
  );
}
