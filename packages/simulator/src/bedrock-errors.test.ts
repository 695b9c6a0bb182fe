import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeEventStream } from './aws-event-stream.test-helper.ts';
import {
  bedrockErrorReply,
  bedrockExceptionMessage,
  bedrockExceptionOf,
  bedrockStreamExceptionOf,
} from './bedrock-errors.ts';
import { GOLDEN_CONTEXT } from './golden-file.test-helper.ts';

describe('bedrock errors', () => {
  test('each status gets the exception Bedrock answers it with, in x-amzn-errortype and a {message} body', () => {
    const expected: Record<number, string> = {
      400: 'ValidationException',
      401: 'UnrecognizedClientException',
      403: 'AccessDeniedException',
      404: 'ResourceNotFoundException',
      408: 'ModelTimeoutException',
      413: 'ValidationException',
      424: 'ModelErrorException',
      429: 'ThrottlingException',
      500: 'InternalServerException',
      502: 'InternalServerException',
      503: 'ServiceUnavailableException',
      529: 'ServiceUnavailableException',
    };
    for (const [status, exception] of Object.entries(expected)) {
      assert.equal(bedrockExceptionOf(Number(status)), exception, `status ${status}`);
    }
    const reply = bedrockErrorReply({ kind: 'error', status: 429, headersDelayMs: 0 }, GOLDEN_CONTEXT);
    assert.equal(reply.status, 429);
    assert.deepEqual(Object.keys(reply.headers), ['content-type', 'x-amzn-requestid', 'x-amzn-errortype']);
    assert.equal(reply.headers['content-type'], 'application/json');
    assert.equal(
      reply.headers['x-amzn-errortype'],
      'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/',
    );
    assert.equal(reply.body, '{"message":"Too many requests, please wait before trying again."}');
    const custom = bedrockErrorReply(
      { kind: 'error', status: 400, headersDelayMs: 0, message: 'bad' },
      GOLDEN_CONTEXT,
    );
    assert.equal(custom.body, '{"message":"bad"}');
  });

  test('an in-stream error is named by what its type says, a model stream error otherwise', () => {
    const expected: Record<string, string> = {
      rate_limited: 'ThrottlingException',
      overloaded: 'ServiceUnavailableException',
      internal: 'InternalServerException',
      server_error: 'InternalServerException',
      invalid_request: 'ValidationException',
      timeout: 'ModelTimeoutException',
      model_error: 'ModelStreamErrorException',
    };
    for (const [errorType, exception] of Object.entries(expected)) {
      assert.equal(bedrockStreamExceptionOf(errorType), exception, errorType);
    }
    const [message] = decodeEventStream(bedrockExceptionMessage('model_error'));
    assert.deepEqual(message?.headers, {
      ':exception-type': 'modelStreamErrorException',
      ':content-type': 'application/json',
      ':message-type': 'exception',
    });
    assert.deepEqual(JSON.parse(message?.payload ?? ''), {
      message: 'The system encountered an unexpected error during processing. Try your request again.',
    });
  });
});
