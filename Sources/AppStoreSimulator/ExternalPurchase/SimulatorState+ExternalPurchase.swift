import AppStore
import Foundation
import SubLedgerCore

/// Issuing tokens as StoreKit's external purchase API does, and the External Purchase Server API's two endpoints.
extension SimulatorState {
    /// A new token for the app, created now; sandbox ids start with `SANDBOX` as Apple's do.
    mutating func issueExternalPurchaseToken(
        bundleID: String, _ request: ExternalPurchaseTokenRequest, now: Instant
    ) throws(SimulatorError) -> IssuedExternalPurchaseToken {
        let app = try app(bundleID)
        if let type = request.tokenType, ExternalPurchaseTokenType(rawValue: type) == nil {
            throw SimulatorError(.badRequest, "token_type must be ACQUISITION, SERVICES, IN_APP or LINK_OUT")
        }
        let environment = request.environment ?? .sandbox
        let id = (environment == .sandbox ? "SANDBOX_" : "") + ids.uuid()
        let token = ExternalPurchaseToken(
            externalPurchaseID: id, tokenCreationDate: now.millisecondsSince1970,
            appAppleID: app.description.appAppleID, bundleID: app.bundleID, rawTokenType: request.tokenType)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let json = try? encoder.encode(token) else {
            throw SimulatorError(.internalError, "the token could not be encoded")
        }
        let encoded = Base64URL.encode(json)
        externalPurchases.tokens[id] = ExternalPurchaseBook.Token(
            token: token, bundleID: app.bundleID, environment: environment, encoded: encoded)
        return IssuedExternalPurchaseToken(
            token: encoded, externalPurchaseID: id, bundleID: app.bundleID, appAppleID: app.description.appAppleID,
            tokenCreationDate: now.millisecondsSince1970, tokenType: request.tokenType, environment: environment)
    }

    /// Queues an `EXTERNAL_PURCHASE_TOKEN` notification for an issued token.
    mutating func emitExternalPurchaseTokenNotification(_ id: String, subtype: String) throws(SimulatorError) {
        guard let token = externalPurchases.tokens[id] else {
            throw SimulatorError(.notFound, "external purchase token \(id) does not exist")
        }
        guard ["UNREPORTED", "ACTIVE_TOKEN_REMINDER"].contains(subtype) else {
            throw SimulatorError(.badRequest, "subtype must be UNREPORTED or ACTIVE_TOKEN_REMINDER")
        }
        events.append(
            SimulatorEvent(
                type: "EXTERNAL_PURCHASE_TOKEN", subtype: subtype,
                key: AccountAppKey(appleID: "", bundleID: token.bundleID), transactionID: nil,
                environment: token.environment, externalPurchaseID: id))
    }

    /// `PUT /externalPurchase/v1/reports`: checks the report as Apple documents, then keeps it. 200 with
    /// `SendReportSuccessResponse`; 400 with `SendReportErrorResponse` (nothing kept) or, for a body that is not
    /// a report at all or a `requestIdentifier` that is no UUID, Apple's general `{"errorCode": 4000000}`.
    mutating func sendExternalPurchaseReport(_ request: ServerAPIResponder.Request) -> SimpleResponse {
        guard let report = try? JSONDecoder().decode(ExternalPurchaseReport.self, from: request.body) else {
            return ServerAPIError.invalidRequest
        }
        if let identifier = report.requestIdentifier, !identifier.isEmpty, UUID(uuidString: identifier) == nil {
            return ServerAPIError.invalidRequest
        }
        let scope = ExternalPurchaseBook.Scope(bundleID: request.app.bundleID, environment: request.environment)
        let errors = externalPurchases.check(report, scope: scope, now: request.now)
        guard errors.isEmpty, let identifier = report.requestIdentifier, let id = report.externalPurchaseID,
            let status = report.rawStatus
        else {
            return ServerAPIResponder.encode(SendReportErrorResponse(errors: errors), status: 400)
        }
        let key = ExternalPurchaseBook.ReportKey(scope: scope, requestIdentifier: identifier.lowercased())
        externalPurchases.reports[key] = report
        for item in report.lineItems ?? [] {
            guard let lineItemID = item.lineItemID else { continue }
            externalPurchases.lineItems[ExternalPurchaseBook.LineItemKey(scope: scope, lineItemID: lineItemID)] =
                ExternalPurchaseBook.AcceptedLineItem(
                    externalPurchaseID: id, eventType: item.eventType, rawSubscriptionEvent: item.rawSubscriptionEvent)
        }
        externalPurchases.received.append(
            ReceivedExternalPurchaseReport(
                bundleID: scope.bundleID, environment: scope.environment, requestIdentifier: identifier,
                externalPurchaseID: id, status: status,
                lineItems: (report.lineItems ?? []).map {
                    [$0.lineItemID ?? "", $0.rawEventType ?? "", $0.rawProductType ?? ""].joined(separator: "/")
                },
                receivedAt: request.now.millisecondsSince1970))
        return ServerAPIResponder.encode(SendReportSuccessResponse(requestIdentifier: identifier))
    }

    /// `GET /externalPurchase/v1/reports/{requestIdentifier}`: a report accepted for this app in this
    /// environment, or 400 with a `NotFoundError`.
    func retrieveExternalPurchaseReport(_ identifier: String, _ request: ServerAPIResponder.Request)
        -> SimpleResponse
    {
        let scope = ExternalPurchaseBook.Scope(bundleID: request.app.bundleID, environment: request.environment)
        guard let report = externalPurchases.reports[.init(scope: scope, requestIdentifier: identifier.lowercased())]
        else {
            return ServerAPIResponder.encode(
                ExternalPurchaseReportErrorCode.notFound.error(field: "requestIdentifier"), status: 400)
        }
        return ServerAPIResponder.encode(RetrieveReportSuccessResponse(report: report))
    }
}
