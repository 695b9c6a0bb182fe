import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exampleScript } from './example-script.ts';
import { contentOf } from './script-content.ts';

describe('contentOf', () => {
  test('joins the deltas of each block, keeps blocks in order, and the stop reason', () => {
    assert.deepEqual(contentOf(exampleScript()), {
      blocks: [
        { kind: 'reasoning', text: 'The user wants the weather. Call the tool.' },
        { kind: 'tool-call', call: 0, name: 'get_weather', args: '{"city":"Paris","unit":"celsius"}' },
        { kind: 'text', text: 'It is sunny in Paris.' },
      ],
      finish: 'stop',
    });
  });
});
