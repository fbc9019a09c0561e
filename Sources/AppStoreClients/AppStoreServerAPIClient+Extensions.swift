import AppStore
import Foundation
import NIOHTTP1

extension AppStoreServerAPIClient {
    /// Extend a Subscription Renewal Date: moves one active subscription's renewal date by
    /// `request.extendByDays`. Apple refuses ineligible subscriptions with `apiError` 4030004 / 4030005.
    public func extendRenewalDate(
        originalTransactionID: String,
        _ request: ExtendRenewalDateRequest
    ) async throws(AppStoreServerAPIError) -> ExtendRenewalDateResponse {
        try await send(
            ExtendRenewalDateResponse.self,
            method: .PUT,
            path: "/inApps/v1/subscriptions/extend/\(try Self.pathSegment(originalTransactionID))",
            body: try Self.encodeBody(request)
        )
    }

    /// Extend Subscription Renewal Dates for All Active Subscribers: Apple accepts the request and processes
    /// it later; follow it with `massExtensionStatus`.
    public func massExtendRenewalDate(
        _ request: MassExtendRenewalDateRequest
    ) async throws(AppStoreServerAPIError) -> MassExtendRenewalDateResponse {
        try await send(
            MassExtendRenewalDateResponse.self,
            method: .POST,
            path: "/inApps/v1/subscriptions/extend/mass",
            body: try Self.encodeBody(request)
        )
    }

    /// Get Status of Subscription Renewal Date Extensions: how far Apple is with a mass extension.
    public func massExtensionStatus(
        productID: String,
        requestIdentifier: String
    ) async throws(AppStoreServerAPIError) -> MassExtendRenewalDateStatusResponse {
        try await send(
            MassExtendRenewalDateStatusResponse.self,
            method: .GET,
            path: "/inApps/v1/subscriptions/extend/mass/\(try Self.pathSegment(productID))/"
                + (try Self.pathSegment(requestIdentifier))
        )
    }

    private static func encodeBody(_ value: some Encodable) throws(AppStoreServerAPIError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw AppStoreServerAPIError(.invalidConfiguration)
        }
    }
}
