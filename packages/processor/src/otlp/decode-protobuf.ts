import { CountReader } from './count-reader.ts';
import { OtlpDecodeError } from './decode-error.ts';
import type { DecodedRequest } from './decoded-request.ts';
import { emptyBatch, type MetricsBatch } from './histogram-point.ts';
import { exportMetricsServiceRequest } from './otlp-schema.ts';
import { type MetricFilter, readRequestPoints } from './read-points.ts';

/**
 * Decodes a binary protobuf ExportMetricsServiceRequest (OTLP/HTTP `application/x-protobuf`).
 * A body that is not valid protobuf for the schema throws `OtlpDecodeError`: nothing in it can be
 * trusted. Points that decode but break the data model are rejected one by one in the batch.
 */
export function decodeProtobufRequest(body: Uint8Array, wanted?: MetricFilter): MetricsBatch {
  let request: DecodedRequest;
  try {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    request = exportMetricsServiceRequest.decode(new CountReader(bytes)) as DecodedRequest;
  } catch (error) {
    throw new OtlpDecodeError(
      `body is not a protobuf ExportMetricsServiceRequest: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const batch = emptyBatch();
  readRequestPoints(request, batch, wanted);
  return batch;
}
