import CatalogFile
import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The entitlement read model (`account_entitlement_periods`, kept by `LedgerStore.apply`) against the ledger's
/// general path (`Ledger.entitlements(for:at:chains:app:)` over the stored chains), on randomized histories:
/// purchases, renewals, refunds and revocations, their reversals, transfers between accounts (a second account
/// submitting a chain), upgrades, Family Sharing, consumables, non-renewing passes, and inputs arriving late and
/// out of order. Every account is read at every date of every chain (and a millisecond either side), both ways.
@Suite struct EntitlementReadModelAgreementTests {
    /// The seed of the generator; `SUBLEDGER_READ_MODEL_SEED` replays another one.
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["SUBLEDGER_READ_MODEL_SEED"].flatMap { UInt64($0) } ?? 0x5EED_4EAD
    static let histories = 8
    static let chainsPerHistory = 24

    static let bundleID = "com.example.readmodel"
    static let catalogYAML = """
        apps:
          - bundle_id: com.example.readmodel
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

    static func withApp(_ body: (LedgerStore, StoredApp, PostgresPool) async throws -> Void) async throws {
        try await TestDatabase.withSchema(maxConnections: 4, template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)
            guard let app = try await catalogStore.app(bundleID: bundleID) else {
                throw StoreError(code: .unknownApp, message: bundleID)
            }
            try await body(store, app, pool)
        }
    }

    @Test func readModelAgreesWithTheChainsOnRandomHistories() async throws {
        var rng = SplitMix64(seed: Self.seed)
        var totals = Comparison()
        for history in 0..<Self.histories {
            let generated = RandomHistory(index: history, chains: Self.chainsPerHistory, using: &rng)
            try await Self.withApp { store, app, _ in
                for (at, input) in generated.inputs {
                    try await store.apply(input, app: app, now: at)
                }
                let comparison = try await Self.compare(
                    store, app: app, accounts: generated.accounts, extraInstants: generated.instants)
                totals.merge(comparison)
            }
        }
        let replay = "seed \(Self.seed) (replay with SUBLEDGER_READ_MODEL_SEED=\(Self.seed))"
        #expect(totals.checked > 4_000, "\(replay): too few reads compared (\(totals.checked))")
        // The read model answers every read of an account without a non-renewing pass itself (a pass sends
        // the read to the chains), and the histories grant something often enough to mean something.
        #expect(
            totals.withoutPasses > 1_000, "\(replay): only \(totals.withoutPasses) reads of accounts without passes")
        #expect(
            totals.withoutPassesFromPeriods == totals.withoutPasses,
            "\(replay): reads of accounts without passes went to the chains")
        #expect(totals.nonEmpty * 5 > totals.checked, "\(replay): only \(totals.nonEmpty) reads found an entitlement")
        #expect(totals.transferred > 0, "\(replay): no history moved a chain between accounts")
        print(
            "EntitlementReadModelAgreementTests: \(replay), \(Self.histories) histories, \(totals.checked) reads compared, "
                + "\(totals.fromPeriods) from the read model, \(totals.nonEmpty) with entitlements, "
                + "\(totals.disagreements.count) disagreements")
        if !totals.disagreements.isEmpty {
            Issue.record(
                """
                \(replay): \(totals.disagreements.count) of \(totals.checked) reads disagree; first ones:
                \(totals.disagreements.prefix(6).joined(separator: "\n"))
                """)
        }
    }

    /// A database filled before the read model existed: step 13 lists every account with a chain for
    /// backfill; such an account is read from the chains (same answer) by a read that writes nothing, and
    /// `backfillEntitlementPeriods(app:)` (what `poll` runs) backfills them all; afterwards every read agrees
    /// from the read model.
    @Test func upgradingAFilledDatabaseBackfillsTheReadModel() async throws {
        var rng = SplitMix64(seed: Self.seed ^ 0xBAC4_F111)
        let generated = RandomHistory(index: 0, chains: 30, using: &rng)
        try await Self.withApp { store, app, pool in
            for (at, input) in generated.inputs {
                try await store.apply(input, app: app, now: at)
            }
            // Back to schema version 12 with the same ledger rows, as an older SubLedger left them (step 53 adds to
            // the read model's table: it runs again after 13).
            try await pool.execute(
                script: """
                    DROP TABLE account_entitlement_periods, account_entitlement_backfill;
                    DELETE FROM schema_migrations WHERE version IN (13, 53);
                    """)
            let report = try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            #expect(report.applied == [13, 53])
            let listed = try await pool.query(
                "SELECT count(*) FROM account_entitlement_backfill WHERE app_id = \(app.appID)"
            )
            .single().decode(Int64.self, at: 0)
            let owners = try await pool.query(
                "SELECT count(DISTINCT account_id) FROM ownership_bindings WHERE app_id = \(app.appID)"
            ).single().decode(Int64.self, at: 0)
            #expect(listed == owners && listed > 5)
            #expect(
                try await pool.query("SELECT count(*) FROM account_entitlement_periods").single().decode(
                    Int64.self, at: 0) == 0)

            // Before any backfill: answered from the chains; the read writes nothing, so its account stays listed.
            let first = generated.accounts[0]
            let before = try await Self.compare(store, app: app, accounts: [first], extraInstants: generated.instants)
            #expect(before.disagreements.isEmpty, "\(before.disagreements.prefix(3))")
            let stillListed = try await pool.query(
                """
                SELECT count(*) FROM account_entitlement_backfill WHERE app_id = \(app.appID) AND account_id =
                    \(first.rawValue)
                """
            ).single().decode(Int64.self, at: 0)
            #expect(stillListed == 1)
            #expect(
                try await pool.query("SELECT count(*) FROM account_entitlement_periods").single().decode(
                    Int64.self, at: 0) == 0)

            var drained = 0
            while case let done = try await EntitlementReadStore(pool: store.pool).backfill(app: app, limit: 7),
                done > 0
            {
                drained += done
            }
            #expect(drained == Int(listed))
            let after = try await Self.compare(
                store, app: app, accounts: generated.accounts, extraInstants: generated.instants)
            #expect(after.disagreements.isEmpty, "\(after.disagreements.prefix(3))")
            #expect(after.withoutPassesFromPeriods == after.withoutPasses && after.withoutPasses > 100)
        }
    }

    struct Comparison {
        var checked = 0
        var fromPeriods = 0
        /// Reads of accounts that never had a non-renewing pass, and how many of those the read model answered.
        var withoutPasses = 0
        var withoutPassesFromPeriods = 0
        var nonEmpty = 0
        var transferred = 0
        var disagreements: [String] = []

        mutating func merge(_ other: Comparison) {
            checked += other.checked
            fromPeriods += other.fromPeriods
            withoutPasses += other.withoutPasses
            withoutPassesFromPeriods += other.withoutPassesFromPeriods
            nonEmpty += other.nonEmpty
            transferred += other.transferred
            disagreements += other.disagreements
        }
    }

    /// Reads every account at every date of its chains both ways.
    static func compare(
        _ store: LedgerStore, app: StoredApp, accounts: [AccountID], extraInstants: [Instant]
    ) async throws -> Comparison {
        var comparison = Comparison()
        for account in accounts {
            let (chains, credits) = try await store.holdings(of: account, app: app)
            var dates = Set(extraInstants)
            for chain in chains {
                if chain.bindingChanges.count > 1 { comparison.transferred += 1 }
                for change in chain.bindingChanges { dates.insert(change.at) }
                for known in chain.transactions {
                    let transaction = known.transaction
                    dates.formUnion([
                        transaction.purchaseDate, transaction.purchaseDate.adding(milliseconds: 30 * RandomHistory.day),
                    ])
                    dates.formUnion([transaction.expiresDate, transaction.revocationDate].compactMap { $0 })
                    dates.formUnion(known.revocations.map(\.revocationDate))
                }
                if let grace = chain.header.renewalInfo?.gracePeriodExpiresDate { dates.insert(grace) }
            }
            let hasPass = chains.contains { $0.header.productType == .nonRenewing }
            var instants = Set<Instant>()
            for date in dates {
                instants.formUnion([date.adding(milliseconds: -1), date, date.adding(milliseconds: 1)])
            }
            for instant in instants.sorted() {
                comparison.checked += 1
                let general = Ledger.entitlements(for: account, at: instant, chains: chains, app: app.definition)
                let read = try await EntitlementReadStore(pool: store.pool).read(of: account, app: app, at: instant)
                let periods = try await store.pool.withConnection { connection in
                    try EntitlementPeriodRows.read(account, appID: app.appID, at: instant, on: connection).periods
                }
                if periods != nil { comparison.fromPeriods += 1 }
                if !hasPass {
                    comparison.withoutPasses += 1
                    if periods != nil { comparison.withoutPassesFromPeriods += 1 }
                }
                if !general.isEmpty { comparison.nonEmpty += 1 }
                if read.entitlements != general || read.credits != credits {
                    comparison.disagreements.append(
                        "\(account.rawValue) at \(instant): read model \(read.entitlements) credits \(read.credits), "
                            + "chains \(general) credits \(credits)")
                }
            }
        }
        return comparison
    }
}

/// One random history of `EntitlementReadModelAgreementTests`: chains of every product type over a few
/// accounts, and the inputs that tell them, in a shuffled arrival order.
struct RandomHistory {
    static let day: Int64 = 86_400_000
    /// 2025-06-01T00:00:00Z.
    static let t0: Int64 = 1_748_736_000_000

    var accounts: [AccountID]
    var inputs: [(Instant, LedgerInput)] = []
    /// Instants to read at besides the chains' own dates.
    var instants: [Instant]

    init(index: Int, chains: Int, using rng: inout SplitMix64) {
        let t0 = Self.t0
        let day = Self.day
        accounts = (0..<6).map { try! AccountID("h\(index)-account\($0)") }
        instants = [0, 1, 45, 200, 500].map { Instant(millisecondsSince1970: t0 + $0 * day) }
        func instant(_ milliseconds: Int64) -> Instant { Instant(millisecondsSince1970: milliseconds) }
        func between(_ low: Int64, _ high: Int64) -> Int64 {
            high <= low ? low : Int64.random(in: low...high, using: &rng)
        }
        func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < probability }
        func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &rng)] }

        var timeline: [(Instant, LedgerInput)] = []
        for number in 0..<chains {
            let original = "h\(index)-c\(number)"
            let environment: StoreEnvironment = chance(0.15) ? .sandbox : .production
            let ownership: OwnershipType = chance(0.15) ? .familyShared : .purchased
            func transaction(_ id: String, _ product: String, purchase: Int64, expires: Int64?) -> Transaction {
                Transaction(
                    transactionID: id, chainID: original, productID: product,
                    bundleID: EntitlementReadModelAgreementTests.bundleID, purchaseDate: instant(purchase),
                    originalPurchaseDate: nil, expiresDate: expires.map(instant),
                    webOrderLineItemID: expires.map { _ in "w" + id }, subscriptionGroupID: expires.map { _ in "g1" },
                    ownershipType: ownership, environment: environment, source: .verifyReceipt)
            }
            var transactions: [Transaction] = []
            var renewal: RenewalInfo?
            let kind = Int.random(in: 0..<20, using: &rng)
            let start = between(t0 - 200 * day, t0 + 100 * day)
            switch kind {
            case 0..<12:
                let yearly = chance(0.2)
                let product = yearly ? "pro.yearly" : (chance(0.2) ? "premium.monthly" : "pro.monthly")
                let period = (yearly ? 365 : 30) * day
                let count = Int.random(in: 1...5, using: &rng)
                for renewalNumber in 0..<count {
                    // Renewals sometimes start a little late (a lapse), sometimes exactly at the expiry.
                    let purchase =
                        renewalNumber == 0
                        ? start
                        : transactions[renewalNumber - 1].expiresDate!.millisecondsSince1970
                            + (chance(0.2) ? between(1, 5 * day) : 0)
                    transactions.append(
                        transaction(
                            "\(original)-\(renewalNumber)", product, purchase: purchase, expires: purchase + period))
                }
                let last = transactions.count - 1
                if product != "premium.monthly", chance(0.25) {
                    let lastPurchase = transactions[last].purchaseDate.millisecondsSince1970
                    let moment = between(lastPurchase, transactions[last].expiresDate!.millisecondsSince1970 - 1)
                    transactions[last].isUpgraded = true
                    transactions[last].revocationDate = instant(moment)
                    if chance(0.8) {
                        transactions.append(
                            transaction(
                                "\(original)-up", "premium.monthly", purchase: moment, expires: moment + 30 * day))
                    }
                } else if chance(0.25) {
                    let refunded = Int.random(in: 0...last, using: &rng)
                    let purchase = transactions[refunded].purchaseDate.millisecondsSince1970
                    transactions[refunded].revocationDate = instant(between(purchase, purchase + 40 * day))
                    transactions[refunded].revocationReason = Int.random(in: 0...1, using: &rng)
                }
                if chance(0.85) {
                    let latest = transactions[transactions.count - 1]
                    let retrying = chance(0.35)
                    let latestExpiry = latest.expiresDate!.millisecondsSince1970
                    renewal = RenewalInfo(
                        chainID: original, productID: latest.productID,
                        autoRenewProductID: latest.productID, willAutoRenew: chance(0.5),
                        expirationIntent: pick([nil, 1, 2, 3, 4, 5]),
                        isInBillingRetryPeriod: retrying,
                        gracePeriodExpiresDate: retrying && chance(0.6)
                            ? instant(latestExpiry + between(3_600_000, 16 * day)) : nil,
                        environment: environment, observedAt: instant(latestExpiry - day))
                }
            case 12..<14:
                transactions.append(transaction("\(original)-0", "pass.30d", purchase: start, expires: nil))
            case 14..<17:
                transactions.append(transaction("\(original)-0", "lifetime", purchase: start, expires: nil))
            default:
                transactions.append(transaction("\(original)-0", "coins.100", purchase: start, expires: nil))
            }
            if transactions.count == 1, transactions[0].expiresDate == nil, chance(0.25) {
                let purchase = transactions[0].purchaseDate.millisecondsSince1970
                transactions[0].revocationDate = instant(between(purchase, purchase + 60 * day))
                transactions[0].revocationReason = Int.random(in: 0...1, using: &rng)
            }

            // Who submits: a first claimant, sometimes a second account later (a transfer attempt), and
            // notifications without a submitter.
            let claimant = pick(accounts)
            let environmentOf = environment
            func input(_ versions: [Transaction], by submitter: AccountID?, renewals: [RenewalInfo], at observed: Int64)
                -> (Instant, LedgerInput)
            {
                (
                    instant(observed),
                    LedgerInput(
                        kind: submitter == nil ? .notification : .receipt,
                        bundleID: EntitlementReadModelAgreementTests.bundleID,
                        environment: environmentOf, submitter: submitter, transactions: versions, renewalInfo: renewals,
                        observedAt: instant(observed))
                )
            }
            /// The transactions as seen at `observed`: those bought by then, without a revocation not yet made.
            func seen(at observed: Int64) -> [Transaction] {
                transactions.filter { $0.purchaseDate.millisecondsSince1970 <= observed }.map { version in
                    var version = version
                    if let revoked = version.revocationDate, revoked.millisecondsSince1970 > observed {
                        version.revocationDate = nil
                        version.revocationReason = nil
                        version.isUpgraded = false
                    }
                    return version
                }
            }
            let first = transactions[0].purchaseDate.millisecondsSince1970
            let end =
                transactions.map { ($0.expiresDate ?? $0.revocationDate ?? $0.purchaseDate).millisecondsSince1970 }
                .max()! + day
            // The first claim, right after the first purchase.
            timeline.append(input(seen(at: first + 60_000), by: claimant, renewals: [], at: first + 60_000))
            // Renewals and revocations as notifications, each when it happened.
            for version in transactions.dropFirst() {
                let observed = version.purchaseDate.millisecondsSince1970 + 1_000
                timeline.append(
                    input(
                        seen(at: observed).filter { $0.transactionID == version.transactionID }, by: nil, renewals: [],
                        at: observed))
            }
            // The whole story, with the renewal info, from the claimant (or nobody) at the end.
            timeline.append(
                input(seen(at: end), by: chance(0.5) ? claimant : nil, renewals: renewal.map { [$0] } ?? [], at: end))
            // A refund reversed: a later observation of the refunded transaction without its revocation.
            if let refunded = transactions.first(where: { $0.revocationDate != nil && !$0.isUpgraded }), chance(0.4) {
                var clean = refunded
                clean.revocationDate = nil
                clean.revocationReason = nil
                timeline.append(input([clean], by: nil, renewals: [], at: end + between(day, 20 * day)))
            }
            // Another account submits the chain (the ownership policy decides whether it moves).
            if chance(0.35) {
                let other = pick(accounts.filter { $0 != claimant })
                let observed = between(first + day, end + 30 * day)
                timeline.append(input(seen(at: observed), by: other, renewals: [], at: observed))
            }
        }
        // Arrival: mostly in time order, but a third of the inputs arrive late, somewhere later in the sequence.
        timeline.sort { $0.0 < $1.0 }
        var arrived: [(Instant, LedgerInput)] = []
        var delayed: [(Instant, LedgerInput)] = []
        for item in timeline {
            if chance(0.33) { delayed.append(item) } else { arrived.append(item) }
        }
        for item in delayed.shuffled(using: &rng) {
            let earliest = arrived.firstIndex { $0.0 > item.0 } ?? arrived.count
            arrived.insert(item, at: Int.random(in: earliest...arrived.count, using: &rng))
        }
        // Each input is applied when it arrives: never before it was observed.
        var clock: Int64 = 0
        inputs = arrived.map { item in
            clock = max(clock, item.0.millisecondsSince1970)
            return (instant(clock), item.1)
        }
    }
}
