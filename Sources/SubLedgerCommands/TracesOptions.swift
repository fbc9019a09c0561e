import ArgumentParser
import Logging
import OTel
import ServiceLifecycle
import SubLedgerUseCases
import Synchronization

/// `--traces off|otlp`, shared by `serve` and `poll`: OpenTelemetry traces exported over OTLP/HTTP (protobuf), off by
/// default (docs/guides/operate.md, "Traces"). Where they go, the service name and the sampler are the standard `OTEL_*`
/// variables swift-otel reads (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, ...).
struct TracesOptions: ParsableArguments {
    @Option(
        name: .customLong("traces"),
        help: """
            off|otlp: export OpenTelemetry traces over OTLP/HTTP to the collector OTEL_EXPORTER_OTLP_ENDPOINT names \
            (env SUBLEDGER_TRACES, default off).
            """)
    var traces: String?

    /// Whether the flag, else the environment, turns traces on; an unknown value is refused, and so is an OTLP
    /// protocol other than HTTP's (swift-otel stops the process on gRPC, which is not built in).
    func isOn(environment: [String: String]) throws -> Bool {
        guard let value = traces ?? environment[EnvironmentVariable.traces], !value.isEmpty else { return false }
        switch value.lowercased() {
        case "off": return false
        case "otlp": break
        default:
            throw ValidationError(
                "unknown traces setting '\(value)' (--traces, \(EnvironmentVariable.traces)): use off or otlp")
        }
        // The signal's own variable wins over the shared one, as the OpenTelemetry specification says.
        for name in ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] {
            guard let protocolName = environment[name], !protocolName.isEmpty else { continue }
            guard ["http/protobuf", "http/json"].contains(protocolName) else {
                throw ValidationError(
                    "\(name)=\(protocolName) is not supported: traces are exported over http/protobuf or http/json")
            }
            break
        }
        return true
    }

    /// Installs the OpenTelemetry tracer as the process's tracer and returns the service that batches and exports its
    /// spans (run it beside the others until they have stopped). Only with traces on: off, every span is the tracing
    /// API's no-op one. The tracer is installed wrapped, so that no span keeps a secret (`TraceResource.install`); the
    /// resource names SubLedger's version and the SDK besides the service (`TraceResource.attributes`).
    func bootstrap(environment: [String: String], logLevel: Logger.Level) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "subledger"
        configuration.resourceAttributes = TraceResource.attributes
        // Traces only: metrics are Prometheus's (/metrics) and logs go where --log-format says.
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        var logger = Logger(label: "subledger.traces")
        logger.logLevel = logLevel
        configuration.diagnosticLogger = .custom(logger)
        // swift-log's and the tracing API's bootstraps are once per process: a second `serve` in one process (a
        // test's) is refused rather than crashing.
        let first = Self.installed.withLock { installed in
            defer { installed = true }
            return !installed
        }
        guard first else { throw ValidationError("traces are already installed in this process") }
        // The OTEL_* variables of the process's environment override these settings (the OpenTelemetry
        // specification's environment variables); `environment` decided above whether traces are on at all.
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        TraceResource.install(backend.factory)
        return backend.service
    }

    private static let installed = Mutex(false)
}
