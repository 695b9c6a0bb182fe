/** A request body that cannot be read as an ExportMetricsServiceRequest at all (HTTP 400). */
export class OtlpDecodeError extends Error {
  override readonly name = 'OtlpDecodeError';
}
