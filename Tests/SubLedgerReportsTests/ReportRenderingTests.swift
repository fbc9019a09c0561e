import Foundation
import SubLedgerCore
import Testing

@testable import SubLedgerReports

/// Table, JSON and CSV rendering: pure functions of report values.
@Suite struct ReportRenderingTests {
    static let day = Instant(millisecondsSince1970: 1_735_689_600_000)

    static let unclaimed = UnclaimedReport(
        rows: [
            .init(
                bundleID: "com.example.app", environment: "Production", transactionID: "t,1",
                originalTransactionID: "say \"hi\"", productID: "=cmd|' /C calc'!A0", purchaseDate: day,
                expiresDate: nil, source: "line\nbreak")
        ],
        totals: [.init(bundleID: "com.example.app", environment: "Production", transactions: 1)],
        truncated: false)

    /// A cell holding a long run of spaces (a crafted transaction id) renders in linear time: the trailing-space
    /// trim was a regex that took over 30 s on one 10 KB cell, and longer than the time limit on these 20 KB; a
    /// linear trim takes milliseconds. (The limit only ends a runaway; nothing measures time.)
    @Test(.timeLimit(.minutes(1))) func tableRendersLongRunsOfSpacesInLinearTime() {
        let id = String(repeating: " ", count: 10_000) + "x" + String(repeating: " ", count: 10_000) + "y"
        var report = Self.unclaimed
        report.rows[0].transactionID = id
        report.rows[0].source = "tail   "
        let text = ReportFormat.table.render(.unclaimed(report))
        #expect(text.contains(id))
        #expect(text.split(separator: "\n").allSatisfy { $0.last?.isWhitespace != true }, "no line ends in a space")
        #expect(ReportFormat.droppingTrailingWhitespace("a b \t ") == "a b")
        #expect(ReportFormat.droppingTrailingWhitespace("   ") == "")
    }

    /// With its freshness, a report's JSON has `as_of` and `pending_changes` beside its own keys, the table a note
    /// saying the same, and the CSV only its rows.
    @Test func freshnessIsInTheJSONAndTheTableButNotTheCSV() throws {
        let freshness = ReportFreshness(asOf: Self.day, pendingChanges: 3)
        let json = ReportFormat.json.render(.unclaimed(Self.unclaimed), freshness: freshness)
        let object = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["as_of"] as? String == "2025-01-01T00:00:00Z")
        #expect(object["pending_changes"] as? Int == 3)
        #expect(object["rows"] is [Any] && object["totals"] is [Any])
        let table = ReportFormat.table.render(.unclaimed(Self.unclaimed), freshness: freshness)
        #expect(table.hasSuffix("As of 2025-01-01T00:00:00Z (3 changes not projected yet).\n"))
        #expect(
            ReportFormat.csv.render(.unclaimed(Self.unclaimed), freshness: freshness)
                == ReportFormat.csv.render(.unclaimed(Self.unclaimed)))
        #expect(ReportFormat.json.render(.unclaimed(Self.unclaimed)).contains("as_of") == false)
    }

    @Test func csvQuotesCommasQuotesAndLineBreaks() {
        let csv = ReportFormat.csv.render(.unclaimed(Self.unclaimed))
        let lines = csv.components(separatedBy: "\r\n")
        #expect(
            lines[0]
                == "purchase_date,app,environment,transaction_id,original_transaction_id,product,expires_date,source")
        #expect(csv.contains(",\"t,1\","))
        #expect(csv.contains(",\"say \"\"hi\"\"\","))
        #expect(csv.contains(",\"line\nbreak\""))
        #expect(csv.hasSuffix("\r\n"))
    }

    @Test func csvDefusesSpreadsheetFormulasButNotNumbers() {
        #expect(ReportFormat.csvField("=cmd|' /C calc'!A0") == "'=cmd|' /C calc'!A0")
        #expect(ReportFormat.csvField("@SUM(A1)") == "'@SUM(A1)")
        #expect(ReportFormat.csvField("-5") == "-5")
        #expect(ReportFormat.csvField(" padded") == "\" padded\"")
        #expect(ReportFormat.csvField("plain") == "plain")
    }

    @Test func jsonUsesSnakeCaseKeysAndISODates() throws {
        let json = ReportFormat.json.render(.unclaimed(Self.unclaimed))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows[0]["purchase_date"] as? String == "2025-01-01T00:00:00Z")
        #expect(rows[0]["original_transaction_id"] as? String == "say \"hi\"")
        #expect(rows[0]["expires_date"] == nil)
        #expect(object["truncated"] as? Bool == false)
    }

    @Test func tableAlignsColumnsAndPrintsNotes() {
        var counts = StateCounts()
        counts.add(12, in: "active")
        counts.add(3, in: "expired")
        counts.add(1, in: "paused")
        let summary = SummaryReport(
            at: Self.day, basis: .chainColumns,
            products: [
                .init(
                    bundleID: "com.example.app", productID: "pro.monthly", productType: "auto_renewable", counts: counts
                )
            ],
            entitlements: [], totals: counts)
        let text = ReportFormat.table.render(.summary(summary))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "Subscription chains by state at 2025-01-01T00:00:00Z (chain_columns)")
        #expect(lines[2].hasPrefix("app              group    id           active  grace_period"))
        #expect(text.contains("com.example.app  product  pro.monthly  12      0             0              3"))
        #expect(text.contains("total    all chains   12"))
        #expect(counts.other == 1 && counts.total == 16)
    }

    @Test func emptyTablesSaySo() {
        let empty = UnclaimedReport(rows: [], totals: [], truncated: false)
        #expect(ReportFormat.table.render(.unclaimed(empty)).contains("(no rows)"))
        #expect(ReportFormat.csv.render(.unclaimed(empty)).components(separatedBy: "\r\n").count == 2)
    }

    @Test func amountsAreMilliUnits() {
        #expect(ReportFormat.amount(milli: 9_990) == "9.99")
        #expect(ReportFormat.amount(milli: 1_000) == "1.00")
        #expect(ReportFormat.amount(milli: 12_345) == "12.345")
        #expect(ReportFormat.amount(milli: 9_900) == "9.90")
        #expect(ReportFormat.amount(milli: 1) == "0.001")
    }

    /// The reports' JSON writes snake_case keys with `convertToSnakeCase`, which splits an acronym's plural
    /// (`bundleIDs` would be `bundle_i_ds`): the account timeline names its apps `bundle_ids`, as documented, and
    /// the support answer its transactions `transaction_ids`; no key of either holds a split plural.
    @Test func acronymPluralsKeepTheirWordInSnakeCaseKeys() throws {
        let timeline = AccountTimeline(
            accountID: "alice", bundleIDs: ["com.example.app"],
            events: [
                TimelineEvent(
                    at: Self.day, category: .ledgerEntry, bundleID: "com.example.app", environment: "Production",
                    originalTransactionID: "2000000001", transactionID: "2000000001", productID: "pro.monthly",
                    accountID: "alice", kind: "grant", reason: "purchase", until: nil, note: nil, rowID: 1)
            ])
        let json = ReportFormat.json(timeline)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["bundle_ids"] as? [String] == ["com.example.app"])
        #expect(object["account_id"] as? String == "alice")
        let apple = SupportAnswer.AppleRecord(
            environment: "Production", transactionIDs: ["1"], unrecordedTransactionIDs: [], applied: false)
        for text in [json, ReportFormat.json(apple)] {
            #expect(text.range(of: #""[a-z_]*_[a-z]_[a-z]+s""#, options: .regularExpression) == nil, "\(text)")
        }
    }
}
