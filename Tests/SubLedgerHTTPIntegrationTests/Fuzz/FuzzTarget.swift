import AppStore
import AppStoreSimulator
import CatalogFile
import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases

/// SubLedger under fuzzing: a private schema with the test catalog and keys, appstore-sim in this process as
/// Apple, and `subledger serve` in a child process trusting both appstore-sim's root and a chain the
/// campaign signs with.
///
/// After each request it checks the edge's promises: the process is alive, no 5xx except a
/// 503 with `Retry-After`, every 4xx and 503 carries `{"error":{"code","message"}}`, and a rejected
/// request leaves the ledger as it was (only the raw-input tables `receipts` and `notifications` may grow).
final class FuzzTarget {
    static let requestTimeout: Double = 10
    /// How many crashes a campaign survives (restarting the child) before it stops; `SUBLEDGER_FUZZ_MAX_RESTARTS`.
    static let maxRestarts =
        ProcessInfo.processInfo.environment["SUBLEDGER_FUZZ_MAX_RESTARTS"].flatMap { Int($0) } ?? 25

    let settings: FuzzSettings
    let pool: PostgresPool
    let server: ServedSubLedger
    let corpus: FuzzCorpus
    private(set) var findings = FuzzFindings()
    private var ledger: [String] = []
    private var sent = 0
    private var restarts = 0

    private init(settings: FuzzSettings, pool: PostgresPool, server: ServedSubLedger, corpus: FuzzCorpus) {
        self.settings = settings
        self.pool = pool
        self.server = server
        self.corpus = corpus
    }

    /// The tables whose rows are the ledger; a rejected input changes none of them.
    static let ledgerTables: [(table: String, columns: String)] = [
        ("apps", "t.*"), ("products", "t.*"), ("product_entitlements", "t.*"), ("accounts", "t.*"),
        ("chains", "t.*"), ("chain_state_changes", "t.*"), ("transactions", "t.*"), ("ownership_bindings", "t.*"),
        ("orders", "t.*"), ("ledger_entries", "t.*"), ("api_keys", "t.key_id, t.revoked_at"),
    ]

    /// Runs `body` against a fresh target; stops the child and appstore-sim afterwards.
    static func run(settings: FuzzSettings, _ body: (FuzzTarget) async throws -> Void) async throws {
        let sim = try await AppStoreSimulator.start(
            .init(
                seed: settings.seed,
                notificationTimeout: EndToEndHarness.notificationTimeout,
                apps: [
                    AppDefinition(
                        bundleID: FuzzCorpus.bundleID, appAppleID: FuzzCorpus.appAppleID,
                        sharedSecret: FuzzCorpus.sharedSecret, gracePeriodDays: 16,
                        products: [
                            ProductDefinition(
                                productID: "pro.monthly", type: .autoRenewable, subscriptionGroupID: "g1",
                                duration: .oneMonth, price: 9_990, currency: "USD"),
                            ProductDefinition(productID: "coins.100", type: .consumable, price: 990, currency: "USD"),
                        ])
                ]))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "subledger-fuzz-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try await TestDatabase.withSchema(maxConnections: 2, template: .ledger) { schema, _, pool in
                let migrator = try Migrator.bundled(logger: TestDatabase.logger)
                try await migrator.migrate(pool)
                // Secrets at rest: the catalog's secrets are sealed with a key the served process reads from a file.
                let secretKey = SecretKey.generate()
                let keyFile = directory.appendingPathComponent("secret.key")
                try Data((secretKey.base64 + "\n").utf8).write(to: keyFile)
                let catalogStore = CatalogStore(pool: pool, secretKeys: try SecretKeyring(keys: [secretKey]))
                let (catalog, secrets) = try CatalogFile.read(ServiceHarness.catalogYAML)
                try await catalogStore.applyCatalog(catalog, secrets: secrets)
                let keys = APIKeys(store: APIKeyStore(pool: pool))
                let keyOne = try await keys.create(bundleID: FuzzCorpus.bundleID, name: "fuzz one").secret
                let keyTwo = try await keys.create(bundleID: ServiceHarness.appTwo, name: "fuzz two").secret
                let adminKey = try await keys.create(bundleID: nil, name: "fuzz admin").secret

                let chain = try SigningChain.generate(
                    notValidBefore: Instant(millisecondsSince1970: 1_600_000_000_000),
                    notValidAfter: Instant(millisecondsSince1970: 4_000_000_000_000))
                let chainRoot = directory.appendingPathComponent("fuzz-root.der")
                try Data(try SigningChain.der(chain.root)).write(to: chainRoot)
                let simRoot = directory.appendingPathComponent("sim-root.der")
                try Data(sim.rootCertificateDER).write(to: simRoot)

                let appleID = try sim.control.createAppleID(AppleIDDefinition(environment: .production)).appleID
                let bought = try await sim.control.purchase(
                    PurchaseRequest(appleID: appleID, bundleID: FuzzCorpus.bundleID, productID: "pro.monthly"))
                let corpus = FuzzCorpus(
                    keyOne: keyOne, keyTwo: keyTwo, adminKey: adminKey, signer: JWSSigner(chain: chain),
                    validReceipt: bought.receiptData, simSignedTransaction: bought.signedTransaction,
                    nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1_000))

                let server = ServedSubLedger(
                    arguments: [
                        "serve", "--database-url", try databaseURL(schema: schema), "--no-migrate", "--pool-size", "6",
                        "--log-level", "warning", "--secret-key-file", keyFile.path,
                        "--verify-receipt-url", sim.productionVerifyReceiptURL,
                        "--verify-receipt-sandbox-url", sim.sandboxVerifyReceiptURL,
                        "--server-api-url", sim.serverAPIBaseURL(.production),
                        "--server-api-sandbox-url", sim.serverAPIBaseURL(.sandbox),
                        "--no-trust-apple-root", "--apple-root", chainRoot.path, "--apple-root", simRoot.path,
                    ],
                    logURL: directory.appendingPathComponent("serve.log"))
                try await server.start()
                let target = FuzzTarget(settings: settings, pool: pool, server: server, corpus: corpus)
                do {
                    target.ledger = try await target.ledgerDigest()
                    try await body(target)
                    server.stop()
                } catch {
                    server.stop()
                    throw error
                }
            }
        } catch {
            try? await sim.shutdown()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        try await sim.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The test database's URL, with this schema as the search path.
    static func databaseURL(schema: String) throws -> String {
        let base = try TestDatabase.connectionString()
        let options = "-c search_path=\(schema)"
        if base.hasPrefix("postgres://") || base.hasPrefix("postgresql://") {
            let encoded = options.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? options
            return base + (base.contains("?") ? "&" : "?") + "options=" + encoded
        }
        return base + " options='\(options)'"
    }

    /// The raw-input tables: they grow with every input received, accepted or not, by design.
    static let rawInputTables = ["receipts", "notifications"]

    /// The ledger tables that differ between two digests. An `accounts` row may appear when a receipt was
    /// stored (the stored receipt references its account); nothing else may change.
    static func changes(from before: [String], to after: [String]) -> [String] {
        let tables = ledgerTables.count
        let receiptsGrew = before[tables] != after[tables]
        return (0..<tables).compactMap { index -> String? in
            guard before[index] != after[index] else { return nil }
            let table = ledgerTables[index].table
            if table == "accounts", receiptsGrew, rows(in: after[index]) > rows(in: before[index]) { return nil }
            return table
        }
    }

    private static func rows(in digest: String) -> Int {
        Int(digest.prefix { $0 != ":" }) ?? 0
    }

    /// A digest per ledger table, then the row count of each raw-input table.
    func ledgerDigest() async throws -> [String] {
        let columns = Self.ledgerTables.map { table in
            "(SELECT count(*)::text || ':' || md5(coalesce(string_agg((\(table.columns))::text, '|' ORDER BY (\(table.columns))::text), '')) FROM \(table.table) t)"
        }
        let raw = Self.rawInputTables.map { "(SELECT count(*)::text FROM \($0))" }
        let row = try await pool.query(PostgresQuery(unsafeSQL: "SELECT " + (columns + raw).joined(separator: ", ")))
            .single()
        return try (0..<(columns.count + raw.count)).map { try row.decode(String.self, at: $0) }
    }

    // MARK: Running

    /// Sends `request` and checks every promise; findings are recorded, never thrown.
    @discardableResult
    func send(_ request: FuzzRequest, timeout: Double = requestTimeout) async throws -> RawHTTPOutcome {
        let started = ContinuousClock.now
        let outcome = await RawHTTPConnection.exchange(port: server.port, request: request.wire, timeout: timeout)
        findings.time(route: request.route, started.duration(to: .now))
        sent += 1
        try await check(request, outcome)
        return outcome
    }

    /// Checks the answer to `request` (or its absence), the process, `/health/live` and the ledger.
    func check(
        _ request: FuzzRequest, _ outcome: RawHTTPOutcome, framing: Bool = false, timeout: Double = requestTimeout
    ) async throws {
        findings.count(route: request.route, outcome: outcome.summary)
        func finding(_ observed: String) {
            findings.record(
                FuzzFinding(
                    route: request.route, inputClass: request.inputClass, observed: observed, example: request.excerpt))
        }
        if await crashed(after: request, outcome) { return }
        var rejected = true
        switch outcome {
        case .answered(let response):
            rejected = !(200..<300).contains(response.status)
            let code = Self.errorCode(response.body)
            if response.status >= 500, !(response.status == 503 && response.header("Retry-After") != nil) {
                finding("\(response.status) \(code ?? "(no error shape)")")
            } else if response.status >= 400, code == nil, !(framing && response.body.isEmpty) {
                finding(
                    "\(response.status) without the error shape: \(FuzzRequest.printable(response.body, limit: 120))")
            }
        case .timedOut:
            finding("no answer within \(Int(timeout)) s")
        case .closed(let received):
            if !framing {
                finding(received.isEmpty ? "connection closed without an answer" : "connection closed mid-answer")
            }
        case .refused(let reason):
            finding("connection refused: \(reason)")
        }
        try await checkHealth(after: request)
        let now = try await ledgerDigest()
        if rejected || request.method == "GET" {
            let changed = Self.changes(from: ledger, to: now)
            if !changed.isEmpty {
                let what = rejected ? "a rejected request" : "a read"
                finding("ledger changed by \(what) (\(outcome.summary)): \(changed.joined(separator: ", "))")
            }
        }
        ledger = now
    }

    /// Whether the child died (recorded as a finding, and the child restarted).
    func crashed(after request: FuzzRequest, _ outcome: RawHTTPOutcome) async -> Bool {
        if outcome.response == nil, server.isRunning {
            // Without an answer the child may be dying (Swift's backtracer holds a trapped process for a few
            // seconds before it exits). A child that still answers /health/live is alive.
            let probe = await RawHTTPConnection.exchange(
                port: server.port,
                request: Array("GET /health/live HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n".utf8),
                timeout: 2)
            if probe.response?.status != 200 {
                let deadline = ContinuousClock.now.advanced(by: .seconds(20))
                while server.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            }
        }
        guard !server.isRunning else { return false }
        // Let the child finish dying so its exit status and last words are in.
        try? await Task.sleep(for: .milliseconds(200))
        let tail = server.logTail(lines: 5_000)
        let reason = Self.crashReason(tail)
        print(
            "subledger serve died after [\(request.route)] \(request.inputClass); its log:\n\(Self.crashExcerpt(tail))")
        findings.record(
            FuzzFinding(
                route: request.route, inputClass: request.inputClass,
                observed: "server process died (\(server.exitDescription ?? "?")): \(reason)", example: request.excerpt)
        )
        restarts += 1
        if restarts <= Self.maxRestarts {
            server.stop()
            do { try await server.start() } catch {
                findings.record(
                    FuzzFinding(
                        route: request.route, inputClass: request.inputClass,
                        observed: "server does not start again after the crash: \(error)", example: request.excerpt))
            }
        }
        if let now = try? await ledgerDigest() { ledger = now }
        return true
    }

    /// The crash's reason from the child's log: Swift's fatal error message or the backtracer's summary,
    /// and the first frame in SubLedger's own code.
    static func crashReason(_ log: String) -> String {
        let lines = log.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let fatal = lines.last { $0.contains("Fatal error") }
        let crashed = lines.last { $0.contains("Program crashed") }
        let crashedIndex = lines.lastIndex { $0.hasSuffix("crashed:") }
        let message = fatal ?? crashed ?? crashedIndex.map { lines[$0] }
        // The first frame of the crashed thread that is SubLedger's own code, not a dependency's.
        let frame = lines[(crashedIndex ?? 0)...].first { line in
            line.contains(" in subledger at ") && line.contains("/Sources/") && !line.contains("/.build/")
        }.map { line -> String in
            guard let start = line.range(of: "0x") else { return line }
            return String(line[start.lowerBound...].drop { $0 != " " }.dropFirst())
        }
        let parts = [message, frame].compactMap { $0 }.map { String($0.prefix(300)) }
        return parts.isEmpty ? "no crash message in its log" : parts.joined(separator: " | first own frame: ")
    }

    /// The crash's part of the child's log: from the first crash line, 40 lines.
    static func crashExcerpt(_ log: String) -> String {
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false)
        let start =
            lines.firstIndex { $0.contains("Fatal error") || $0.contains("Program crashed") }
            ?? max(0, lines.count - 40)
        return lines[start...].prefix(40).joined(separator: "\n")
    }

    /// `/health/live` answers 200 within 5 s.
    func checkHealth(after request: FuzzRequest) async throws {
        guard server.isRunning else { return }
        let outcome = await RawHTTPConnection.exchange(
            port: server.port,
            request: Array("GET /health/live HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n".utf8),
            timeout: 5)
        if outcome.response?.status != 200 {
            findings.record(
                FuzzFinding(
                    route: request.route, inputClass: request.inputClass,
                    observed: "/health/live answered \(outcome.summary) right after it", example: request.excerpt))
        }
    }

    /// Counts time spent waiting for an answer the caller received itself.
    func time(_ request: FuzzRequest, _ duration: Duration) {
        findings.time(route: request.route, duration)
    }

    /// Records a finding the caller observed itself.
    func record(_ request: FuzzRequest, _ observed: String) {
        findings.record(
            FuzzFinding(
                route: request.route, inputClass: request.inputClass, observed: observed, example: request.excerpt))
    }

    var canContinue: Bool { restarts <= Self.maxRestarts && server.isRunning }

    /// The `error.code` of a body shaped `{"error":{"code":string,"message":string}}`, else `nil`.
    static func errorCode(_ body: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let error = object["error"] as? [String: Any], let code = error["code"] as? String,
            error["message"] is String
        else { return nil }
        return code
    }

    /// Runs `iterations` requests of each route, each from its own seeded generator.
    func campaign(_ routes: [FuzzRoute]) async throws {
        for index in 0..<settings.iterations {
            for route in routes {
                guard canContinue else { return }
                var random = FuzzRandom(seed: settings.seed, stream: route.name, index: index)
                let request = route.make(corpus, &random)
                try await send(request)
            }
        }
    }

    /// Every finding as one readable block (for `Issue.record` and the console).
    func report(title: String) -> String {
        var lines = [
            "\(title): \(findings.all.count) distinct finding(s) with \(settings) (\(sent) requests, \(restarts) restart(s))"
        ]
        if restarts > Self.maxRestarts {
            lines.append("the campaign stopped early: the server crashed more than \(Self.maxRestarts) times")
        }
        for finding in findings.all {
            lines.append("- [\(finding.route)] \(finding.inputClass) → \(finding.observed) (×\(finding.count))")
            lines.append("    e.g. \(finding.example)")
        }
        lines.append("statuses:")
        lines.append(findings.statusSummary)
        return lines.joined(separator: "\n")
    }
}
