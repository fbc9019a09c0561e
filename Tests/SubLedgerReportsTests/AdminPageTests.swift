import Foundation
import SubLedgerCore
import Testing

@testable import SubLedgerReports

/// The admin page renderer: escaping, charts, the search result.
@Suite struct AdminPageTests {
    static let day = Instant(millisecondsSince1970: 1_735_689_600_000)
    static let hostile = "<script>alert('x')</script>"

    func page(
        search: String? = nil, timeline: AdminSearchResult? = nil, freshness: ReportFreshness? = nil,
        now: Instant = Instant(millisecondsSince1970: 0)
    ) -> String {
        var counts = StateCounts()
        counts.add(4_321, in: "active")
        counts.add(17, in: "expired")
        let summary = SummaryReport(
            at: Self.day, basis: .chainColumns,
            products: [
                .init(bundleID: "com.example.app", productID: Self.hostile, productType: nil, counts: counts),
                .init(
                    bundleID: "com.example.app", productID: "pro.play", productType: "auto_renewable",
                    store: "google_play", counts: counts),
            ],
            entitlements: [], totals: counts)
        var january = ChurnReport.Counts()
        january.started = 250
        january.expired = 31
        let churn = ChurnReport(
            from: Self.day, to: Self.day.adding(milliseconds: 40 * 86_400_000), granularity: .month,
            periods: [.init(start: Self.day, counts: january)], totals: january)
        let days = (0..<3).map {
            ActiveOverTimeReport.Day(
                day: Self.day.adding(milliseconds: Int64($0) * 86_400_000), active: 4_000 + $0 * 150)
        }
        return AdminPage.render(
            summary: summary, activeOverTime: days, statesByProduct: summary.products, churnByMonth: churn,
            search: search, timeline: timeline, freshness: freshness, now: now)
    }

    /// The page says how fresh the reports are: up to date, or the moment they are complete up to, how many
    /// changes they miss and how far behind the page's moment that is.
    @Test func thePageShowsHowFreshTheReportsAre() {
        let current = page(freshness: ReportFreshness(asOf: Self.day, pendingChanges: 0), now: Self.day)
        #expect(current.contains("Reports as of 2025-01-01T00:00:00Z (up to date)"))
        let behind = page(
            freshness: ReportFreshness(asOf: Self.day, pendingChanges: 12), now: Self.day.adding(milliseconds: 90_000))
        #expect(behind.contains("Reports as of 2025-01-01T00:00:00Z (12 changes not projected yet, 90 s behind)"))
        #expect(!page().contains("Reports as of"))
    }

    @Test func everyDynamicStringIsEscaped() {
        let html = page(search: "\"><script>alert(1)</script>", timeline: .notFound(Self.hostile))
        #expect(!html.contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(html.contains("value=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\""))
    }

    @Test func chartsAreInlineSVGWithTheirNumbers() {
        let html = page()
        #expect(html.components(separatedBy: "<svg ").count - 1 == 3)
        #expect(html.contains("<polyline class=\"line\""))
        // The area chart labels its maximum and latest values; bars carry their values.
        #expect(html.contains(">4300</text>"))
        #expect(html.contains(">4338</text>"))
        #expect(html.contains("active: 4321</title>"))
        #expect(html.contains("<strong>4321</strong>"))
        #expect(html.contains("expired: 17</title>"))
        #expect(html.contains(">250</text>"))
        #expect(html.contains(">31</text>"))
        #expect(html.contains("2025-01</text>"))
        #expect(!html.contains("<script"))
        // A product's bar names the store that sells it.
        #expect(html.contains(">pro.play (Google Play)</text>"))
    }

    @Test func searchFormAndTimelineAreShown() {
        let event = TimelineEvent(
            at: Self.day, category: .ledgerEntry, bundleID: "com.example.app", environment: "Production",
            originalTransactionID: "1000", transactionID: "1000", productID: "pro.monthly", accountID: Self.hostile,
            kind: "grant", reason: "purchase", until: Self.day.adding(milliseconds: 86_400_000), note: "pro", rowID: 1)
        let timeline = AccountTimeline(accountID: Self.hostile, bundleIDs: ["com.example.app"], events: [event])
        let html = page(search: Self.hostile, timeline: .account(timeline))
        #expect(html.contains("<form method=\"get\" action=\"/admin\""))
        #expect(html.contains("name=\"q\""))
        #expect(html.contains("<td>grant (purchase) [pro] until 2025-01-02T00:00:00Z</td>"))
        #expect(html.contains("<td>2025-01-01T00:00:00Z</td><td>ledger_entry</td>"))
        #expect(!html.contains("<script"))
    }
}
