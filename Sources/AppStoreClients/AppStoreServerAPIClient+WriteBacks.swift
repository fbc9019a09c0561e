import AppStore
import Foundation

extension AppStoreServerAPIClient {
    /// Set App Account Token: `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`. Apple answers
    /// 200 with no body; it refuses a token that is not a UUID (4000183), a Family Sharing transaction (4000185) and
    /// an id that is not an original transaction id (4000187).
    public func setAppAccountToken(originalTransactionID: String, appAccountToken: String)
        async throws(AppStoreServerAPIError)
    {
        try await sendWithoutAnswer(
            .PUT, path: "/inApps/v1/transactions/\(try Self.pathSegment(originalTransactionID))/appAccountToken",
            body: UpdateAppAccountTokenRequest(appAccountToken: appAccountToken))
    }

    /// Finish Transaction: `POST /inApps/v1/transactions/{transactionId}/finish`, telling Apple the server delivered
    /// the purchase. Apple answers 200 with no body; 404 (4040010) for a transaction it does not know.
    public func finishTransaction(transactionID: String) async throws(AppStoreServerAPIError) {
        try await sendWithoutAnswer(
            .POST, path: "/inApps/v1/transactions/\(try Self.pathSegment(transactionID))/finish", body: nil)
    }
}
