import Foundation
import SubLedgerCore
import Testing

@testable import SubLedgerReports

/// A support answer as JSON, as a terminal table and on the admin page, with every string escaped.
@Suite struct SupportAnswerRenderingTests {
    static let day = Instant(millisecondsSince1970: 1_735_689_600_000)  // 2025-01-01
    static let hostile = "<script>alert('x')</script>"

    static func answer(account: String = "ben", advice: String = "Active until 2025-02-01, renews automatically.")
        -> SupportAnswer
    {
        let chain = SupportAnswer.Chain(
            environment: "Production", store: "app_store", originalTransactionID: "2000000001",
            productID: "pro.monthly",
            productType: "auto_renewable", ownerAccountID: account, state: "active", expirationReason: nil,
            expiresAt: day.adding(milliseconds: 31 * 86_400_000), willAutoRenew: true, revokedAt: nil,
            submittedBy: ["ann", account],
            ownership: [
                .init(
                    accountID: "ann", fromAccountID: nil, reason: "first_claim", startedAt: day,
                    endedAt: day.adding(milliseconds: 60_000)),
                .init(
                    accountID: account, fromAccountID: "ann", reason: "owner_not_actively_auto_renewing",
                    startedAt: day.adding(milliseconds: 60_000), endedAt: nil),
            ],
            advice: advice)
        let event = TimelineEvent(
            at: day, category: .ledgerEntry, bundleID: "com.example.app", environment: "Production",
            originalTransactionID: "2000000001", transactionID: "2000000001", productID: "pro.monthly",
            accountID: account,
            kind: "grant", reason: "purchase", until: day.adding(milliseconds: 31 * 86_400_000), note: "pro", rowID: 1)
        return SupportAnswer(
            kind: .order, query: "MK5TTTVWJH", bundleID: "com.example.app", at: day, accountID: account, order: nil,
            apple: .init(
                environment: "Production", transactionIDs: ["2000000001"], unrecordedTransactionIDs: [], applied: false),
            chains: [chain], advice: advice, timeline: [event])
    }

    @Test func jsonUsesSnakeCaseKeysAndUTCTimes() throws {
        let json = Self.answer().json
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "order")
        #expect(object["account_id"] as? String == "ben")
        let apple = try #require(object["apple"] as? [String: Any])
        #expect(apple["transaction_ids"] as? [String] == ["2000000001"])
        #expect(apple["unrecorded_transaction_ids"] as? [String] == [])
        let chain = try #require((object["chains"] as? [[String: Any]])?.first)
        #expect(chain["owner_account_id"] as? String == "ben")
        #expect(chain["submitted_by"] as? [String] == ["ann", "ben"])
        #expect((chain["ownership"] as? [[String: Any]])?.last?["from_account_id"] as? String == "ann")
        #expect(object["at"] as? String == "2025-01-01T00:00:00Z")
    }

    @Test func theTerminalFormLeadsWithTheAdviceThenChainsAndTimeline() {
        let text = Self.answer().text
        #expect(text.hasPrefix("order MK5TTTVWJH (com.example.app) at 2025-01-01T00:00:00Z\naccount: ben\n"))
        #expect(text.contains("Tell the customer: Active until 2025-02-01, renews automatically."))
        #expect(text.contains("ann (first_claim) -> ben (owner_not_actively_auto_renewing)"))
        #expect(text.contains("Timeline"))
        #expect(text.contains("grant (purchase) [pro]"))
    }

    @Test func theAdminPageShowsTheAnswerEscaped() {
        let page = AdminPage.render(
            summary: SummaryReport(
                at: Self.day, basis: .chainColumns, products: [], entitlements: [], totals: StateCounts()),
            activeOverTime: [], statesByProduct: [],
            churnByMonth: ChurnReport(from: Self.day, to: Self.day, granularity: .month, periods: [], totals: .init()),
            search: "MK5TTTVWJH", timeline: .support(Self.answer(account: Self.hostile, advice: Self.hostile)))
        #expect(!page.contains("<script"))
        #expect(page.contains("order <code>MK5TTTVWJH</code>"))
        #expect(page.contains("<strong>Tell the customer:</strong> &lt;script&gt;"))
        #expect(page.contains("<td>2000000001</td>"))
        #expect(page.contains("placeholder=\"order id, transaction id, app account token or account id\""))

        let refused = AdminPage.render(
            summary: SummaryReport(
                at: Self.day, basis: .chainColumns, products: [], entitlements: [], totals: StateCounts()),
            activeOverTime: [], statesByProduct: [],
            churnByMonth: ChurnReport(from: Self.day, to: Self.day, granularity: .month, periods: [], totals: .init()),
            search: Self.hostile, timeline: .refused(query: Self.hostile, reason: "Apple is unavailable"))
        #expect(!refused.contains("<script"))
        #expect(refused.contains(": Apple is unavailable</p>"))
    }
}
