import Foundation

extension FuzzTarget {
    /// Fills the ledger through the service itself before the reads are fuzzed, so reports and account
    /// reads have rows to render: purchases bound to accounts, and unclaimed transactions (from
    /// notifications) with ordinary, long and space-filled ids. Each of these requests is checked like any
    /// other; the service may refuse the long ids (a 4xx), but never fail or stall on them.
    func seedLedger() async throws {
        var random = FuzzRandom(seed: settings.seed, stream: "ledger seed", index: 0)
        let ids = [
            String(random.int(100_000...999_999)), String(random.int(100_000...999_999)),
            String(repeating: "7", count: 300),
            "1" + String(repeating: " ", count: 5_000) + "2" + String(repeating: " ", count: 5_000) + "3",
        ]
        for (index, id) in ids.enumerated() {
            let kind = id.count > 20 ? "transaction id of \(id.count) characters" : "ordinary transaction id"
            let payload = corpus.transactionPayload(&random)
                .replacing([.member(0, "transactionId")], with: .text(id))
                .replacing([.member(1, "originalTransactionId")], with: .text(id))
            guard canContinue else { return }
            do {
                // Bound to an account.
                let body: FuzzJSON = .object([
                    ("account_id", .text("seed-\(index)")), ("signed_transaction", .text(corpus.sign(payload))),
                ])
                try await send(
                    FuzzRoute.request(
                        "POST /v1/transactions (ledger seed)", kind, "/v1/transactions", body: body.bytes,
                        key: corpus.keyOne))
            }
            guard canContinue else { return }
            // Unclaimed: only a notification brought it.
            // Other ids than the bound purchase's, so these stay unclaimed.
            let unclaimed = corpus.transactionPayload(&random)
                .replacing([.member(0, "transactionId")], with: .text("8" + id))
                .replacing([.member(1, "originalTransactionId")], with: .text("8" + id))
            let notification = corpus.notificationPayload(transaction: corpus.sign(unclaimed), renewal: nil, &random)
            let body: FuzzJSON = .object([("signedPayload", .text(corpus.sign(notification)))])
            try await send(
                FuzzRoute.request(
                    "POST /v1/notifications/appstore (V2, ledger seed)", kind, "/v1/notifications/appstore",
                    body: body.bytes, key: nil))
            guard canContinue else { return }
            let info: [FuzzPathComponent] = [
                .member(10, "unified_receipt"), .member(3, "latest_receipt_info"), .element(0),
            ]
            let v1 = corpus.v1Notification(&random)
                .replacing((info + [.member(1, "transaction_id")])[...], with: .text("9" + id))
                .replacing((info + [.member(2, "original_transaction_id")])[...], with: .text("9" + id))
                .replacing([.member(8, "original_transaction_id")], with: .text("9" + id))
                .replacing(
                    [
                        .member(10, "unified_receipt"), .member(4, "pending_renewal_info"), .element(0),
                        .member(1, "original_transaction_id"),
                    ], with: .text("9" + id))
            try await send(
                FuzzRoute.request(
                    "POST /v1/notifications/appstore (V1, ledger seed)", kind, "/v1/notifications/appstore",
                    body: v1.bytes, key: nil))
        }
    }

    /// Every report in every format, once, over the seeded ledger.
    func reportSweep() async throws {
        for name in FuzzRoute.reportOptions.keys.sorted() {
            for format in ["json", "csv", "table"] {
                guard canContinue else { return }
                let id =
                    name == "account" ? "/seed-0" : name == "original" ? "/" + String(repeating: "7", count: 300) : ""
                try await send(
                    FuzzRequest(
                        route: "GET /v1/admin/reports/\(name) (sweep)",
                        inputClass: "format=\(format) over the seeded ledger",
                        method: "GET", target: Array("/v1/admin/reports/\(name)\(id)?format=\(format)".utf8),
                        headers: FuzzRoute.authorization(corpus.adminKey)))
            }
        }
        guard canContinue else { return }
        try await send(
            FuzzRequest(
                route: "GET /admin (sweep)", inputClass: "the page over the seeded ledger", method: "GET",
                target: Array("/admin?q=7".utf8),
                headers: [("Authorization", "Basic " + Data("ops:\(corpus.adminKey)".utf8).base64EncodedString())]))
    }
}
