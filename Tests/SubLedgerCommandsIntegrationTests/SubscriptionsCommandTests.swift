import Testing

/// `subledger subscriptions` refuses bad arguments with a clear message before it opens
/// anything (no database, no Apple).
@Suite struct SubscriptionsCommandTests {
    private static func run(_ arguments: [String]) async -> (status: Int32, output: String) {
        let run = await SubLedgerCLI.run(["subscriptions"] + arguments)
        return (run.status, run.output)
    }

    @Test func daysOutsideOneToNinetyAreRefused() async throws {
        for days in ["0", "91"] {
            let result = await Self.run(["extend", "2000000000000001", "--days", days, "--reason", "other"])
            #expect(result.status != 0)
            #expect(result.output.contains("--days must be 1 to 90"), "\(result.output)")
        }
    }

    @Test func anUnknownReasonIsRefusedWithTheFourNames() async throws {
        let result = await Self.run(["extend", "2000000000000001", "--days", "3", "--reason", "outage"])
        #expect(result.status != 0)
        #expect(result.output.contains("unknown reason 'outage'"), "\(result.output)")
        #expect(result.output.contains("service_issue_or_outage"))
        #expect(result.output.contains("customer_satisfaction"))
    }

    @Test func oneSubscriptionOrAllActiveWithAProduct() async throws {
        let neither = await Self.run(["extend", "--days", "3", "--reason", "other"])
        #expect(neither.status != 0)
        #expect(neither.output.contains("give the ORIGINAL_ID"), "\(neither.output)")
        let noProduct = await Self.run(["extend", "--all-active", "--days", "3", "--reason", "other"])
        #expect(noProduct.status != 0)
        #expect(noProduct.output.contains("--all-active needs --product"), "\(noProduct.output)")
        let both = await Self.run(
            ["extend", "2000000000000001", "--all-active", "--product", "p", "--days", "3", "--reason", "other"])
        #expect(both.status != 0)
        #expect(both.output.contains("not both"), "\(both.output)")
        let badEnvironment = await Self.run(
            ["extend", "2000000000000001", "--days", "3", "--reason", "other", "--environment", "staging"])
        #expect(badEnvironment.status != 0)
        #expect(badEnvironment.output.contains("production or sandbox"), "\(badEnvironment.output)")
        let status = await Self.run(["extend-status", "abc"])
        #expect(status.status != 0)
        #expect(status.output.contains("--product"), "\(status.output)")
    }
}
