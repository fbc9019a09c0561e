import AppStoreSimulator
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// `subledger import` end to end: appstore-sim's Server API in-process and real PostgreSQL.
@Suite(.serialized) struct MigrationImportTests {
    typealias H = ImportHarness

    /// Importing chains gives the same ledger as the same chains submitted live by their accounts.
    @Test func importingChainsEqualsApplyingThemLive() async throws {
        try await H.run { h in
            let (chains, file) = try h.seed(12)
            #expect(Set(chains.chains.map(\.kind)) == ["active", "expired", "refunded", "upgraded"])
            let summary = try await h.importer(h.imported).run(file, fileName: "chains.csv")
            #expect(summary.failures.isEmpty, "\(summary.failures)")
            #expect(summary.progress.rowsOK == 12)
            #expect(summary.progress.chains == 12)
            #expect(summary.progress.transactions == chains.transactions)
            try await h.applyLive(chains, to: h.live)
            let imported = try await h.snapshot(h.imported)
            let live = try await h.snapshot(h.live)
            #expect(imported.chains.count == 12)
            #expect(imported.transactions.count == chains.transactions)
            #expect(imported.chains == live.chains)
            #expect(imported.transactions == live.transactions)
            #expect(imported.entries == live.entries)
            #expect(imported.entitlements == live.entitlements)
            #expect(!imported.entitlements.isEmpty)
            // Each chain was claimed by its row's account.
            for chain in chains.chains {
                #expect(
                    imported.chains.contains {
                        $0.hasPrefix(chain.originalTransactionID + " ") && $0.contains("owner=\(chain.accountID) ")
                    })
            }
        }
    }

    /// Running the same file again skips every row; a new file with the same chains applies them again,
    /// and neither changes the ledger.
    @Test func importingAgainChangesNothing() async throws {
        try await H.run { h in
            let (chains, file) = try h.seed(6)
            _ = try await h.importer(h.imported).run(file, fileName: "chains.csv")
            let before = try await h.snapshot(h.imported)
            let again = try await h.importer(h.imported).run(file, fileName: "chains.csv")
            #expect(again.progress.rowsSkipped == 6)
            #expect(again.progress.rowsOK == 0)
            let reordered =
                "account_id,original_transaction_id,receipt_data,environment\n"
                + chains.chains.reversed().map { "\($0.accountID),\($0.originalTransactionID),,Sandbox" }.joined(
                    separator: "\r\n")
            let second = try await h.importer(h.imported).run(
                try ImportFile(bytes: Array(reordered.utf8)), fileName: "reordered.csv")
            #expect(second.progress.rowsOK == 6)
            #expect(try await h.snapshot(h.imported) == before)
            #expect(try await h.count("import_runs", in: h.imported) == 2)
        }
    }

    /// An import stopped midway (as by a crash) resumes: finished rows are skipped, the rest are imported,
    /// and the ledger holds every chain once.
    @Test func anInterruptedImportResumesWithoutDuplicates() async throws {
        try await H.run { h in
            let (chains, file) = try h.seed(10)
            let first = try await h.importer(h.imported) {
                $0.stopAfterRows = 4
                $0.concurrency = 2
            }
            .run(file, fileName: "chains.csv")
            #expect(first.interrupted)
            #expect(first.progress.rowsOK == 4)
            let resumed = try await h.importer(h.imported).run(file, fileName: "chains.csv")
            #expect(!resumed.interrupted)
            #expect(resumed.progress.rowsSkipped == 4)
            #expect(resumed.progress.rowsOK == 6)
            #expect(try await h.count("chains", in: h.imported) == 10)
            #expect(try await h.count("transactions", in: h.imported) == Int64(chains.transactions))
            let finished = try await h.imported.pool.query(
                "SELECT count(*) FROM import_runs WHERE finished_at IS NOT NULL")
            #expect(try finished.single().decode(Int64.self, at: 0) == 1)
            // The same chains imported in one go give the same ledger.
            _ = try await h.importer(h.live).run(file, fileName: "chains.csv")
            #expect(try await h.snapshot(h.imported) == h.snapshot(h.live))
        }
    }

    /// Cancelling the import's task (Ctrl-C) stops it between rows; the next run completes it.
    @Test func aCancelledImportCompletesOnTheNextRun() async throws {
        try await H.run { h in
            let (_, file) = try h.seed(20)
            let importer = try h.importer(h.imported) { $0.concurrency = 1 }
            let started = AsyncStream<Void>.makeStream()
            let task = Task {
                try await importer.run(file, fileName: "chains.csv") { progress in
                    if progress.rowsOK == 2 { started.continuation.yield() }
                }
            }
            for await _ in started.stream { break }
            task.cancel()
            let first = try await task.value
            #expect(first.interrupted)
            #expect(first.progress.rowsOK < 20)
            let resumed = try await h.importer(h.imported).run(file, fileName: "chains.csv")
            #expect(resumed.progress.rowsSkipped + resumed.progress.rowsOK == 20)
            #expect(resumed.progress.rowsSkipped == first.progress.rowsOK)
            #expect(try await h.count("chains", in: h.imported) == 20)
        }
    }

    /// The simulator answers 429 (Apple's 4290000 with Retry-After) beyond 5 requests a second; the importer
    /// waits as told and every row still completes.
    @Test func rateLimitedCallsAreBackedOffAndTheImportCompletes() async throws {
        try await H.run { h in
            let (chains, file) = try h.seed(8)
            try h.control.setRateLimits(RateLimitSettings(requestsPerSecond: 8, burst: 2))
            let summary = try await h.importer(h.imported) {
                $0.concurrency = 4
                $0.maximumAttempts = 50
            }
            .run(file, fileName: "chains.csv")
            #expect(summary.failures.isEmpty, "\(summary.failures)")
            #expect(summary.progress.rowsOK == 8)
            #expect(h.control.rateLimits().refused > 0)
            #expect(try await h.count("transactions", in: h.imported) == Int64(chains.transactions))
        }
    }

    /// A row naming a chain Apple does not know fails with its line number; the other rows go on, and the
    /// refused rows of the file are recorded too.
    @Test func failingRowsAreReportedByLineAndTheOthersGoOn() async throws {
        try await H.run { h in
            let (chains, _) = try h.seed(2)
            let text = """
                account_id,original_transaction_id,receipt_data,environment
                \(chains.chains[0].accountID),\(chains.chains[0].originalTransactionID),,Sandbox
                bad account!,1000,,Sandbox
                ghost,2000000999999999,,Sandbox
                \(chains.chains[1].accountID),\(chains.chains[1].originalTransactionID),,Sandbox
                """
            let summary = try await h.importer(h.imported).run(
                try ImportFile(bytes: Array(text.utf8)), fileName: "x.csv")
            #expect(summary.progress.rowsOK == 2)
            #expect(summary.progress.rowsFailed == 2)
            #expect(summary.failures.map(\.lineNumber) == [3, 4])
            #expect(summary.failures[0].reason.code == "invalid_account_id")
            #expect(summary.text.contains("line 4: "))
            let failed = try await h.imported.pool.query(
                "SELECT line_number FROM import_rows WHERE status = 'failed' ORDER BY 1")
            #expect(try failed.map { try $0.decode(Int64.self, at: 0) } == [3, 4])
        }
    }

    /// A row naming a chain another account owns is decided by the app's ownership rule, as a live submission by
    /// the row's account is, and reported as written: `owned_by_another_account` exactly for the rows whose chain
    /// stayed with its owner (the seed rule keeps a chain whose owner still auto-renews it, and moves an expired,
    /// refunded or upgraded-away one).
    @Test func aChainOwnedByAnotherAccountIsReportedAsTheOwnershipRuleLeftIt() async throws {
        try await H.run { h in
            let (chains, file) = try h.seed(12)
            let first = try await h.importer(h.imported).run(file, fileName: "chains.csv")
            #expect(first.failures.isEmpty, "\(first.failures)")
            let text =
                "account_id,original_transaction_id,receipt_data,environment\n"
                + chains.chains.map { "zed,\($0.originalTransactionID),,Sandbox" }.joined(separator: "\n")
            let summary = try await h.importer(h.imported).run(
                try ImportFile(bytes: Array(text.utf8)), fileName: "zed.csv")
            #expect(summary.failures.allSatisfy { $0.reason.code == "owned_by_another_account" }, "\(summary.failures)")
            let refused = Set(summary.failures.map(\.lineNumber))
            var moved = 0
            for (index, chain) in chains.chains.enumerated() {
                let owner = try await h.imported.pool.query(
                    "SELECT owner_account_id FROM chains WHERE original_transaction_id = \(chain.originalTransactionID)"
                ).first?.decode(String?.self, at: 0)
                let stayed = owner != "zed"
                #expect(
                    refused.contains(index + 2) == stayed,
                    "\(chain.kind) \(chain.originalTransactionID): \(owner ?? "-")")
                if stayed { #expect(owner == chain.accountID) } else { moved += 1 }
            }
            // Both outcomes occur among the seeded chains.
            #expect(moved > 0)
            #expect(!refused.isEmpty)
            #expect(summary.progress.rowsOK == moved)
        }
    }

    /// A receipt row goes through verifyReceipt for its account.
    @Test func aReceiptRowIsVerifiedForItsAccount() async throws {
        try await H.run { h in
            let appleID = try h.control.createAppleID(AppleIDDefinition(environment: .sandbox)).appleID
            let bought = try await h.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: H.bundleID, productID: "pro.monthly"))
            let text = "account_id,original_transaction_id,receipt_data,environment\nrita,,\(bought.receiptData),\n"
            let summary = try await h.importer(h.imported).run(
                try ImportFile(bytes: Array(text.utf8)), fileName: "r.csv")
            #expect(summary.failures.isEmpty, "\(summary.failures)")
            #expect(summary.progress.chains == 1)
            let held = try await h.imported.store.entitlements(
                for: try AccountID("rita"), app: h.imported.app, at: h.now)
            #expect(held.map(\.entitlementID) == ["pro"])
        }
    }

    /// `--dry-run` says what would happen for every row and writes nothing.
    @Test func aDryRunWritesNothing() async throws {
        try await H.run { h in
            let (_, file) = try h.seed(3)
            let summary = try await h.importer(h.imported) { $0.dryRun = true }.run(file, fileName: "chains.csv")
            #expect(summary.dryRun)
            #expect(summary.plan.count == 3)
            #expect(summary.plan[0].contains("would fetch the history of chain"))
            for table: PostgresQuery in ["import_runs", "import_rows", "chains", "transactions", "ledger_entries"] {
                #expect(try await h.count(table, in: h.imported) == 0)
            }
        }
    }
}
