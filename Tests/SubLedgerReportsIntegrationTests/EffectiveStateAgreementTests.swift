import CatalogFile
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerReports

/// The lapse rules have one definition, `ChainSnapshot.state(at:in:)` (`ChainStateDerivation`); the reports'
/// `EffectiveState` restates them in SQL on the stored `chains` row. This suite holds the two together: it
/// writes randomized chains through the real `LedgerStore.apply` path at `t0`, then, for instants at and after
/// `t0` (around every expiry, grace end, upgrade and period end of the chain), compares the state the SQL gives
/// on the stored row with the state the core derives from the stored chain.
@Suite struct EffectiveStateAgreementTests {
    /// The seed of the generator; `SUBLEDGER_EFFECTIVE_STATE_SEED` replays another one.
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["SUBLEDGER_EFFECTIVE_STATE_SEED"].flatMap { UInt64($0) } ?? 0x5EED_0E57
    static let chainCount = 400

    static let bundleID = "com.example.lapses"
    static let catalogYAML = """
        apps:
          - bundle_id: com.example.lapses
            apple_app_id: 1999999999
            environments: [production, sandbox]
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 2, entitlements: [pro] }
              - { product_id: pro.yearly, type: auto_renewable, subscription_group_id: "g1", group_level: 3, entitlements: [pro] }
              - { product_id: premium.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 1, entitlements: [pro, premium] }
              - { product_id: pass.30d, type: non_renewing, duration_days: 30, entitlements: [pro] }
              - { product_id: lifetime, type: non_consumable, entitlements: [lifetime] }
              - { product_id: coins.100, type: consumable, credits: 100 }
        """

    @Test func sqlEffectiveStateAgreesWithTheCoreDerivationOnRandomChains() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let comparison = try await ReportsDatabase.withMigratedSchema { pool in
            try await Self.compare(pool, seed: Self.seed, chains: Self.chainCount)
        }
        let replay = "seed \(Self.seed) (replay with SUBLEDGER_EFFECTIVE_STATE_SEED=\(Self.seed))"
        #expect(
            comparison.checked > Self.chainCount * 5, "\(replay): too few instants compared (\(comparison.checked))")
        if !comparison.disagreements.isEmpty {
            Issue.record(
                """
                \(replay): \(comparison.disagreements.count) of \(comparison.checked) comparisons disagree; first ones:
                \(comparison.disagreements.prefix(8).joined(separator: "\n"))
                """)
        }
        print(
            "EffectiveStateAgreementTests: \(replay), \(Self.chainCount) chains, \(comparison.checked) instants, "
                + "\(clock.now - started)")
    }

    /// Regression: the SQL lapsed only auto-renewable chains, so a non-renewing pass stored `active` stayed
    /// active in the reports after its period, where the core says `expired(period_ended)`.
    @Test func nonRenewingPassLapsesInTheReportsAtItsPeriodEnd() async throws {
        try await ReportsDatabase.withMigratedSchema { pool in
            let store = LedgerStore(pool: pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(Self.catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)
            guard let app = try await catalogStore.app(bundleID: Self.bundleID) else {
                throw ReportError(code: .unknownApp, message: "")
            }
            let t0 = RandomChain.t0
            let pass = Transaction(
                transactionID: "pass-1", chainID: "pass-1", productID: "pass.30d",
                bundleID: Self.bundleID,
                purchaseDate: t0, environment: .production, source: .verifyReceipt)
            let input = LedgerInput(
                kind: .receipt, bundleID: Self.bundleID, environment: .production, submitter: try AccountID("buyer"),
                transactions: [pass], observedAt: t0)
            try await store.apply(input, app: app, reference: .none, now: t0)
            try await ReportsDatabase.project(pool)
            let now = t0
            let scope = ReportScope(bundleID: Self.bundleID)
            // The reports run on the connection's own thread; the expectations are checked back in the test.
            let (during, after, active) = try await pool.withConnection { connection in
                (
                    try Reports.summary(
                        on: connection, scope: scope, at: now.adding(milliseconds: 29 * 86_400_000), now: now),
                    try Reports.summary(
                        on: connection, scope: scope, at: now.adding(milliseconds: 30 * 86_400_000), now: now),
                    try Reports.active(on: connection, scope: scope, at: now.adding(milliseconds: 31 * 86_400_000))
                )
            }
            #expect(during.totals.active == 1)
            #expect(after.totals.active == 0)
            #expect(after.totals.expired == 1)
            #expect(active.totals.total == 0)
        }
    }

    struct Comparison {
        var checked = 0
        /// Disagreements nothing explains: each one fails the test.
        var disagreements: [String] = []
    }

    /// Writes `chains` random chains and compares every chain at its instants; returns the number of
    /// comparisons and a description of each disagreement.
    static func compare(_ pool: PostgresPool, seed: UInt64, chains: Int) async throws -> Comparison {
        let store = LedgerStore(pool: pool)
        let catalogStore = CatalogStore(pool: pool)
        let (catalog, secrets) = try CatalogFile.read(catalogYAML)
        try await catalogStore.applyCatalog(catalog, secrets: secrets)
        guard let app = try await catalogStore.app(bundleID: bundleID) else {
            throw ReportError(code: .unknownApp, message: "")
        }
        var rng = SplitMix64(seed: seed)
        var comparison = Comparison()
        for index in 0..<chains {
            let chain = RandomChain(index: index, using: &rng)
            for (at, input) in chain.inputs {
                try await store.apply(input, app: app, reference: .none, now: at)
            }
            try await ReportsDatabase.project(pool)
            let key = ChainKey(environment: .production, chainID: chain.chainID)
            guard let snapshot = try await store.chain(key, app: app) else {
                comparison.disagreements.append("\(chain.chainID): not stored")
                continue
            }
            let instants = chain.instants
            let sqlStates = try await pool.withConnection { connection in
                try Self.sqlStates(of: chain.chainID, appID: app.appID, at: instants, on: connection)
            }
            for instant in instants {
                comparison.checked += 1
                let core = snapshot.state(at: instant, in: app.definition).name
                let sql = sqlStates[instant.millisecondsSince1970] ?? "none"
                guard core != sql else { continue }
                let description =
                    "\(chain.description) at t0\(offset(instant, from: chain.t0)): SQL says \(sql), core says \(core)"
                comparison.disagreements.append(description)
            }
        }
        return comparison
    }

    /// `EffectiveState.sql` on the stored row of one chain, at each of `instants` (by milliseconds).
    static func sqlStates(
        of chainID: String, appID: Int64, at instants: [Instant], on connection: PostgresConnection
    )
        throws -> [Int64: String]
    {
        let milliseconds = "{" + instants.map { String($0.millisecondsSince1970) }.joined(separator: ",") + "}"
        let rows = try connection.query(
            """
            SELECT t.ms, \(EffectiveState.sql(at: "t.at"))
            FROM chains c
            CROSS JOIN LATERAL (
                SELECT ms, timestamptz 'epoch' + ms * interval '1 millisecond' AS at
                FROM unnest(\(milliseconds)::text::bigint[]) AS ms) t
            WHERE c.app_id = \(appID) AND c.environment = \(StoreEnvironment.production.rawValue)
              AND c.original_transaction_id = \(chainID)
            """ as PostgresQuery)
        var states: [Int64: String] = [:]
        for row in rows { states[try row.decode(Int64.self, at: 0)] = try row.decode(String.self, at: 1) }
        return states
    }

    static func offset(_ instant: Instant, from t0: Instant) -> String {
        let milliseconds = instant.millisecondsSince1970 - t0.millisecondsSince1970
        return milliseconds % 86_400_000 == 0 ? "+\(milliseconds / 86_400_000)d" : "+\(milliseconds)ms"
    }
}

/// One random chain of `EffectiveStateAgreementTests`: its inputs (the last one at `t0`) and the instants to
/// compare at.
struct RandomChain: CustomStringConvertible {
    static let day: Int64 = 86_400_000
    /// 2025-06-01T00:00:00Z.
    static let t0 = Instant(millisecondsSince1970: 1_748_736_000_000)

    var chainID: String
    var productType: ProductType
    var transactions: [Transaction] = []
    var renewal: RenewalInfo?
    var inputs: [(Instant, LedgerInput)] = []
    var t0: Instant { Self.t0 }

    init(index: Int, using rng: inout SplitMix64) {
        chainID = "o\(index)"
        let t0 = Self.t0.millisecondsSince1970
        func instant(_ milliseconds: Int64) -> Instant { Instant(millisecondsSince1970: milliseconds) }
        func between(_ low: Int64, _ high: Int64) -> Int64 {
            high <= low ? low : Int64.random(in: low...high, using: &rng)
        }
        func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < probability }
        func transaction(_ id: String, _ product: String, purchase: Int64, expires: Int64?) -> Transaction {
            Transaction(
                transactionID: id, chainID: chainID, productID: product,
                bundleID: EffectiveStateAgreementTests.bundleID, purchaseDate: instant(purchase),
                originalPurchaseDate: nil, expiresDate: expires.map(instant),
                webOrderLineItemID: expires.map { _ in "w" + id },
                subscriptionGroupID: expires.map { _ in "g1" }, environment: .production, source: .verifyReceipt)
        }

        let kind = Int.random(in: 0..<10, using: &rng)
        switch kind {
        case 0..<6:
            productType = .autoRenewable
            let yearly = chance(0.3)
            let product = yearly ? "pro.yearly" : (chance(0.2) ? "premium.monthly" : "pro.monthly")
            let period = (yearly ? 365 : 30) * Self.day
            // The last period ends up to 60 days before t0, or any time before the end of a period bought by t0.
            let lastExpiry = between(t0 - 60 * Self.day, t0 + period - 60_000)
            let count = Int.random(in: 1...4, using: &rng)
            for number in 0..<count {
                let expires = lastExpiry - Int64(count - 1 - number) * period
                transactions.append(
                    transaction(
                        "\(chainID)-\(number)", product, purchase: expires - period, expires: expires))
            }
            let last = transactions.count - 1
            if product != "premium.monthly", chance(0.25) {
                // An upgrade to premium: the old transaction is marked upgraded at the moment, the successor
                // (if already seen) bought then.
                let moment = between(transactions[last].purchaseDate.millisecondsSince1970, min(t0, lastExpiry))
                transactions[last].isUpgraded = true
                transactions[last].revocationDate = instant(moment)
                if chance(0.8) {
                    transactions.append(
                        transaction(
                            "\(chainID)-up", "premium.monthly", purchase: moment,
                            expires: moment + 30 * Self.day))
                }
            } else if chance(0.15) {
                let purchase = transactions[last].purchaseDate.millisecondsSince1970
                transactions[last].revocationDate = instant(between(purchase, min(t0, lastExpiry)))
                transactions[last].revocationReason = Int.random(in: 0...1, using: &rng)
            }
            if chance(0.85) {
                let latest = transactions[transactions.count - 1]
                let retrying = chance(0.35)
                let latestExpiry = latest.expiresDate?.millisecondsSince1970 ?? lastExpiry
                renewal = RenewalInfo(
                    chainID: chainID, productID: latest.productID,
                    autoRenewProductID: latest.productID, willAutoRenew: chance(0.5),
                    expirationIntent: [nil, 1, 2, 3, 4, 5][Int.random(in: 0..<6, using: &rng)],
                    isInBillingRetryPeriod: retrying,
                    gracePeriodExpiresDate: retrying && chance(0.6)
                        ? instant(latestExpiry + between(3_600_000, 16 * Self.day)) : nil,
                    environment: .production, observedAt: Self.t0)
            }
        case 6..<8:
            productType = .nonRenewing
            let purchase = between(t0 - 60 * Self.day, t0)
            transactions.append(transaction("\(chainID)-0", "pass.30d", purchase: purchase, expires: nil))
        default:
            productType = kind == 8 ? .nonConsumable : .consumable
            let purchase = between(t0 - 400 * Self.day, t0)
            transactions.append(
                transaction(
                    "\(chainID)-0", kind == 8 ? "lifetime" : "coins.100", purchase: purchase, expires: nil
                ))
        }
        if productType != .autoRenewable, chance(0.15) {
            transactions[0].revocationDate = instant(between(transactions[0].purchaseDate.millisecondsSince1970, t0))
            transactions[0].revocationReason = Int.random(in: 0...1, using: &rng)
        }

        // Sometimes an earlier input saw only the first transaction, without renewal info.
        let submitter = chance(0.7) ? try? AccountID("account\(Int.random(in: 0..<20, using: &rng))") : nil
        func input(_ transactions: [Transaction], renewals: [RenewalInfo], at observed: Instant) -> LedgerInput {
            LedgerInput(
                kind: submitter == nil ? .notification : .receipt, bundleID: EffectiveStateAgreementTests.bundleID,
                environment: .production, submitter: submitter, transactions: transactions, renewalInfo: renewals,
                observedAt: observed)
        }
        let first = transactions[0].purchaseDate.millisecondsSince1970
        if transactions.count > 1, chance(0.3) {
            let observed = instant(between(first, t0 - 1))
            let seen = transactions.filter { $0.purchaseDate <= observed }.map { version -> Transaction in
                var version = version
                if let revoked = version.revocationDate, revoked > observed {
                    version.revocationDate = nil
                    version.revocationReason = nil
                }
                if version.isUpgraded, version.revocationDate == nil { version.isUpgraded = false }
                return version
            }
            if !seen.isEmpty { inputs.append((observed, input(seen, renewals: [], at: observed))) }
        }
        inputs.append((Self.t0, input(transactions, renewals: renewal.map { [$0] } ?? [], at: Self.t0)))
    }

    /// `t0` and every date of the chain at or after it, each also a millisecond before and after, and some
    /// days, months and a year later.
    var instants: [Instant] {
        var dates = transactions.flatMap {
            [$0.expiresDate, $0.revocationDate, $0.purchaseDate.adding(milliseconds: 30 * Self.day)]
        }
        dates.append(renewal?.gracePeriodExpiresDate)
        var milliseconds = Set([0, 1, Self.day, 31 * Self.day, 400 * Self.day].map { t0.millisecondsSince1970 + $0 })
        for date in dates.compactMap({ $0?.millisecondsSince1970 }) {
            milliseconds.formUnion([date - 1, date, date + 1])
        }
        return milliseconds.filter { $0 >= t0.millisecondsSince1970 }.sorted().map {
            Instant(millisecondsSince1970: $0)
        }
    }

    var description: String {
        let t0 = t0.millisecondsSince1970
        func relative(_ instant: Instant?) -> String {
            guard let instant else { return "-" }
            let offset = instant.millisecondsSince1970 - t0
            return "t0\(offset < 0 ? "" : "+")\(offset)ms"
        }
        let parts = transactions.map { transaction in
            let ended = transaction.revocationDate.map {
                (transaction.isUpgraded ? " upgraded " : " revoked ") + relative($0)
            }
            return "\(transaction.transactionID) \(transaction.productID) bought \(relative(transaction.purchaseDate)) "
                + "expires \(relative(transaction.expiresDate))" + (ended ?? "")
        }
        let renewalText =
            renewal.map {
                "renewal(autoRenew \($0.willAutoRenew), retry \($0.isInBillingRetryPeriod), grace \(relative($0.gracePeriodExpiresDate)))"
            } ?? "no renewal info"
        return "\(chainID) [\(productType.rawValue); \(parts.joined(separator: "; ")); \(renewalText)]"
    }
}
