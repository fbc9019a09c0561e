import Foundation
import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore

/// Fills the ledger through `LedgerStore.apply`, the path the service writes by, so every row, jsonb snapshot
/// and binding is exactly what the service would have stored.
enum BenchLedger {
    static func load(accounts: Int, renewals: Int) async throws {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else {
            throw BenchError("set DATABASE_URL")
        }
        var logger = Logger(label: "subledger-bench")
        logger.logLevel = .warning
        let workers = 16
        var configuration = try PostgresConfiguration(connectionString: url, defaultApplicationName: "subledger-bench")
        configuration.maxConnections = workers
        let pool = PostgresPool(configuration: configuration, logger: logger)
        let store = LedgerStore(pool: pool)
        // The app's sealed secrets (a Google Play listing's service account key) open with SUBLEDGER_SECRET_KEY.
        var keys: [SecretKey] = []
        if let text = ProcessInfo.processInfo.environment["SUBLEDGER_SECRET_KEY"], !text.isEmpty {
            keys.append(try SecretKey(base64: text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let catalog = CatalogStore(pool: pool, secretKeys: try SecretKeyring(keys: keys))
        guard let app = try await catalog.app(bundleID: BenchShape.bundleID) else {
            throw BenchError(
                "no app \(BenchShape.bundleID): run `subledger-bench catalog | subledger catalog apply -` first")
        }

        let now = Instant.systemNow()
        let clock = ContinuousClock()
        let started = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    for index in stride(from: worker, to: accounts, by: workers) {
                        try await store.apply(input(index, renewals: renewals, now: now), app: app, now: now)
                        if index % 10_000 == 0, index > 0 {
                            print("  \(index) accounts, \(clock.now - started)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "loaded \(accounts) accounts, \(accounts * (renewals + 1)) transactions in \(Int(seconds)) s "
                + "(\(Int(Double(accounts) / seconds)) applies/s in process)")
        // The reports' aggregates, as `subledger poll` would have kept them: the ledger starts caught up.
        let projecting = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<workers { group.addTask { _ = try await ReportProjector(pool: pool).projectAll() } }
            try await group.waitForAll()
        }
        print("projected the reports' aggregates in \(clock.now - projecting)")
        await pool.shutdown()
    }

    /// Runs the report projector for `seconds` (what `subledger poll` runs), sampling every second how far the
    /// reports are behind (`ReportFreshness`); prints the changes projected and the lag's median and maximum.
    static func project(seconds: Int) async throws {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty else {
            throw BenchError("set DATABASE_URL")
        }
        var logger = Logger(label: "subledger-bench")
        logger.logLevel = .warning
        var configuration = try PostgresConfiguration(connectionString: url, defaultApplicationName: "subledger-bench")
        configuration.maxConnections = 2
        let pool = PostgresPool(configuration: configuration, logger: logger)
        let projector = ReportProjector(pool: pool)
        let clock = ContinuousClock()
        let end = clock.now + .seconds(seconds)
        let sampling = Task {
            var lags: [Double] = []
            var depths: [Int] = []
            while clock.now < end {
                let freshness = try await pool.withConnection { connection in
                    try ReportFreshness.read(scope: .everything, now: Instant.systemNow(), on: connection)
                }
                lags.append(freshness.lag(at: Instant.systemNow()))
                depths.append(freshness.pendingChanges)
                try await Task.sleep(for: .seconds(1))
            }
            return (lags, depths)
        }
        var projected = ReportProjector.Progress()
        while clock.now < end {
            let batch = try await projector.projectBatch()
            projected.changes += batch.changes
            projected.chains += batch.chains
            if batch.changes == 0 { try await Task.sleep(for: .seconds(1)) }
        }
        let (lags, depths) = try await sampling.value
        let sorted = lags.sorted()
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        print(
            "projection: \(projected.changes) changes, \(projected.chains) chains in \(seconds) s; lag median "
                + String(format: "%.1f", median) + " s, max " + String(format: "%.1f", sorted.last ?? 0)
                + " s; queue depth max \(depths.max() ?? 0), at the end \(depths.last ?? 0)")
        await pool.shutdown()
    }

    /// What account `index`'s device submits: the purchase and its renewals, the latest one current.
    static func input(_ index: Int, renewals: Int, now: Instant) throws -> LedgerInput {
        let purchase = BenchShape.purchase(index, renewals: renewals, now: now)
        let original = BenchShape.chainID(index)
        let transactions = (0...renewals).map { period in
            let start = purchase.adding(milliseconds: Int64(period) * BenchShape.period)
            return Transaction(
                transactionID: BenchShape.transactionID(index, period: period), chainID: original,
                productID: BenchShape.productID, bundleID: BenchShape.bundleID, purchaseDate: start,
                originalPurchaseDate: purchase, expiresDate: start.adding(milliseconds: BenchShape.period),
                webOrderLineItemID: "w\(BenchShape.transactionID(index, period: period))",
                subscriptionGroupID: BenchShape.groupID, environment: .production, source: .signedTransaction,
                signedDate: start)
        }
        return LedgerInput(
            kind: .signedTransaction, bundleID: BenchShape.bundleID, environment: .production,
            submitter: try AccountID(BenchShape.account(index)), transactions: transactions, observedAt: now)
    }
}
