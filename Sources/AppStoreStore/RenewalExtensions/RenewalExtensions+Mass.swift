import AppStore
import AppStoreClients
import Foundation
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

extension RenewalExtensions {
    /// Asks Apple to extend every active subscriber of `productID` (Apple's Extend Subscription Renewal Dates
    /// for All Active Subscribers) and records the request with the chains the ledger holds as active.
    ///
    /// Apple answers at once and works later: follow with `refreshMassStatus` or `waitForMassCompletion`.
    /// A `requestIdentifier` recorded before is not sent again unless Apple never answered it.
    public func extendAllActive(
        productID: String, app: StoredApp, environment: StoreEnvironment = .production,
        storefrontCountryCodes: [String]? = nil, days: Int, reason: ExtendReasonCode, requestedBy: String,
        requestIdentifier given: String? = nil
    ) async throws -> MassExtensionRecord {
        try Self.checkDays(days)
        let identifier = try requestIdentifier(given)
        guard let product = app.definition.product(productID) else {
            throw RenewalExtensionError(.unknownProduct, "\(app.bundleID) has no product \(productID) in the catalog")
        }
        guard product.type == .autoRenewable else {
            throw RenewalExtensionError(
                .notAutoRenewable, "\(productID) is a \(product.type.rawValue) product, not a subscription")
        }
        let storefronts = try Self.storefronts(storefrontCountryCodes)
        let client = try serverAPIClient(app, environment)
        let (record, created) = try await records.recordMassRequest(
            MassExtensionRecord(
                requestIdentifier: identifier, environment: environment, productID: productID,
                storefrontCountryCodes: storefronts, days: days, reasonCode: reason.rawValue,
                requestedBy: requestedBy, requestedAt: now(), status: .requested),
            appID: app.appID, now: now())
        guard created || record.status == .requested else { return record }
        do {
            _ = try await apple.callServerAPI(.massExtendRenewalDate) { () async throws(AppStoreServerAPIError) in
                try await client.massExtendRenewalDate(
                    MassExtendRenewalDateRequest(
                        extendByDays: record.days,
                        extendReasonCode: ExtendReasonCode(rawValue: record.reasonCode) ?? reason,
                        requestIdentifier: identifier, storefrontCountryCodes: record.storefrontCountryCodes,
                        productID: record.productID))
            }
        } catch .notCalled(let wait) {
            // Not sent: the request stays `requested`, and running the command again sends it.
            throw Self.notCalled(wait)
        } catch .apple(let error) {
            if !error.isRetryable {
                try await records.updateMassRequest(
                    identifier, appID: app.appID, status: .refused, appleError: error.description, at: now())
            }
            throw Self.refusal(error)
        }
        try await records.updateMassRequest(identifier, appID: app.appID, status: .submitted, at: now())
        return try await massRecord(identifier, productID: productID, app: app)
    }

    /// Asks Apple how far a mass request is (Get Status of Subscription Renewal Date Extensions) and records
    /// it. When Apple reports it complete, every member chain is refreshed from the Server API and settled.
    public func refreshMassStatus(
        requestIdentifier: String, productID: String, app: StoredApp
    ) async throws -> MassExtensionRecord {
        let record = try await massRecord(requestIdentifier, productID: productID, app: app)
        if record.status == .complete || record.status == .refused {
            try await settleMembers(requestIdentifier, app: app)
            return try await massRecord(requestIdentifier, productID: productID, app: app)
        }
        let client = try serverAPIClient(app, record.environment)
        let status: MassExtendRenewalDateStatusResponse
        do {
            status = try await apple.callServerAPI(.massExtensionStatus) { () async throws(AppStoreServerAPIError) in
                try await client.massExtensionStatus(productID: productID, requestIdentifier: requestIdentifier)
            }
        } catch .notCalled(let wait) {
            throw Self.notCalled(wait)
        } catch .apple(let error) {
            throw Self.refusal(error)
        }
        guard status.complete == true else {
            if record.status == .requested {
                // Apple knows it: the answer to the submission was lost, but the request was taken.
                try await records.updateMassRequest(requestIdentifier, appID: app.appID, status: .submitted, at: now())
            }
            return try await massRecord(requestIdentifier, productID: productID, app: app)
        }
        try await records.updateMassRequest(
            requestIdentifier, appID: app.appID, status: .complete,
            completeDate: status.completeDate.map(Instant.init(millisecondsSince1970:)),
            succeededCount: status.succeededCount, failedCount: status.failedCount, at: now())
        try await settleMembers(requestIdentifier, app: app)
        return try await massRecord(requestIdentifier, productID: productID, app: app)
    }

    /// Polls Apple every `interval` until the mass request is complete, calling `progress` after each poll.
    public func waitForMassCompletion(
        requestIdentifier: String, productID: String, app: StoredApp, interval: Duration = .seconds(5),
        progress: @Sendable (MassExtensionRecord) -> Void = { _ in }
    ) async throws -> MassExtensionRecord {
        while true {
            let record = try await refreshMassStatus(
                requestIdentifier: requestIdentifier, productID: productID, app: app)
            progress(record)
            if record.status == .complete || record.status == .refused { return record }
            try await Task.sleep(for: interval)
        }
    }

    /// Once Apple has finished a mass request: applies each unsettled member chain's state from Apple, then
    /// settles whether its expiry moved. (Run again after an interruption, it picks up the rest.)
    func settleMembers(_ requestIdentifier: String, app: StoredApp) async throws {
        for chain in try await records.unsettledMassMembers(requestIdentifier, appID: app.appID) {
            _ = await refresh(chain, app: app)
        }
        _ = try await records.settleMassMembers(requestIdentifier, appID: app.appID, at: now())
    }

    func massRecord(_ requestIdentifier: String, productID: String, app: StoredApp) async throws
        -> MassExtensionRecord
    {
        guard let record = try await records.massRequest(requestIdentifier, appID: app.appID),
            record.productID == productID
        else {
            throw RenewalExtensionError(
                .unknownRequest,
                "no mass extension \(requestIdentifier) of \(productID) is recorded for \(app.bundleID)")
        }
        return record
    }

    /// Upper-cased ISO 3166-1 alpha-3 codes; `nil` for every storefront.
    static func storefronts(_ codes: [String]?) throws(RenewalExtensionError) -> [String]? {
        guard let codes else { return nil }
        let normalized = codes.map { $0.uppercased() }
        guard !normalized.isEmpty,
            normalized.allSatisfy({ $0.count == 3 && $0.allSatisfy { $0.isASCII && $0.isLetter } })
        else {
            throw RenewalExtensionError(
                .invalidStorefront, "a storefront is a three-letter country code (ISO 3166-1 alpha-3), like USA")
        }
        return normalized
    }
}
