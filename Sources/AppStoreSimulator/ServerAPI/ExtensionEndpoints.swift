import AppStore
import Foundation
import SubLedgerCore

/// Apple's three renewal-date extension endpoints, with Apple's validation, limits and error codes.
///
/// A single extension is made at once; a mass extension is accepted at once and completed the configured
/// `massExtensionCompletionDelay` later (real time), or when the control API asks, so that callers poll Get Status
/// as they must with Apple.
extension ServerAPIResponder {
    /// `PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`.
    func extendRenewalDate(
        _ originalTransactionID: String, _ request: Request, state: inout SimulatorState
    ) throws(SimulatorError) -> SimpleResponse {
        guard !originalTransactionID.isEmpty, originalTransactionID.allSatisfy(\.isNumber) else {
            return ExtensionErrors.invalidOriginalTransactionID
        }
        let body: ExtensionBody
        switch ExtensionBody.parse(request.body, mass: false) {
        case .success(let parsed): body = parsed
        case .failure(let box): return box.response
        }
        let context = SimulatorState.Context(now: request.now, sandboxDurations: engine.clock.usesSandboxDurations)
        try state.processDue(context)
        let key = ExtensionsBook.key(bundleID: request.app.bundleID, requestIdentifier: body.requestIdentifier)
        if let answered = state.extensions.singleAnswers[key] {
            // The same request identifier again: Apple answers what it answered, extending nothing more.
            return ServerAPIResponder.encode(answered)
        }
        guard let chain = state.chains[originalTransactionID], chain.bundleID == request.app.bundleID,
            chain.environment == request.environment
        else { return ExtensionErrors.originalTransactionIDNotFound }
        switch state.extensionRefusal(chain, now: request.now) {
        case .familyShared?: return ExtensionErrors.familyShared
        case .maximumReached?: return ExtensionErrors.maximumReached
        case .ineligible?, .notFound?: return ExtensionErrors.ineligible
        case nil: break
        }
        let effective = state.extendSubscription(
            originalTransactionID, days: body.extendByDays, requestIdentifier: body.requestIdentifier,
            now: request.now, sandboxDurations: context.sandboxDurations)
        let answer = ExtendRenewalDateResponse(
            originalTransactionID: originalTransactionID,
            webOrderLineItemID: state.transactions[chain.latestTransactionID]?.webOrderLineItemID,
            success: effective != nil, effectiveDate: effective?.millisecondsSince1970)
        state.extensions.singleAnswers[key] = answer
        _ = try state.makeNotifications(signer: request.signer, now: request.now)
        let engine = engine
        Task { await engine.deliverDue() }
        return ServerAPIResponder.encode(answer)
    }

    /// `POST /inApps/v1/subscriptions/extend/mass`.
    func massExtendRenewalDate(_ request: Request, state: inout SimulatorState) -> SimpleResponse {
        let body: ExtensionBody
        switch ExtensionBody.parse(request.body, mass: true) {
        case .success(let parsed): body = parsed
        case .failure(let box): return box.response
        }
        guard let productID = body.productID,
            let product = state.apps[request.app.bundleID]?.products[productID], product.type == .autoRenewable
        else { return ExtensionErrors.invalidProductID }
        let key = ExtensionsBook.key(bundleID: request.app.bundleID, requestIdentifier: body.requestIdentifier)
        if state.extensions.massRequests[key] == nil {
            state.extensions.massRequests[key] = ExtensionsBook.MassRequest(
                requestIdentifier: body.requestIdentifier, bundleID: request.app.bundleID,
                environment: request.environment, productID: productID, days: body.extendByDays,
                reasonCode: body.extendReasonCode, storefrontCountryCodes: body.storefrontCountryCodes,
                submittedAt: request.now)
            let engine = engine
            if let delay = engine.massExtensionCompletionDelay {
                Task {
                    try? await Task.sleep(for: delay)
                    _ = try? engine.mutate { state, context throws(SimulatorError) in
                        try state.completeMassExtension(key: key, signer: engine.signer, context)
                    }
                    await engine.deliverDue()
                }
            }
        }
        return ServerAPIResponder.encode(MassExtendRenewalDateResponse(requestIdentifier: body.requestIdentifier))
    }

    /// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`.
    func massExtensionStatus(
        productID: String, requestIdentifier: String, _ request: Request, state: SimulatorState
    ) -> SimpleResponse {
        let key = ExtensionsBook.key(bundleID: request.app.bundleID, requestIdentifier: requestIdentifier)
        guard let mass = state.extensions.massRequests[key], mass.productID == productID,
            mass.environment == request.environment
        else { return ExtensionErrors.statusRequestNotFound }
        return ServerAPIResponder.encode(
            MassExtendRenewalDateStatusResponse(
                requestIdentifier: mass.requestIdentifier, complete: mass.complete,
                completeDate: mass.completeDate?.millisecondsSince1970,
                succeededCount: mass.complete ? mass.succeededCount : nil,
                failedCount: mass.complete ? mass.failedCount : nil))
    }
}

/// A request body of either extension endpoint, validated as Apple validates it.
private struct ExtensionBody {
    var extendByDays: Int
    var extendReasonCode: Int
    var requestIdentifier: String
    var storefrontCountryCodes: [String]?
    var productID: String?

    private struct Raw: Decodable {
        var extendByDays: Int?
        var extendReasonCode: Int?
        var requestIdentifier: String?
        var storefrontCountryCodes: [String]?
        var productId: String?
    }

    static func parse(_ data: Data, mass: Bool) -> Result<ExtensionBody, SimpleResponseBox> {
        guard let raw = try? JSONDecoder().decode(Raw.self, from: data) else {
            return .failure(.init(ServerAPIError.invalidRequest))
        }
        guard let days = raw.extendByDays, RenewalExtensionLimits.acceptsDays(days) else {
            return .failure(.init(ExtensionErrors.invalidExtendByDays))
        }
        guard let reason = raw.extendReasonCode, ExtendReasonCode(rawValue: reason) != nil else {
            return .failure(.init(ExtensionErrors.invalidExtendReasonCode))
        }
        guard let identifier = raw.requestIdentifier, !identifier.isEmpty,
            identifier.count <= RenewalExtensionLimits.maximumRequestIdentifierLength
        else { return .failure(.init(ExtensionErrors.invalidRequestIdentifier)) }
        if mass, let codes = raw.storefrontCountryCodes {
            guard !codes.isEmpty else { return .failure(.init(ExtensionErrors.emptyStorefrontCountryCodeList)) }
            guard codes.allSatisfy({ $0.count == 3 && $0.allSatisfy { $0.isASCII && $0.isUppercase } }) else {
                return .failure(.init(ExtensionErrors.invalidStorefrontCountryCode))
            }
        }
        if mass, raw.productId?.isEmpty ?? true { return .failure(.init(ExtensionErrors.invalidProductID)) }
        return .success(
            ExtensionBody(
                extendByDays: days, extendReasonCode: reason, requestIdentifier: identifier,
                storefrontCountryCodes: mass ? raw.storefrontCountryCodes : nil, productID: raw.productId))
    }
}

/// Apple's error answers of the extension endpoints.
private enum ExtensionErrors {
    static let invalidOriginalTransactionID = ServerAPIError.body(
        4_000_008, "Invalid original transaction id.", status: 400)
    static let invalidExtendByDays = ServerAPIError.body(4_000_009, "Invalid extend by days value.", status: 400)
    static let invalidExtendReasonCode = ServerAPIError.body(4_000_010, "Invalid extend reason code.", status: 400)
    static let invalidRequestIdentifier = ServerAPIError.body(4_000_011, "Invalid request identifier.", status: 400)
    static let invalidProductID = ServerAPIError.body(4_000_023, "Invalid product id.", status: 400)
    static let emptyStorefrontCountryCodeList = ServerAPIError.body(
        4_000_027, "Invalid request. If provided, the list of storefront country codes must not be empty.",
        status: 400)
    static let invalidStorefrontCountryCode = ServerAPIError.body(
        4_000_028, "Invalid request. A storefront country code was invalid.", status: 400)
    static let ineligible = ServerAPIError.body(
        4_030_004, "Forbidden - subscription state ineligible for extension.", status: 403)
    static let maximumReached = ServerAPIError.body(
        4_030_005, "Forbidden - subscription has reached maximum extension count.", status: 403)
    static let familyShared = ServerAPIError.body(
        4_030_007,
        "Subscriptions that users obtain through Family Sharing can't get a renewal date extension directly.",
        status: 403)
    static let originalTransactionIDNotFound = ServerAPIError.body(
        4_040_005, "Original transaction id not found.", status: 404)
    static let statusRequestNotFound = ServerAPIError.body(
        4_040_009,
        "The server didn't find a subscription-renewal-date extension request for this requestIdentifier and productId combination.",
        status: 404)
}
