import AppStore
import AppStoreClients
import Foundation
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Extends subscriptions' renewal dates through Apple (one subscription, or every active subscriber of a
/// product), checking Apple's limits first, recording every request in the ledger and applying the new
/// expiries through the same Server API path as the renewal job (`Ingestion.pollServerAPI`).
///
/// The `RENEWAL_EXTENDED` notification Apple sends for each extended subscription carries the same
/// transaction with the same new expiry, so whichever arrives second changes nothing.
public struct RenewalExtensions: Sendable {
    let store: LedgerStore
    let catalog: CatalogStore
    let records: RenewalExtensionStore
    let apple: AppleGateway
    let ingestion: Ingestion
    let logger: Logger
    let now: @Sendable () -> Instant
    let makeRequestIdentifier: @Sendable () -> String

    public init(
        store: LedgerStore, catalog: CatalogStore, apple: AppleGateway, ingestion: Ingestion, logger: Logger,
        now: @escaping @Sendable () -> Instant,
        makeRequestIdentifier: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.store = store
        self.catalog = catalog
        self.records = RenewalExtensionStore(pool: store.pool)
        self.apple = apple
        self.ingestion = ingestion
        self.logger = logger
        self.now = now
        self.makeRequestIdentifier = makeRequestIdentifier
    }

    // MARK: - Arguments

    /// Apple's reason code for a name (`undeclared`, `customer_satisfaction`, `other`, `service_issue_or_outage`).
    public static func reason(named name: String) throws(RenewalExtensionError) -> ExtendReasonCode {
        guard let reason = ExtendReasonCode(name: name) else {
            throw RenewalExtensionError(
                .invalidReason,
                "unknown reason '\(name)': use one of "
                    + ExtendReasonCode.allCases.map(\.name).joined(separator: ", "))
        }
        return reason
    }

    /// Refuses a number of days Apple would refuse.
    static func checkDays(_ days: Int) throws(RenewalExtensionError) {
        guard RenewalExtensionLimits.acceptsDays(days) else {
            throw RenewalExtensionError(
                .invalidDays,
                "days must be \(RenewalExtensionLimits.minimumDays) to \(RenewalExtensionLimits.maximumDays) "
                    + "(Apple's limit per extension), not \(days)")
        }
    }

    func requestIdentifier(_ given: String?) throws(RenewalExtensionError) -> String {
        guard let given else { return makeRequestIdentifier() }
        guard !given.isEmpty, given.count <= RenewalExtensionLimits.maximumRequestIdentifierLength else {
            throw RenewalExtensionError(
                .invalidRequestIdentifier,
                "a request identifier must be 1 to \(RenewalExtensionLimits.maximumRequestIdentifierLength) characters")
        }
        return given
    }

    /// The app named by `bundleID`, or the only app when none is named.
    public func app(bundleID: String?) async throws -> StoredApp {
        if let bundleID {
            guard let app = try await catalog.app(bundleID: bundleID) else {
                throw RenewalExtensionError(.unknownApp, "no app \(bundleID) in the catalog")
            }
            return app
        }
        let apps = try await catalog.apps()
        guard apps.count == 1 else {
            throw RenewalExtensionError(
                .unknownApp,
                apps.isEmpty ? "the catalog has no app" : "the catalog has \(apps.count) apps: name one with --app")
        }
        return apps[0]
    }

    func serverAPIClient(_ app: StoredApp, _ environment: StoreEnvironment) throws -> AppStoreServerAPIClient {
        let client: AppStoreServerAPIClient?
        do {
            client = try apple.serverAPIClient(for: app, environment: environment)
        } catch let error as AppleGatewayError {
            throw RenewalExtensionError(.noServerAPICredentials, error.description)
        }
        guard let client else {
            throw RenewalExtensionError(
                .noServerAPICredentials,
                "\(app.bundleID) has no App Store Server API key; add one to the catalog's secrets")
        }
        return client
    }

    /// The refusal while Apple is not called: the circuit breaker is open, or every call slot stayed busy.
    static func notCalled(_ wait: Duration) -> RenewalExtensionError {
        RenewalExtensionError(
            .appleUnavailable,
            "Apple is not called now (it keeps failing, or every call is busy): retry in \(wait.components.seconds + 1) s "
                + "with the same --request-id")
    }

    static func refusal(_ error: AppStoreServerAPIError) -> RenewalExtensionError {
        if error.isRetryable {
            return RenewalExtensionError(
                .appleUnavailable, "Apple did not answer (\(error)); retry with the same --request-id")
        }
        let meaning: String =
            switch error.apiErrorCode {
            case 4_000_009: "invalid extendByDays"
            case 4_000_010: "invalid extendReasonCode"
            case 4_000_011: "invalid requestIdentifier"
            case 4_000_023: "invalid productId"
            case 4_000_027, 4_000_028: "invalid storefront country code"
            case 4_030_004: "SubscriptionExtensionIneligibleError: the subscription's state is ineligible"
            case 4_030_005: "SubscriptionMaxExtensionError: the subscription had its maximum of extensions"
            case 4_030_007: "FamilySharedSubscriptionExtensionIneligibleError: extend the purchaser's subscription"
            case 4_040_005: "OriginalTransactionIdNotFoundError"
            case 4_040_009: "StatusRequestNotFoundError"
            default: "refused"
            }
        return RenewalExtensionError(.appleRefused, "Apple refused the extension: \(meaning) (\(error))")
    }

    // MARK: - One subscription

    /// Extends one subscription's renewal date by `days` (Apple's Extend a Subscription Renewal Date).
    ///
    /// Refused before Apple is called when `days` is outside 1...90, the chain is unknown, not an active
    /// auto-renewable subscription, or already had two extensions requested or granted within 365 days.
    /// A `requestIdentifier` that succeeded before answers its record again without calling Apple.
    public func extend(
        chainID: String, app: StoredApp, environment: StoreEnvironment? = nil, days: Int,
        reason: ExtendReasonCode, requestedBy: String, requestIdentifier given: String? = nil
    ) async throws -> SingleExtensionOutcome {
        try Self.checkDays(days)
        let identifier = try requestIdentifier(given)
        let chain = try await activeChain(chainID, app: app, environment: environment)
        let client = try serverAPIClient(app, chain.key.environment)
        let reservation = try await records.reserve(
            chain.key, appID: app.appID, requestIdentifier: identifier, days: days, reasonCode: reason.rawValue,
            requestedBy: requestedBy, now: now(), windowStart: RenewalExtensionLimits.windowStart(endingAt: now()),
            maximum: RenewalExtensionLimits.maximumPerWindow)
        switch reservation {
        case .limitReached(let count):
            throw RenewalExtensionError(
                .extensionLimitReached,
                "\(chainID) already had \(count) extensions within 365 days; Apple allows "
                    + "\(RenewalExtensionLimits.maximumPerWindow)")
        case .alreadyRecorded(let record) where record.status == .succeeded:
            let current = try await store.chain(chain.key, app: app)
            return SingleExtensionOutcome(
                record: record, expiresAt: current?.header.latestExpiry, applied: false, repeated: true)
        case .alreadyRecorded, .reserved:
            break
        }
        let answer: ExtendRenewalDateResponse
        do {
            answer = try await apple.callServerAPI(.extendRenewalDate) { () async throws(AppStoreServerAPIError) in
                try await client.extendRenewalDate(
                    originalTransactionID: chain.key.chainID,
                    ExtendRenewalDateRequest(
                        extendByDays: days, extendReasonCode: reason, requestIdentifier: identifier))
            }
        } catch .notCalled(let wait) {
            // Not sent: recorded as a failed call, so the same request identifier may be tried again.
            try await records.recordAnswer(
                chain.key, appID: app.appID, requestIdentifier: identifier, status: .failed, effectiveDate: nil,
                webOrderLineItemID: nil, appleError: "not sent: Apple is not called now", at: now())
            throw Self.notCalled(wait)
        } catch .apple(let error) {
            // A timeout or a lost connection leaves the outcome unknown: the row stays `requested` (and counts).
            let unknown = error.code == .timeout || error.code == .connectionError
            let status: RenewalExtensionRecord.Status = unknown ? .requested : error.isRetryable ? .failed : .refused
            try await records.recordAnswer(
                chain.key, appID: app.appID, requestIdentifier: identifier, status: status, effectiveDate: nil,
                webOrderLineItemID: nil, appleError: error.description, at: now())
            throw Self.refusal(error)
        }
        let effective = answer.effectiveDate.map(Instant.init(millisecondsSince1970:))
        try await records.recordAnswer(
            chain.key, appID: app.appID, requestIdentifier: identifier,
            status: answer.success == false ? .refused : .succeeded, effectiveDate: effective,
            webOrderLineItemID: answer.webOrderLineItemID,
            appleError: answer.success == false ? "success: false" : nil, at: now())
        guard answer.success != false else {
            throw RenewalExtensionError(.appleRefused, "Apple answered success: false for \(chainID)")
        }
        let applied = await refresh(chain.key, app: app)
        let current = try await store.chain(chain.key, app: app)
        let record = try await records.extensions(of: chain.key, appID: app.appID)
            .first { $0.requestIdentifier == identifier }
        guard let record else {
            throw RenewalExtensionError(
                .unknownSubscription, "the extension's record of \(chainID) vanished")
        }
        return SingleExtensionOutcome(
            record: record, expiresAt: current?.header.latestExpiry, applied: applied, repeated: false)
    }

    /// The ledger's chain, which must be an active auto-renewable subscription now.
    func activeChain(
        _ chainID: String, app: StoredApp, environment: StoreEnvironment?
    ) async throws -> ChainSnapshot {
        guard !chainID.isEmpty, chainID.count <= 64,
            chainID.allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            throw RenewalExtensionError(
                .unknownSubscription, "an original transaction id is a number, like 2000000123456789")
        }
        var found: ChainSnapshot?
        for candidate in environment.map({ [$0] }) ?? app.definition.environments {
            let key = ChainKey(environment: candidate, chainID: chainID)
            if let chain = try await store.chain(key, app: app) {
                found = chain
                break
            }
        }
        guard let chain = found else {
            throw RenewalExtensionError(
                .unknownSubscription, "the ledger holds no subscription \(chainID) of \(app.bundleID)")
        }
        guard chain.header.productType == .autoRenewable else {
            throw RenewalExtensionError(
                .notAutoRenewable, "\(chainID) is a \(chain.header.productType.rawValue) purchase")
        }
        let state = chain.state(at: now(), in: app.definition)
        guard state == .active else {
            throw RenewalExtensionError(
                .notActive,
                "\(chainID) is \(state.name), not active: Apple extends only active subscriptions")
        }
        return chain
    }

    /// Applies the chain's state as Apple's Server API now reports it; false (logged) when that failed, in
    /// which case the `RENEWAL_EXTENDED` notification or the renewal job applies it later.
    func refresh(_ chain: ChainKey, app: StoredApp) async -> Bool {
        do {
            return try await ingestion.pollServerAPI(chain, app: app) != nil
        } catch {
            logger.warning(
                "the extended subscription could not be refreshed now",
                metadata: ["chain": "\(chain)", "error": "\(error)"])
            return false
        }
    }
}
