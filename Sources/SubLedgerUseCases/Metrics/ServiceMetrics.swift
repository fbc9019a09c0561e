import Metrics
import Prometheus

/// The process's Prometheus registry, and the swift-metrics backend that writes into it.
///
/// swift-metrics has one factory per process and `MetricsSystem.bootstrap` may run only once, while a
/// process may build many applications (the tests build one per test). So the registry is process-wide,
/// created and bootstrapped together on first use, and every application scrapes the same registry.
public enum ServiceMetrics {
    /// Histogram buckets for durations: HTTP requests, calls to the stores (1 ms to 10 s).
    static let durationBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// The registry behind `MetricsSystem`, bootstrapped the first time it is read.
    public static var registry: PrometheusCollectorRegistry { shared }

    /// Makes the registry the backend of swift-metrics; calling it again does nothing.
    ///
    /// Call it before anything creates a swift-metrics `Counter` or `Timer` that should be exported:
    /// a metric created before the bootstrap stays on the no-op backend.
    public static func bootstrap() {
        _ = shared
    }

    // A static `let` is initialized exactly once, thread-safely: that is the guard around `bootstrap`.
    private static let shared: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = durationBuckets
        MetricsSystem.bootstrap(factory)
        // Exported at 0 from the start, not from their first event.
        MetricDeclarations.declareShared()
        return registry
    }()
}
