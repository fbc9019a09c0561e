import Foundation
import PostgresLibPQ
import Testing

@testable import SubLedgerReports

/// Every report against the known story of `ReportFixtures`, applied through the real ledger.
@Suite struct ReportQueriesTests {
    typealias F = ReportFixtures
    let scope = ReportScope(bundleID: F.bundleID)

    /// The story's ledger, for reading reports.
    struct Story {
        let pool: PostgresPool

        /// Runs `body` on a pooled connection (its own thread) and hands back what it read, so that the test's
        /// expectations run in the test itself, where a failure is reported against it.
        func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
            try await pool.withConnection { connection in try body(connection) }
        }
    }

    func withStory(_ body: (Story) async throws -> Void) async throws {
        try await ReportsDatabase.withMigratedSchema { pool in
            try await F.load(pool)
            try await body(Story(pool: pool))
        }
    }

    @Test func summaryCountsStatesWithLapsesAppliedAtTheInstant() async throws {
        try await withStory { story in
            let report = try await story.read { try Reports.summary(on: $0, scope: scope, now: F.now) }
            #expect(report.basis == .chainColumns)
            let products = Dictionary(uniqueKeysWithValues: report.products.map { ($0.productID, $0.counts) })
            #expect(products.keys.sorted() == ["coins.100", "premium.monthly", "pro.monthly"])
            // Each product names the store that sells it (the catalog names none: the App Store).
            #expect(report.products.map(\.store) == ["app_store", "app_store", "app_store"])
            let past = try await story.read {
                try Reports.summary(on: $0, scope: scope, at: F.now.adding(milliseconds: -86_400_000), now: F.now)
            }
            #expect(!past.products.isEmpty && past.products.allSatisfy { $0.store == "app_store" })
            // c1 and c4 active; c5 stored active but its period ended on day 32; c3 refunded.
            #expect(products["pro.monthly"]?.active == 2)
            #expect(products["pro.monthly"]?.expired == 1)
            #expect(products["pro.monthly"]?.revoked == 1)
            #expect(products["pro.monthly"]?.total == 4)
            #expect(products["premium.monthly"]?.active == 1)
            #expect(products["premium.monthly"]?.expired == 1)
            #expect(products["coins.100"]?.revoked == 1)
            let entitlements = Dictionary(
                uniqueKeysWithValues: report.entitlements.map { ($0.entitlementID, $0.counts) })
            #expect(entitlements["pro"]?.active == 3)
            #expect(entitlements["pro"]?.expired == 2)
            #expect(entitlements["pro"]?.revoked == 1)
            #expect(entitlements["premium"]?.total == 2)
            #expect(entitlements["lifetime"]?.total == 0)
            #expect(report.totals.total == 7)
            #expect(report.totals.active == 3)
            #expect(report.totals.expired == 2)
            #expect(report.totals.revoked == 2)

            // A week on, c1 is still active but c4's period (day 15-45) has run out.
            let later = try await story.read { try Reports.summary(on: $0, scope: scope, at: F.day(47), now: F.now) }
            #expect(later.basis == .chainColumns)
            #expect(later.totals.active == 2)
            #expect(later.totals.expired == 3)
        }
    }

    @Test func summaryInThePastReadsTheStateHistory() async throws {
        try await withStory { story in
            // Day 30: c1, c5, c2, c4 recorded active; k1 and c3 recorded revoked (on days 13 and 26); c6 unknown yet.
            let report = try await story.read { try Reports.summary(on: $0, scope: scope, at: F.day(30), now: F.now) }
            #expect(report.basis == .stateHistory)
            #expect(report.totals.active == 4)
            #expect(report.totals.revoked == 2)
            #expect(report.totals.total == 6)
        }
    }

    @Test func activeSplitsTrialIntroAndPaidFromTheLatestTransaction() async throws {
        try await withStory { story in
            let report = try await story.read { try Reports.active(on: $0, scope: scope, at: F.now) }
            #expect(report.rows.map(\.productID) == ["premium.monthly", "pro.monthly"])
            // gina's c6 is in its intro period; alice's c1 trial is over (its renewal is paid); c4 has no owner.
            #expect(report.rows[0].intro == 1 && report.rows[0].total == 1)
            #expect(report.rows[1].paid == 1 && report.rows[1].trial == 0 && report.rows[1].total == 1)
            #expect(report.totals.total == 2)
            // On day 10 alice was still in her trial.
            let early = try await story.read { try Reports.active(on: $0, scope: scope, at: F.day(10)) }
            #expect(early.rows.first { $0.productID == "pro.monthly" }?.trial == 1)
        }
    }

    @Test func expiringListsChainsEndingInTheWindowEarliestFirst() async throws {
        try await withStory { story in
            let report = try await story.read {
                try Reports.expiring(on: $0, scope: scope, at: F.now, within: .seconds(30 * 86_400), limit: 2)
            }
            #expect(report.rows.map(\.originalTransactionID) == ["c4", "c1"])
            #expect(report.rows[0].ownerAccountID == nil)
            #expect(report.rows[0].willAutoRenew == nil)
            #expect(report.rows[1].ownerAccountID == "alice")
            #expect(report.rows[1].willAutoRenew == true)
            #expect(report.rows[1].expiresAt == F.day(60))
            #expect(report.totals.chains == 3)
            #expect(report.totals.willAutoRenew == 2)
            #expect(report.totals.autoRenewUnknown == 1)
            #expect(report.truncated)
            let week = try await story.read {
                try Reports.expiring(on: $0, scope: scope, at: F.now, within: .seconds(7 * 86_400), limit: 100)
            }
            #expect(week.rows.map(\.originalTransactionID) == ["c4"])
        }
    }

    @Test func churnCountsStartsRenewalsAndExpiriesPerDay() async throws {
        try await withStory { story in
            let report = try await story.read {
                try Reports.churn(on: $0, scope: scope, from: F.day(0), to: F.day(40))
            }
            #expect(report.granularity == .day)
            #expect(report.periods.count == 40)
            #expect(report.totals.started == 5)
            #expect(report.totals.renewed == 1)
            #expect(report.totals.expired == 1)
            #expect(report.totals.expiredByReason == ["voluntary": 1])
            #expect(report.totals.recovered == 0)
            let started = report.periods.filter { $0.counts.started > 0 }.map(\.start)
            #expect(started == [F.day(0), F.day(2), F.day(5), F.day(20), F.day(38)])
            #expect(report.periods[30].counts.renewed == 1)
            #expect(report.periods[36].counts.expired == 1)

            let monthly = try await story.read {
                try Reports.churn(on: $0, scope: scope, from: F.day(0), to: F.day(365))
            }
            #expect(monthly.granularity == .month)
            #expect(monthly.periods.count == 12)
            #expect(monthly.periods[0].counts.started == 4)
            #expect(monthly.periods[1].counts.started == 1)
            #expect(monthly.periods[1].counts.expired == 1)
        }
    }

    @Test func refundsCarryReasonCodesAndAmounts() async throws {
        try await withStory { story in
            let report = try await story.read {
                try Reports.refunds(on: $0, scope: scope, from: F.day(0), to: F.now, limit: 10)
            }
            #expect(report.rows.count == 2)
            let subscription = try #require(report.rows.first)
            #expect(subscription.originalTransactionID == "c3")
            #expect(subscription.accountID == "dave")
            #expect(subscription.kind == "revoke")
            #expect(subscription.reason == "refund")
            #expect(subscription.revocationReasonCode == 1)
            #expect(subscription.priceMilli == 9_990)
            #expect(subscription.currency == "EUR")
            #expect(subscription.at == F.day(25))
            let credits = report.rows[1]
            #expect(credits.kind == "debit")
            #expect(credits.credits == 100)
            #expect(credits.revocationReasonCode == 0)
            #expect(report.totals.refunds == 1)
            #expect(report.totals.debits == 1)
            #expect(report.totals.amounts.map(\.currency) == ["EUR", "USD"])
            #expect(report.totals.amounts.map(\.amountMilli) == [9_990, 990])
            #expect(!report.truncated)
        }
    }

    @Test func transfersJoinThePreviousBinding() async throws {
        try await withStory { story in
            let report = try await story.read {
                try Reports.transfers(on: $0, scope: scope, from: F.day(0), to: F.now, limit: 10)
            }
            #expect(report.rows.count == 1)
            let transfer = try #require(report.rows.first)
            #expect(transfer.originalTransactionID == "c5")
            #expect(transfer.fromAccountID == "erin")
            #expect(transfer.toAccountID == "frank")
            #expect(transfer.sequence == 1)
            #expect(transfer.reason == "owner_not_actively_auto_renewing")
            #expect(transfer.at == F.day(8))
            #expect(transfer.previousOwnerSince == F.day(3))
            #expect(transfer.productID == "pro.monthly")
            #expect(report.totals == [.init(reason: "owner_not_actively_auto_renewing", transfers: 1)])
        }
    }

    @Test func unclaimedListsTransactionsWithoutAccount() async throws {
        try await withStory { story in
            let report = try await story.read { try Reports.unclaimed(on: $0, scope: scope, limit: 10) }
            #expect(report.rows.map(\.transactionID) == ["c4"])
            #expect(report.rows.first?.purchaseDate == F.day(15))
            #expect(report.totals.map(\.transactions) == [1])
        }
    }

    @Test func accountTimelineIsTimeOrdered() async throws {
        try await withStory { story in
            let timeline = try await story.read { try Reports.account("alice", on: $0, scope: scope) }
            #expect(timeline.bundleIDs == [F.bundleID])
            #expect(
                timeline.events.map(\.category) == [
                    .ledgerEntry, .entitlementGained, .bindingStarted, .ledgerEntry, .entitlementGained,
                ])
            #expect(timeline.events.map(\.kind) == ["grant", "grant", nil, "extend", "extend"])
            #expect(timeline.events.map(\.at) == [F.day(0), F.day(0), F.day(1), F.day(30), F.day(30)])
            #expect(timeline.events[1].note == "pro")
            #expect(timeline.events[4].until == F.day(60))

            let erin = try await story.read { try Reports.account("erin", on: $0, scope: scope) }
            #expect(
                erin.events.map(\.category) == [
                    .ledgerEntry, .entitlementGained, .bindingStarted, .bindingEnded, .ledgerEntry, .entitlementLost,
                ])
            #expect(erin.events.last?.at == F.day(8))
            await #expect(throws: ReportError.self) {
                try await story.read { try Reports.account("nobody", on: $0, scope: scope) }
            }
        }
    }

    @Test func chainAuditShowsInputsAndEffects() async throws {
        try await withStory { story in
            let audit = try await story.read { try Reports.original("c5", on: $0, scope: scope) }
            #expect(audit.chains.count == 1)
            #expect(audit.chains[0].ownerAccountID == "frank")
            let categories = audit.events.map(\.category)
            #expect(categories.filter { $0 == .transaction }.count == 1)
            #expect(categories.filter { $0 == .bindingStarted }.count == 2)
            #expect(categories.filter { $0 == .bindingEnded }.count == 1)
            #expect(categories.filter { $0 == .stateChange }.count == 1)
            #expect(
                audit.events.filter { $0.category == .ledgerEntry }.map(\.kind) == [
                    "grant", "transfer_out", "transfer_in",
                ])
            #expect(categories.filter { $0 == .receipt }.count == 1)
            #expect(audit.events.map(\.at) == audit.events.map(\.at).sorted())

            let c1 = try await story.read { try Reports.original("c1", on: $0, scope: scope) }
            let notification = try #require(c1.events.first { $0.category == .notification })
            #expect(notification.kind == "DID_RENEW")
            #expect(notification.note == "n-c1")
            #expect(c1.events.filter { $0.category == .transaction }.map(\.transactionID) == ["c1", "c1-2"])

            let c2 = try await story.read { try Reports.original("c2", on: $0, scope: scope) }
            let expiry = try #require(c2.events.last { $0.category == .stateChange })
            #expect(expiry.kind == "expired")
            #expect(expiry.reason == "voluntary")
            // The store records the change from the state the table last held (active, written at the
            // purchase) to the state at this write: one change into `expired`, with Apple's reason.
            #expect(expiry.note == "active")
            await #expect(throws: ReportError.self) {
                try await story.read { try Reports.original("nope", on: $0, scope: scope) }
            }
        }
    }

    @Test func activeOverTimeCountsSubscriptionsInForceAtEachDayEnd() async throws {
        try await withStory { story in
            let report = try await story.read { try Reports.activeOverTime(on: $0, scope: scope, days: 12, now: F.now) }
            #expect(report.days.map(\.day) == (29...40).map(F.day))
            // Day 29 ends: c1 (0-30), c5 (2-32), c2 (5-35), c4 (15-45); c3 was refunded on day 25.
            #expect(report.days.map(\.active) == [4, 4, 3, 3, 3, 2, 2, 2, 3, 3, 3, 3])
        }
    }

    @Test func unknownAppIsAnError() async throws {
        try await withStory { story in
            let error = await #expect(throws: ReportError.self) {
                try await story.read {
                    try Reports.summary(on: $0, scope: ReportScope(bundleID: "com.example.missing"), now: F.now)
                }
            }
            #expect(error?.code == .unknownApp)
            let everything = try await story.read { try Reports.summary(on: $0, scope: .everything, now: F.now) }
            #expect(everything.totals.total == 7)
            let sandbox = try await story.read {
                try Reports.summary(on: $0, scope: ReportScope(environment: "Sandbox"), now: F.now)
            }
            #expect(sandbox.totals.total == 0)
        }
    }
}
