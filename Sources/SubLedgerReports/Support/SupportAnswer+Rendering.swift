extension SupportAnswer {
    /// The answer as JSON (snake_case keys, ISO 8601 UTC dates), like the reports.
    public var json: String { ReportFormat.json(self) }

    /// The answer for a terminal: the advice, the chains as a table, then the timeline.
    public var text: String {
        var lines = ["\(kind.rawValue) \(query) (\(bundleID)) at \(ReportFormat.timestamp(at))"]
        if let accountID { lines.append("account: \(accountID)") }
        if let order {
            lines.append(
                "order token \(order.orderID): created by \(order.accountID) for \(order.productID), \(order.state)"
                    + (order.fulfilledTransactionID.map { " by transaction \($0)" } ?? ""))
        }
        for purchase in appPurchases ?? [] {
            lines.append(
                "app purchase \(purchase.appTransactionID) (\(purchase.environment)): owned by \(purchase.ownerAccountID)"
                    + (purchase.originalPurchaseDate.map { ", bought \(ReportFormat.timestamp($0))" } ?? "")
                    + (purchase.preorderDate.map { ", pre-ordered \(ReportFormat.timestamp($0))" } ?? "")
                    + "; claimed by "
                    + purchase.claims.map { "\($0.accountID) at \(ReportFormat.timestamp($0.claimedAt))" }
                    .joined(separator: ", "))
        }
        for grant in grants ?? [] {
            lines.append(
                "grant \(grant.grantID) (\(grant.environment)): \(grant.entitlementID) from "
                    + "\(ReportFormat.timestamp(grant.startsAt)) until \(ReportFormat.timestamp(grant.endsAt)) by "
                    + grant.grantedBy
                    + (grant.revokedAt.map { ", revoked \(ReportFormat.timestamp($0))" } ?? "")
                    + (grant.revokedBy.map { " by \($0)" } ?? "") + ": \(grant.reason)")
        }
        if let apple {
            lines.append(
                "Apple (\(apple.environment)): transactions \(apple.transactionIDs.joined(separator: ", "))"
                    + (apple.unrecordedTransactionIDs.isEmpty
                        ? "" : "; not in the ledger: \(apple.unrecordedTransactionIDs.joined(separator: ", "))")
                    + (apple.applied ? "; applied now" : ""))
        }
        lines += ["", "Tell the customer: \(advice)", ""]
        var text = lines.joined(separator: "\n") + "\n"
        text += ReportFormat.text(chainTable)
        text += "\n" + ReportFormat.text(timelineTable)
        return text
    }

    /// The chains, one row each.
    var chainTable: ReportTable {
        ReportTable(
            title: "Chains",
            columns: [
                "environment", "store", "original transaction", "product", "owner", "state", "expires", "auto-renew",
                "owners",
            ],
            rows: chains.map { chain in
                [
                    chain.environment, chain.store, chain.originalTransactionID, chain.productID,
                    chain.ownerAccountID ?? "(unclaimed)",
                    chain.state + (chain.expirationReason.map { " (\($0))" } ?? ""),
                    chain.expiresAt.map(ReportFormat.timestamp) ?? "",
                    chain.willAutoRenew.map { $0 ? "on" : "off" } ?? "", chain.ownershipSummary,
                ]
            })
    }

    /// The timeline, one row per event.
    var timelineTable: ReportTable {
        ReportTable(
            title: "Timeline",
            columns: ["at", "what", "environment", "original transaction", "account", "detail"],
            rows: timeline.map { event in
                [
                    ReportFormat.timestamp(event.at), event.category.rawValue, event.environment ?? "",
                    event.originalTransactionID ?? "", event.accountID ?? "", event.summary,
                ]
            })
    }
}

extension SupportAnswer.Chain {
    /// `alice (first_claim) -> bob (latest_submitter_takes)`.
    public var ownershipSummary: String {
        ownership.map { "\($0.accountID) (\($0.reason))" }.joined(separator: " -> ")
    }
}
