/**
 * Where undici publishes no body-chunk diagnostics channel (undici < 7.11: Node 22's bundled
 * undici 6), body chunks are seen by a handler placed in front of the global dispatcher's
 * `dispatch`. It forwards every call unchanged to the original handler, with the original as
 * `this` (a wrapper made with `Object.create(handler)` breaks fetch), and returns what it returns,
 * so bytes, backpressure (`onData` returning false) and errors are untouched.
 */

export interface ChunkSink {
  /** A response body chunk, before the application's handler sees it. Must not throw. */
  onBodyChunk(handler: PassThroughHandler, chunk: Uint8Array): void;
  /** A request body chunk as sent (for the model name and the size class). Must not throw. */
  onBodySent(handler: PassThroughHandler, chunk: Uint8Array): void;
}

type Fn = (...args: unknown[]) => unknown;
type LegacyHandler = Record<string, unknown> & { onData?: Fn; onBodySent?: Fn };

/** Forwards the legacy handler API (onConnect … onComplete) that undici 6 calls. */
export class PassThroughHandler {
  readonly #target: LegacyHandler;
  readonly #sink: ChunkSink;

  constructor(target: LegacyHandler, sink: ChunkSink) {
    this.#target = target;
    this.#sink = sink;
  }

  onConnect(...args: unknown[]): unknown {
    return (this.#target.onConnect as Fn).apply(this.#target, args);
  }
  onError(...args: unknown[]): unknown {
    return (this.#target.onError as Fn).apply(this.#target, args);
  }
  onUpgrade(...args: unknown[]): unknown {
    return (this.#target.onUpgrade as Fn | undefined)?.apply(this.#target, args);
  }
  onResponseStarted(...args: unknown[]): unknown {
    return (this.#target.onResponseStarted as Fn | undefined)?.apply(this.#target, args);
  }
  onHeaders(...args: unknown[]): unknown {
    return (this.#target.onHeaders as Fn).apply(this.#target, args);
  }
  onData(chunk: Uint8Array): unknown {
    this.#sink.onBodyChunk(this, chunk);
    return (this.#target.onData as Fn).call(this.#target, chunk);
  }
  onComplete(...args: unknown[]): unknown {
    return (this.#target.onComplete as Fn).apply(this.#target, args);
  }
  onBodySent(chunk: Uint8Array, ...rest: unknown[]): unknown {
    this.#sink.onBodySent(this, chunk);
    return this.#target.onBodySent?.call(this.#target, chunk, ...rest);
  }
  onRequestSent(...args: unknown[]): unknown {
    return (this.#target.onRequestSent as Fn | undefined)?.apply(this.#target, args);
  }
}

interface DispatcherLike {
  dispatch: (options: unknown, handler: unknown) => unknown;
}

const WRAPPED = Symbol('lanewatch.passThrough');

/**
 * Puts the pass-through in front of `dispatcher.dispatch` (an own property shadowing the
 * prototype's method) and returns the function that takes it away. Handlers that speak undici 7's
 * new API (`onRequestStart` …) are passed as they are: the undici that calls them publishes chunks.
 */
export function passThroughDispatch(dispatcher: DispatcherLike, sink: ChunkSink): () => void {
  const own = Object.hasOwn(dispatcher, 'dispatch');
  const current = dispatcher.dispatch as DispatcherLike['dispatch'] & { [WRAPPED]?: true };
  if (current[WRAPPED]) return () => {};
  const original = current;
  const wrapped = function (this: unknown, options: unknown, handler: unknown): unknown {
    const h = handler as LegacyHandler | null;
    if (
      h === null ||
      typeof h !== 'object' ||
      typeof h.onData !== 'function' ||
      typeof h.onRequestStart === 'function'
    ) {
      return original.call(this, options, handler);
    }
    return original.call(this, options, new PassThroughHandler(h, sink));
  } as DispatcherLike['dispatch'] & { [WRAPPED]?: true };
  wrapped[WRAPPED] = true;
  dispatcher.dispatch = wrapped;
  return () => {
    if (dispatcher.dispatch !== wrapped) return;
    if (own) dispatcher.dispatch = original;
    else delete (dispatcher as Partial<DispatcherLike>).dispatch;
  };
}
