import AppStore
import AppStoreClients
import Foundation
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Sends one recorded External Purchase report (the `report_external_purchase` obligation) and confirms Apple holds
/// it. The report's `requestIdentifier` was drawn when it was recorded, so every try sends the same report under
/// the same identifier: a try asks Apple first (Retrieve External Purchase Report) whether a report was accepted
/// under it (a process that died after sending), and only sends when none was. Apple's refusal (`400` with its
/// error objects) is final and kept with the report; 5xx, 429 and timeouts are tried again.
public struct ExternalPurchaseReportSender: Sendable {
    let store: ExternalPurchaseStore
    let apple: AppleGateway

    public init(store: ExternalPurchaseStore, apple: AppleGateway) {
        self.store = store
        self.apple = apple
    }

    /// Sends report `reportID` of `app` through `client`, at `now`; never throws (a failure is the attempt's
    /// outcome, and a final one is kept with the report).
    func send(reportID: Int64, app: StoredApp, client: AppStoreServerAPIClient, now: Instant) async
        -> ObligationAttempt
    {
        do {
            return try await attempt(reportID: reportID, app: app, client: client, now: now)
        } catch let failure as ServerAPICallFailure {
            let attempt = AppStoreObligationSender.attempt(failure, now: now)
            if case .refused(_, _, let detail) = attempt {
                try? await store.markFailed(reportID, appleErrors: nil, detail: detail)
            }
            return attempt
        } catch {
            return .transient(detail: "database: \(error)")
        }
    }

    private func attempt(reportID: Int64, app: StoredApp, client: AppStoreServerAPIClient, now: Instant)
        async throws -> ObligationAttempt
    {
        guard let stored = try await store.report(reportID) else {
            return .refused(detail: "no_report: the external purchase report is not recorded")
        }
        switch stored.state {
        case "confirmed": return .sent()
        case "failed": return .refused(detail: "report_refused: Apple refused the report before")
        default: break
        }
        // A renewal or a refund references a line item of an earlier report, which Apple must hold first.
        if stored.waitsForEarlierReport {
            return .transient(detail: "earlier_report_pending: an earlier report of the token is not confirmed yet")
        }
        var conversions: [String: ExternalPurchaseReportBuilder.Conversion] = [:]
        for item in stored.lineItems where ExternalPurchaseReportBuilder.needsConversion(item.currency) {
            guard let conversion = try await conversion(of: item) else {
                let day = CalendarDay.text(item.occurredAt.millisecondsSince1970 / 86_400_000)
                return .transient(
                    detail: "exchange_rate_missing: Apple does not accept \(item.currency) as a reporting currency; "
                        + "load a rate of \(item.currency) into USD or EUR within 2 days of \(day) (subledger fx apply)"
                )
            }
            conversions[item.lineItemID] = conversion
        }
        let report = ExternalPurchaseReportBuilder.report(stored, app: app.definition, conversions: conversions)
        if try await retrieve(stored.requestIdentifier, client: client) == nil {
            if let refusal = await sendReport(report, client: client) {
                guard case .apple(let error) = refusal, error.code == .reportRejected else { throw refusal }
                let errors = error.reportErrors ?? []
                let json = (try? JSONEncoder().encode(errors)).flatMap { String(data: $0, encoding: .utf8) }
                let detail =
                    "report_rejected: "
                    + errors.map { "\($0.errorCode ?? 0) \($0.fieldName ?? "")" }.joined(separator: ", ")
                try await store.markFailed(reportID, appleErrors: json, detail: detail)
                return .refused(httpStatus: error.httpStatus, detail: detail)
            }
            try await store.markSent(reportID, now: now)
            guard try await retrieve(stored.requestIdentifier, client: client) != nil else {
                return .transient(detail: "report_not_retrievable: Apple accepted the report but does not return it")
            }
        }
        try await store.markConfirmed(reportID, now: now)
        return .sent()
    }

    /// How `item`, in a currency Apple does not accept, is reported: in the first of Apple's conversion currencies
    /// with a stored rate within Apple's window of the transaction's day; nil when there is none.
    private func conversion(of item: StoredExternalPurchaseReport.LineItem) async throws
        -> ExternalPurchaseReportBuilder.Conversion?
    {
        let day = item.occurredAt.millisecondsSince1970 / 86_400_000
        for target in ExternalPurchaseCurrencies.conversionTargets {
            if let found = try await store.exchangeRate(
                of: item.currency, into: target, nearDay: day, withinDays: ExternalPurchaseCurrencies.rateWindowDays)
            {
                return .init(reportingCurrency: target, rate: found.rate)
            }
        }
        return nil
    }

    /// Sends `report`; nil when Apple accepted it, else why not.
    private func sendReport(_ report: ExternalPurchaseReport, client: AppStoreServerAPIClient) async
        -> ServerAPICallFailure?
    {
        do {
            _ = try await apple.callServerAPI(.sendExternalPurchaseReport) { () async throws(AppStoreServerAPIError) in
                try await client.sendExternalPurchaseReport(report)
            }
            return nil
        } catch {
            return error
        }
    }

    private func retrieve(_ requestIdentifier: String, client: AppStoreServerAPIClient)
        async throws(ServerAPICallFailure) -> ExternalPurchaseReport?
    {
        try await apple.callServerAPI(.retrieveExternalPurchaseReport) { () async throws(AppStoreServerAPIError) in
            try await client.retrieveExternalPurchaseReport(requestIdentifier: requestIdentifier)
        }
    }
}
