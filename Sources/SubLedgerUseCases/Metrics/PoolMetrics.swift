import PostgresLibPQ
import Prometheus

/// Gauges of a database pool (open, in use, idle connections and waiting callers), sampled at each scrape.
package struct PoolMetrics: Sendable {
    let pool: PostgresPool
    private let open: Gauge
    private let inUse: Gauge
    private let idle: Gauge
    private let waiters: Gauge
    private let maximum: Gauge

    package init(pool: PostgresPool, registry: PrometheusCollectorRegistry) {
        self.pool = pool
        open = registry.makeGauge(
            descriptor: Self.descriptor("connections_open", "Database connections open in this process"))
        inUse = registry.makeGauge(
            descriptor: Self.descriptor("connections_in_use", "Database connections lent out to a unit of work"))
        idle = registry.makeGauge(
            descriptor: Self.descriptor("connections_idle", "Open database connections waiting for work"))
        waiters = registry.makeGauge(
            descriptor: Self.descriptor("waiters", "Callers waiting for a database connection"))
        maximum = registry.makeGauge(
            descriptor: Self.descriptor("connections_max", "The most database connections this process opens"))
    }

    /// `subledger_db_pool_<name>`.
    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "subledger", subsystem: "db_pool", metricName: name, unitName: "", helpText: help)
    }

    /// Copies the pool's current statistics into the gauges.
    package func sample() {
        let statistics = pool.statistics
        open.set(Double(statistics.openConnections))
        inUse.set(Double(statistics.inUse))
        idle.set(Double(statistics.idle))
        waiters.set(Double(statistics.waiters))
        maximum.set(Double(statistics.maxConnections))
    }
}
