import Hummingbird
import NIOCore
import Prometheus
import SubLedgerUseCases

/// `GET /metrics`: every metric of the process in the Prometheus text exposition format (no API key).
struct MetricsController: Sendable {
    let registry: PrometheusCollectorRegistry
    let poolMetrics: PoolMetrics

    func register(on router: some RouterMethods<SubLedgerRequestContext>) {
        router.get("/metrics") { _, _ in scrape() }
    }

    func scrape() -> Response {
        // The pool is sampled now rather than by a timer, so a scrape always sees the current gauges.
        poolMetrics.sample()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
    }
}
