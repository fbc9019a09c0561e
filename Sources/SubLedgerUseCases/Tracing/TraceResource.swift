import Tracing

/// What the process's spans say of the service that made them (the OpenTelemetry resource), and the installation of
/// the process's tracer (docs/guides/operate.md, "Traces").
public enum TraceResource {
    /// SubLedger's version, as its traces report it (`service.version`).
    public static let serviceVersion = "0.1.0"

    /// The SDK that records and exports the spans: swift-otel (the Swift Server Workgroup's OpenTelemetry SDK; the
    /// name `opentelemetry` is reserved for the OpenTelemetry project's own SDKs) at the version Package.swift requires.
    public static let sdkName = "swift-otel"
    public static let sdkVersion = "1.6.0"

    /// The resource's attributes besides `service.name` (which the tracer sets from its configuration). The operator's
    /// `OTEL_RESOURCE_ATTRIBUTES` are merged over these.
    public static let attributes: [String: String] = [
        "service.version": serviceVersion,
        "telemetry.sdk.name": sdkName,
        "telemetry.sdk.language": "swift",
        "telemetry.sdk.version": sdkVersion,
    ]

    /// Installs `tracer` as the process's tracer, every span's attributes redacted (`RedactingTracer`). Once per
    /// process, before anything makes an HTTP client (AsyncHTTPClient takes the process's tracer when it is made).
    public static func install(_ tracer: some Tracer) {
        InstrumentationSystem.bootstrap(RedactingTracer(tracer))
    }
}
