import AppStore
import Foundation

/// The External Purchase Server API, served beside the App Store Server API (same hosts, same In-App Purchase key
/// and bearer token).
extension AppStoreServerAPIClient {
    /// Send External Purchase Report: `PUT /externalPurchase/v1/reports`. Apple answers 200 with the report's
    /// `requestIdentifier` once the report passed validation; 400 with `SendReportErrorResponse` when nothing of it
    /// was accepted (thrown as `reportRejected` with `reportErrors`); a 400 without error objects (a malformed
    /// request) as `apiError`.
    public func sendExternalPurchaseReport(_ report: ExternalPurchaseReport)
        async throws(AppStoreServerAPIError) -> SendReportSuccessResponse
    {
        let answer = try await exchangeJSON(.PUT, path: "/externalPurchase/v1/reports", body: report)
        if answer.status == 400,
            let refusal = try? JSONDecoder().decode(SendReportErrorResponse.self, from: answer.body),
            let errors = refusal.errors, !errors.isEmpty
        {
            throw AppStoreServerAPIError(.reportRejected, httpStatus: 400, reportErrors: errors)
        }
        guard (200..<300).contains(answer.status) else {
            throw Self.error(status: answer.status, headers: answer.headers, body: answer.body, now: now())
        }
        guard let accepted = try? JSONDecoder().decode(SendReportSuccessResponse.self, from: answer.body) else {
            throw AppStoreServerAPIError(.malformedResponse, httpStatus: answer.status)
        }
        return accepted
    }

    /// Retrieve External Purchase Report: `GET /externalPurchase/v1/reports/{requestIdentifier}`: the report as
    /// Apple accepted it, or `nil` when Apple answers its `NotFoundError` (no report was accepted under that
    /// identifier, so it must be sent).
    public func retrieveExternalPurchaseReport(requestIdentifier: String)
        async throws(AppStoreServerAPIError) -> ExternalPurchaseReport?
    {
        let path = "/externalPurchase/v1/reports/\(try Self.pathSegment(requestIdentifier))"
        let answer = try await exchangeJSON(.GET, path: path, body: nil)
        if answer.status == 400,
            let refusal = try? JSONDecoder().decode(ExternalPurchaseReportError.self, from: answer.body),
            refusal.errorCode == ExternalPurchaseReportErrorCode.notFound.rawValue
        {
            return nil
        }
        guard (200..<300).contains(answer.status) else {
            throw Self.error(status: answer.status, headers: answer.headers, body: answer.body, now: now())
        }
        guard let retrieved = try? JSONDecoder().decode(RetrieveReportSuccessResponse.self, from: answer.body),
            let report = retrieved.report
        else {
            throw AppStoreServerAPIError(.malformedResponse, httpStatus: answer.status)
        }
        return report
    }
}
