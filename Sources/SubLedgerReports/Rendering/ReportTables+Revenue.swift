import SubLedgerCore

// How the revenue reports read as tables: amounts in units with three decimals (milli-units exactly).

private func money(_ milli: Int64) -> String { DecimalText.milliunits(milli) }

extension MRRReport {
    public var table: ReportTable {
        let movementColumns = ["new", "expansion", "contraction", "churned", "reactivation", "net"]
        let movementCells = { (movement: MRRMovement) in
            [
                movement.new, movement.expansion, movement.contraction, movement.churned, movement.reactivation,
                movement.net,
            ]
            .map(money)
        }
        var rows = self.rows.map { row in
            [
                row.month, row.currency, money(row.mrrMilli), money(row.arrMilli), String(row.subscribers),
                money(row.committedMrrMilli), String(row.committedSubscribers),
            ]
                + movementCells(row.movementMilli) + [row.estimated ? "yes" : "no"]
        }
        if let reporting, let currency = reportingCurrency {
            rows += reporting.map { row in
                [
                    row.month, currency + (row.complete ? " (all)" : " (partial)"), money(row.mrrMilli),
                    money(row.arrMilli), "", money(row.committedMrrMilli), "",
                ]
                    + movementCells(row.movementMilli) + [""]
            }
        }
        var notes = [
            "Amounts in units of each currency; movement: new + expansion + reactivation − contraction − churned = net.",
            "committed: the MRR and subscribers of commitment plans (monthly, 12-month commitment), bound until the commitment ends.",
        ]
        if !missingRates.isEmpty {
            notes.append(
                "No exchange rate into \(reportingCurrency ?? ""): "
                    + missingRates.map { "\($0.currency) (from \($0.day))" }.joined(separator: ", "))
        }
        return ReportTable(
            title: "MRR per month from \(ReportFormat.day(from)) to \(ReportFormat.day(to))",
            columns: ["month", "currency", "mrr", "arr", "subscribers", "committed_mrr", "committed_subscribers"]
                + movementColumns + ["estimated"],
            rows: rows, notes: notes)
    }
}

extension RevenueReport {
    public var table: ReportTable {
        let cells = { (amounts: Amounts) in
            [
                money(amounts.grossMilli), money(amounts.refundsMilli), money(amounts.netMilli),
                money(amounts.taxMilli),
                money(amounts.commissionMilli), money(amounts.processingFeeMilli), money(amounts.proceedsMilli),
                money(amounts.estimatedMilli),
                String(amounts.sales), String(amounts.refunds),
            ]
        }
        var rows = self.rows.map {
            [$0.period, $0.bundleID, $0.productID, $0.storefront, $0.currency] + cells($0.amounts)
        }
        rows += totals.map { ["total", "", "", "", $0.currency] + cells($0.amounts) }
        if let reportingTotal, let reportingCurrency {
            rows.append(["total", "", "", "", reportingCurrency + " (converted)"] + cells(reportingTotal))
        }
        var notes = [
            "Amounts in units of each currency; estimated: priced from the catalog or a prorated upgrade credit.",
            "processing_fee: the payment processor's fee on web sales (Stripe's, Paddle's), less what refunds gave "
                + "back (Paddle's; Stripe keeps its fee); proceeds = net − tax − commission − processing_fee.",
        ]
        for payout in payoutTotals {
            notes.append(
                "Paid out in \(payout.currency) as the store states it: earnings \(money(payout.earningsMilli)) "
                    + "(\(payout.sales) sale(s): total \(money(payout.totalMilli)), tax \(money(payout.taxMilli)), "
                    + "fee \(money(payout.feeMilli))), refunds took back \(money(payout.refundedEarningsMilli)) "
                    + "(\(payout.refunds)), net \(money(payout.netEarningsMilli)).")
        }
        if unpricedSales > 0 {
            notes.append("\(unpricedSales) sale(s) without any price (no Apple price, no catalog price point)")
        }
        if !missingRates.isEmpty {
            notes.append(
                "No exchange rate into \(reportingCurrency ?? ""): "
                    + missingRates.map { "\($0.currency) (from \($0.day))" }.joined(separator: ", "))
        }
        return ReportTable(
            title:
                "Revenue per \(granularity.rawValue) from \(ReportFormat.timestamp(from)) to \(ReportFormat.timestamp(to))",
            columns: [
                "period", "app", "product", "storefront", "currency", "gross", "refunds", "net", "tax", "commission",
                "processing_fee", "proceeds", "estimated", "sales", "refund_count",
            ],
            rows: rows, notes: notes)
    }
}
