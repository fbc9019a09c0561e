import SubLedgerCore

// How each report reads as a table (for `--format table` and `--format csv`).

private func text(_ instant: Instant?) -> String { instant.map(ReportFormat.timestamp) ?? "" }
private func text(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "" }
private func stateCells(_ counts: StateCounts) -> [String] {
    StateCounts.stateNames.map { String(counts[$0]) } + [String(counts.other), String(counts.total)]
}
private let stateColumns = StateCounts.stateNames + ["other", "total"]

extension SummaryReport {
    public var table: ReportTable {
        var rows = products.map { [$0.bundleID, "product", $0.productID] + stateCells($0.counts) }
        rows += entitlements.map { [$0.bundleID, "entitlement", $0.entitlementID] + stateCells($0.counts) }
        rows.append(["", "total", "all chains"] + stateCells(totals))
        return ReportTable(
            title: "Subscription chains by state at \(ReportFormat.timestamp(at)) (\(basis.rawValue))",
            columns: ["app", "group", "id"] + stateColumns, rows: rows)
    }
}

extension ActiveReport {
    public var table: ReportTable {
        let cells = { (row: Row) in [String(row.trial), String(row.intro), String(row.paid), String(row.total)] }
        return ReportTable(
            title: "Active subscribers at \(ReportFormat.timestamp(at))",
            columns: ["app", "product", "trial", "intro", "paid", "total"],
            rows: rows.map { [$0.bundleID, $0.productID] + cells($0) } + [["", "total"] + cells(totals)])
    }
}

extension ExpiringReport {
    public var table: ReportTable {
        ReportTable(
            title: "Chains expiring from \(ReportFormat.timestamp(from)) to \(ReportFormat.timestamp(to))",
            columns: [
                "expires_at", "app", "environment", "original_transaction_id", "product", "owner", "state",
                "will_auto_renew", "in_billing_retry", "grace_expires_at", "billing_plan", "commitment_ends_at",
            ],
            rows: rows.map {
                [
                    text($0.expiresAt), $0.bundleID, $0.environment, $0.originalTransactionID, $0.productID,
                    $0.ownerAccountID ?? "", $0.state, text($0.willAutoRenew), text($0.inBillingRetry),
                    text($0.graceExpiresAt), $0.billingPlan ?? "", text($0.commitmentEndsAt),
                ]
            },
            notes: [
                "\(totals.chains) chains: \(totals.willAutoRenew) will auto-renew, \(totals.willNotAutoRenew) will not, "
                    + "\(totals.autoRenewUnknown) unknown; \(totals.inBillingRetry) in billing retry; "
                    + "\(totals.inCommitment) in a commitment that runs past their expiry"
                    + (truncated ? " (first \(rows.count) shown)" : "")
            ])
    }
}

extension ChurnReport {
    public var table: ReportTable {
        let reasons = expirationReasons
        let cells = { (counts: Counts) in
            [String(counts.started), String(counts.renewed), String(counts.expired)]
                + reasons.map { String(counts.expiredByReason[$0] ?? 0) } + [String(counts.recovered)]
                + [
                    counts.voluntary, counts.involuntary, counts.priceIncreaseDeclined, counts.productUnavailable,
                    counts.refunded, counts.expiredCommitted,
                ].map(String.init)
        }
        return ReportTable(
            title:
                "Churn from \(ReportFormat.timestamp(from)) to \(ReportFormat.timestamp(to)) per \(granularity.rawValue)",
            columns: ["period", "started", "renewed", "expired"] + reasons.map { "expired_" + $0 } + ["recovered"]
                + [
                    "voluntary", "involuntary", "price_increase_declined", "product_unavailable", "refunded",
                    "committed_expired",
                ],
            rows: periods.map { period in
                [
                    granularity == .day
                        ? ReportFormat.day(period.start) : String(ReportFormat.day(period.start).prefix(7))
                ]
                    + cells(period.counts)
            } + [["total"] + cells(totals)])
    }
}

extension RefundsReport {
    public var table: ReportTable {
        var notes = [
            "\(totals.refunds) refunds, \(totals.familySharingRevocations) Family Sharing revocations, "
                + "\(totals.debits) credit debits" + (truncated ? " (latest \(rows.count) shown)" : "")
        ]
        notes += totals.amounts.map { "\($0.currency): \(ReportFormat.amount(milli: $0.amountMilli)) in \($0.refunds)" }
        if totals.reversed > 0 { notes.append("\(totals.reversed) reversed since (listed at 0)") }
        if totals.withoutAmount > 0 { notes.append("\(totals.withoutAmount) without a known amount") }
        return ReportTable(
            title: "Refunds and revocations from \(ReportFormat.timestamp(from)) to \(ReportFormat.timestamp(to))",
            columns: [
                "at", "app", "environment", "account", "product", "original_transaction_id", "transaction_id", "kind",
                "reason", "reason_code", "credits", "amount", "refunded", "percentage", "currency", "reversed",
            ],
            rows: rows.map {
                [
                    text($0.at), $0.bundleID, $0.environment, $0.accountID ?? "", $0.productID,
                    $0.originalTransactionID,
                    $0.transactionID ?? "", $0.kind, $0.reason ?? "", $0.revocationReasonCode.map(String.init) ?? "",
                    $0.credits.map(String.init) ?? "", $0.priceMilli.map(ReportFormat.amount(milli:)) ?? "",
                    $0.refundedMilli.map(ReportFormat.amount(milli:)) ?? "",
                    $0.revocationPercentage.map { DecimalText.milliunits(Int64($0)) } ?? "", $0.currency ?? "",
                    $0.reversed ? "yes" : "",
                ]
            },
            notes: notes)
    }
}

extension TransfersReport {
    public var table: ReportTable {
        ReportTable(
            title: "Ownership transfers from \(ReportFormat.timestamp(from)) to \(ReportFormat.timestamp(to))",
            columns: [
                "at", "app", "environment", "original_transaction_id", "product", "sequence", "from_account",
                "to_account", "reason", "previous_owner_since", "transaction_id",
            ],
            rows: rows.map {
                [
                    text($0.at), $0.bundleID, $0.environment, $0.originalTransactionID, $0.productID ?? "",
                    String($0.sequence), $0.fromAccountID ?? "", $0.toAccountID, $0.reason, text($0.previousOwnerSince),
                    $0.transactionID ?? "",
                ]
            },
            notes: totals.map { "\($0.reason): \($0.transfers)" } + (truncated ? ["(latest \(rows.count) shown)"] : []))
    }
}

extension UnclaimedReport {
    public var table: ReportTable {
        ReportTable(
            title: "Unclaimed transactions",
            columns: [
                "purchase_date", "app", "environment", "transaction_id", "original_transaction_id", "product",
                "expires_date", "source",
            ],
            rows: rows.map {
                [
                    text($0.purchaseDate), $0.bundleID, $0.environment, $0.transactionID, $0.originalTransactionID,
                    $0.productID, text($0.expiresDate), $0.source,
                ]
            },
            notes: totals.map { "\($0.bundleID) \($0.environment): \($0.transactions)" }
                + (truncated ? ["(newest \(rows.count) shown)"] : []))
    }
}

extension QuarantinedReport {
    public var table: ReportTable {
        ReportTable(
            title: "Quarantined stored inputs (gave up after every attempt failed)",
            columns: ["received_at", "input", "id", "app", "kind", "environment", "account", "attempts", "last_error"],
            rows: rows.map {
                [
                    ReportFormat.timestamp($0.receivedAt), $0.input, String($0.id), $0.bundleID, $0.kind,
                    $0.environment ?? "", $0.accountID ?? "", String($0.attempts), $0.lastError ?? "",
                ]
            },
            notes: totals.map { "\($0.bundleID) \($0.input)s: \($0.count)" }
                + (truncated ? ["(more rows than shown)"] : []))
    }
}

private func timelineRows(_ events: [TimelineEvent]) -> [[String]] {
    events.map {
        [
            text($0.at), $0.category.rawValue, $0.bundleID, $0.environment ?? "", $0.originalTransactionID ?? "",
            $0.productID ?? "", $0.accountID ?? "", $0.summary,
        ]
    }
}

private let timelineColumns = [
    "at", "category", "app", "environment", "original_transaction_id", "product", "account", "what",
]

extension AccountTimeline {
    public var table: ReportTable {
        ReportTable(
            title: "Timeline of account \(accountID) (\(bundleIDs.joined(separator: ", ")))",
            columns: timelineColumns, rows: timelineRows(events))
    }
}

extension ChainAudit {
    public var table: ReportTable {
        ReportTable(
            title: "Audit trail of original transaction \(originalTransactionID)",
            columns: timelineColumns, rows: timelineRows(events),
            notes: chains.map {
                "\($0.bundleID) \($0.environment): \($0.productID), owner \($0.ownerAccountID ?? "none"), \($0.state)"
                    + ($0.expirationReason.map { " (\($0))" } ?? "")
                    + ($0.expiresAt.map { ", expires \(text($0))" } ?? "")
            })
    }
}

extension ActiveOverTimeReport {
    public var table: ReportTable {
        ReportTable(
            title: "Active subscriptions per day", columns: ["day", "active"],
            rows: days.map { [ReportFormat.day($0.day), String($0.active)] })
    }
}
